import { expect } from 'chai';
import { declaredAppViolations, declaredApps } from '../../contract/workspace-image-rules.js';
import { reviewWorkspaceImage } from '../../hooks/admission/webhooks.js';
import { RESOURCES } from '../../kube/resources.js';
import { KubeApiError } from '../../kube/errors.js';
import { startCluster } from '../server/core/cluster.js';
import { createWorkspaceImageRequest, patchWorkspaceImageRequest } from '../../server/api/schemas.js';

async function restError(apps: unknown): Promise<string | undefined> {
  try {
    await createWorkspaceImageRequest.validate({ name: 'ide', image: 'debian:12', apps }, { strict: true, abortEarly: false });
    return undefined;
  } catch (err) {
    return ((err as { errors?: string[] }).errors ?? [(err as Error).message]).join('; ');
  }
}

const VSCODE = { name: 'VS Code', port: 3000, path: '/?folder=/home/dev', icon: 'https://example.com/vscode.svg' };

function review(apps: unknown, operation: 'CREATE' | 'UPDATE' = 'CREATE') {
  return reviewWorkspaceImage({
    uid: 'u1',
    kind: { group: 'den.dev', version: 'v1alpha1', kind: 'WorkspaceImage' },
    operation,
    userInfo: { username: 'carol' },
    object: { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ide' }, spec: { displayName: 'IDE', image: 'debian:12', apps } },
  });
}

/** Each rule of spec.apps, as the webhook names the field. */
const PORT = 'A port is the whole number the app listens on in the workspace, from 1 to 65535, such as 8888.';
const RULES: { rule: string; apps: unknown; field: string; says: string; advice: string }[] = [
  { rule: 'an app needs a name', apps: [{ port: 3000 }], field: 'spec.apps[0].name', says: 'is required', advice: "An app's name is required: it labels its button on the workspace page, such as Jupyter (no line breaks)." },
  { rule: 'an app needs a port', apps: [{ name: 'x' }], field: 'spec.apps[0].port', says: 'is required', advice: `Every app needs its port. ${PORT}` },
  { rule: 'a port is 1 to 65535', apps: [{ name: 'x', port: 70000 }], field: 'spec.apps[0].port', says: 'must be a whole number from 1 to 65535', advice: `70000 is not a port. ${PORT}` },
  { rule: 'a port is whole', apps: [{ name: 'x', port: 80.5 }], field: 'spec.apps[0].port', says: 'must be a whole number from 1 to 65535', advice: `80.5 is not a port. ${PORT}` },
  { rule: 'names are unique', apps: [VSCODE, { ...VSCODE, port: 3001 }], field: 'spec.apps[1].name', says: '"VS Code" is declared twice; app names must be unique', advice: 'Two apps are named VS Code: give each its own name, since it labels its button.' },
  { rule: 'a path starts with /', apps: [{ name: 'x', port: 1, path: 'lab' }], field: 'spec.apps[0].path', says: 'must be a path starting with / without spaces', advice: "An app's path must be a path starting with / without spaces: it is where the app opens, such as /lab (leave it out for /)." },
  { rule: 'an icon is https or a data:image URL', apps: [{ name: 'x', port: 1, icon: 'javascript:alert(1)' }], field: 'spec.apps[0].icon', says: 'must be an https: or data:image/ URL', advice: "An app's icon must be an https: or data:image/ URL: the pages load no other images, so give an https:// address or a data:image/ URL, or leave it out." },
  { rule: 'a name is text', apps: [{ name: 7, port: 1 }], field: 'spec.apps[0].name', says: 'must be a string', advice: "An app's name is text: it labels its button on the workspace page, such as Jupyter (no line breaks)." },
  { rule: 'a path is at most 1024 characters', apps: [{ name: 'x', port: 1, path: `/${'a'.repeat(1024)}` }], field: 'spec.apps[0].path', says: 'must be at most 1024 characters (got 1025)', advice: "An app's path is at most 1024 characters, and this one has 1025: shorten it." },
  { rule: 'an app is an object', apps: ['jupyter'], field: 'spec.apps[0]', says: 'must be an object with name and port', advice: 'Each app is a name and a port, such as name: Jupyter and port: 8888.' },
  { rule: 'apps are a list', apps: { name: 'x' }, field: 'spec.apps', says: 'must be a list of apps', advice: 'The apps of a catalog entry are a list, each with a name and a port, such as Jupyter on 8888.' },
  { rule: 'at most 16 apps', apps: Array.from({ length: 17 }, (_, i) => ({ name: `a${i}`, port: 1000 + i })), field: 'spec.apps', says: 'must have at most 16 apps (got 17)', advice: 'A catalog entry shows at most 16 app buttons, and this one declares 17: keep the ones people use most.' },
];

describe('WorkspaceImage spec.apps rules: one home, read by the CRD schema and the webhook vworkspaceimage.den.dev', () => {
  for (const r of RULES) {
    it(`${r.rule}: the webhook denies naming ${r.field}, REST refuses naming ${r.field.replace('spec.', '')}`, async () => {
      expect(declaredAppViolations(r.apps)).to.deep.equal([{ field: r.field, message: r.says, advice: r.advice }]);
      for (const operation of ['CREATE', 'UPDATE'] as const) {
        const response = review(r.apps, operation);
        expect(response.allowed).to.equal(false);
        expect(response.status?.code).to.equal(422);
        expect(response.status?.message).to.equal(`${r.field}: ${r.says}`);
        // The administrator's words ride the field's cause: kube-apiserver passes it on, the pages show it beside the field.
        expect(response.status?.details?.causes).to.deep.equal([{ reason: 'FieldValueInvalid', field: r.field, message: r.advice }]);
      }
      if (r.rule !== 'a name is text' && r.rule !== 'an app is an object' && r.rule !== 'apps are a list') expect(await restError(r.apps)).to.contain(`${r.field.replace('spec.', '')} ${r.says}`);
    });
  }

  it('lets valid apps and an entry without apps through, and pages show only valid stored apps', async () => {
    expect(await restError([VSCODE, { name: 'Notebook', port: 8888 }])).to.equal(undefined);
    expect(await restError([{ name: 'x', port: 1, extra: true }])).to.equal('unknown field apps[0].extra');
    expect(patchWorkspaceImageRequest.isValidSync({ apps: [] }, { strict: true })).to.equal(true);
    expect(review([VSCODE, { name: 'Notebook', port: 8888 }]).allowed).to.equal(true);
    expect(review(undefined).allowed).to.equal(true);
    expect(declaredApps([VSCODE, { name: 'broken', port: 0 }])).to.deep.equal([VSCODE]);
  });

  it('is refused by the CRD schema too, with the API server\'s own message', async () => {
    const api = await startCluster();
    try {
      const client = api.client();
      const entry = (apps: unknown) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ide' }, spec: { displayName: 'IDE', image: 'debian:12', apps } });
      const err = await client.create(RESOURCES.workspaceImage, entry([{ name: 'x', port: 0 }])).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(KubeApiError);
      expect((err as KubeApiError).message).to.contain('spec.apps[0].port');
      api.seed(entry([VSCODE]));
      expect(api.object<{ spec: { apps: unknown[] } }>(RESOURCES.workspaceImage, 'ide')?.spec.apps).to.deep.equal([VSCODE]);
    } finally {
      await api.close();
    }
  });
});
