import { expect } from 'chai';
import { decide } from '../../hooks/workspace/desired.js';
import type { Workspace, WorkspaceSpec } from '../../hooks/workspace/types.js';
import type { WorkspaceRuleId } from '../../contract/workspace-rules.js';
import { validateWorkspace } from '../../hooks/admission/validate-workspace.js';

// Each rule of contract/workspace-rules.ts, fed to both of its readers: the admission webhook
// must refuse exactly where the Workspace hook stops rendering, and admit where it renders.

interface ImageSpec {
  homePath?: string;
  runAsUser?: number;
  allowRoot?: boolean;
}

interface Case {
  what: string;
  /** The Workspace's name, `dev` unless given. */
  name?: string;
  spec?: WorkspaceSpec;
  image?: ImageSpec;
  /** The rule and field that refuse, or undefined when both readers accept. */
  refused?: { rule: WorkspaceRuleId; field: string };
}

const data = [{ name: 'data', emptyDir: {} }];
const mount = (mountPath: string, name = 'data') => ({ volumes: data, volumeMounts: [{ name, mountPath }] });

const RULES: Record<WorkspaceRuleId, Case[]> = {
  'workspace-name': [
    { what: 'a name starting with a digit, which no Service can carry', name: '1dev', refused: { rule: 'workspace-name', field: 'metadata.name' } },
    { what: 'a name with a dot', name: 'dev.one', refused: { rule: 'workspace-name', field: 'metadata.name' } },
    { what: 'a name of 53 characters', name: 'w'.repeat(53), refused: { rule: 'workspace-name', field: 'metadata.name' } },
    { what: 'a name of 52 characters', name: 'w'.repeat(52) },
    { what: 'a name with digits and dashes after its first letter', name: 'dev-2-go' },
  ],
  'home-volume': [
    { what: 'a volume named like the home volume', spec: { volumes: [{ name: 'home', emptyDir: {} }] }, refused: { rule: 'home-volume', field: 'spec.volumes[0].name' } },
    { what: 'a mount at the home path', spec: mount('/home/dev'), refused: { rule: 'home-volume', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'a mount at the home path with a trailing slash', spec: mount('/home/dev/'), refused: { rule: 'home-volume', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'a mount above the home path', spec: mount('/home'), refused: { rule: 'home-volume', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'a mount at the root', spec: mount('/'), refused: { rule: 'home-volume', field: 'spec.volumeMounts[0].mountPath' } },
    { what: "a mount at the image's own home path", spec: mount('/work'), image: { homePath: '/work' }, refused: { rule: 'home-volume', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'a mount inside the home path', spec: mount('/home/dev/data') },
    { what: 'a mount beside the home path whose name starts the same', spec: mount('/home/developer') },
  ],
  'volume-mount': [
    { what: 'a mount that names no volume', spec: mount('/cache', 'cache'), refused: { rule: 'volume-mount', field: 'spec.volumeMounts[0].name' } },
    { what: 'a mount of the home volume by name', spec: { volumeMounts: [{ name: 'home', mountPath: '/srv' }] }, refused: { rule: 'volume-mount', field: 'spec.volumeMounts[0].name' } },
    { what: 'a volume name used twice', spec: { volumes: [...data, ...data] }, refused: { rule: 'volume-mount', field: 'spec.volumes[1].name' } },
    { what: 'a relative mount path', spec: mount('cache'), refused: { rule: 'volume-mount', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'one path mounted twice', spec: { volumes: [...data, { name: 'more', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/srv' }, { name: 'more', mountPath: '/srv/' }] }, refused: { rule: 'volume-mount', field: 'spec.volumeMounts[1].mountPath' } },
    { what: "a volume named like Den's git credentials volume", spec: { volumes: [{ name: 'den-git-credentials', emptyDir: {} }] }, refused: { rule: 'volume-mount', field: 'spec.volumes[0].name' } },
    { what: 'a mount where Den mounts the git credentials', spec: mount('/var/run/secrets/den.dev/git/'), refused: { rule: 'volume-mount', field: 'spec.volumeMounts[0].mountPath' } },
    { what: 'a mount of a volume of spec.volumes outside home', spec: mount('/srv') },
    { what: 'no volumes at all', spec: {} },
  ],
  'image-root': [
    { what: 'an image running as uid 0 without allowRoot', image: { runAsUser: 0 }, refused: { rule: 'image-root', field: 'spec.imageRef.name' } },
    { what: 'an image running as uid 0 with allowRoot', image: { runAsUser: 0, allowRoot: true } },
    { what: 'an image running as another uid', image: { runAsUser: 1000 } },
  ],
};

function workspaceWith(spec: WorkspaceSpec, name = 'dev'): Workspace {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice' },
    spec: { imageRef: { name: 'ubuntu' }, storage: '10Gi', running: false, ...spec },
  };
}

/** A WorkspaceImage in the shape both readers accept. */
function imageWith(spec: ImageSpec) {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { image: 'ubuntu:24.04', ...spec } };
}

/** The webhook's refusals under these rules (a missing UserSpace and the like are other rules). */
function webhookRefusals(c: Case): { rule: string; field: string }[] {
  const violations = validateWorkspace({
    operation: 'CREATE',
    namespace: 'svc-alice',
    object: workspaceWith(c.spec ?? {}, c.name),
    image: imageWith(c.image ?? {}),
    userSpace: undefined,
    workspaces: [],
    claims: [],
    gpuResource: 'nvidia.com/gpu',
    now: new Date('2026-06-01T12:00:00Z'),
  });
  return violations.filter((v) => v.rule in RULES).map(({ rule, field }) => ({ rule, field }));
}

describe('the Workspace rules, read by the webhook and the hook alike', () => {
  for (const [rule, cases] of Object.entries(RULES)) {
    describe(rule, () => {
      for (const c of cases) {
        it(`${c.refused ? 'refuses' : 'accepts'} ${c.what}`, () => {
          const decision = decide(workspaceWith(c.spec ?? {}, c.name), imageWith(c.image ?? {}));
          if (!c.refused) {
            expect(webhookRefusals(c), 'webhook').to.deep.equal([]);
            expect(decision, 'hook').to.have.property('props');
            return;
          }
          expect(webhookRefusals(c), 'webhook').to.deep.equal([c.refused]);
          expect(decision, 'hook').to.have.property('problem');
          const { problem } = decision as { problem: { reason: string; message: string } };
          expect(problem.reason).to.equal(c.refused.rule === 'image-root' ? 'RootNotAllowed' : 'InvalidSpec');
          // The hook names the entry at fault: spec.volumes[1] for spec.volumes[1].name.
          if (c.refused.rule !== 'image-root') expect(problem.message).to.contain(c.refused.field.replace(/\.(name|mountPath)$/, ''));
        });
      }
    });
  }
});
