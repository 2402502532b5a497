// The admission chain of a real API server calling Den's webhooks (registered by URL on
// loopback, as installed, both manager replicas behind one address): what the rules refuse
// reaches a person through REST with the cluster's status mapped (DESIGN: 422 -> 400, a quota
// refusal 403) and the rule's message; a client of the cluster gets the API server's own Status
// with the rule's field and advice as causes (a Workspace's and an ImageRegistry's); REST's env is
// stored as spec.env; the mutating webhook's writes land. (Webhooks
// down or frozen, failurePolicy Fail and the 10 s timeout: manager-outages.real.test.ts.)
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { ANNOTATIONS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { WEBHOOK_CONFIGURATION } from '../../contract/names.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { sessionUser, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import type { Rest, Session } from './rest.js';
import { removeSignedInPerson, signInNewPerson } from './real-person.js';

const NOT_BASE64 = 'ssh-ed25519 AAAAnotakey laptop';

describe("the API server's admission chain calling Den's webhooks, on a real API server", function () {
  this.timeout(120_000);
  const image = uniqueName('ubuntu');
  const key = generateSshKey('ed25519').publicLine;
  let admin: KubeClient;
  let rest: Rest;
  let person: Person;
  let session: Session;

  before(async function () {
    this.timeout(300_000);
    ({ admin, rest, person, session } = await signInNewPerson('frank', image));
  });

  after(async function () {
    this.timeout(120_000);
    await removeSignedInPerson(admin, person, image);
  });

  async function absent(name: string): Promise<boolean> {
    return admin.get(RESOURCES.workspace, name, person.namespace).then(() => false, () => true);
  }

  it('is registered to fail closed within 10 s: failurePolicy Fail, timeoutSeconds 10, on every webhook', async () => {
    for (const r of [RESOURCES.mutatingWebhookConfiguration, RESOURCES.validatingWebhookConfiguration]) {
      const config = await admin.get<{ webhooks: { name: string; failurePolicy: string; timeoutSeconds: number }[] }>(r, WEBHOOK_CONFIGURATION);
      for (const hook of config.webhooks) expect({ name: hook.name, failurePolicy: hook.failurePolicy, timeoutSeconds: hook.timeoutSeconds }).to.deep.equal({ name: hook.name, failurePolicy: 'Fail', timeoutSeconds: 10 });
    }
  });

  it("refuses a workspace of an image not in the catalog: REST 400 with the webhook's message, nothing created", async () => {
    const answer = await rest.call('POST', '/workspaces', { body: workspaceRequest('ghost', 'no-such-image', key), as: { session } });
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.equal({ error: 'admission webhook "vworkspace.den.dev" denied the request: spec.imageRef.name: WorkspaceImage "no-such-image" does not exist' });
    expect(await absent('ghost')).to.equal(true);
  });

  it("refuses a malformed SSH key: REST 400 with the rule's message; the cluster's own answer is 422 Invalid with the field and the advice", async () => {
    const answer = await rest.call('POST', '/workspaces', { body: workspaceRequest('badkey', image, NOT_BASE64), as: { session } });
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.equal({ error: 'admission webhook "vworkspace.den.dev" denied the request: spec.sshAuthorizedKeys[0]: not a valid SSH public key: the key is not valid base64' });
    const direct: KubeObject = { apiVersion: RESOURCES.workspace.apiVersion, kind: 'Workspace', metadata: { name: 'badkey', namespace: person.namespace }, spec: { imageRef: { name: image }, storage: '1Gi', running: true, sshAuthorizedKeys: [NOT_BASE64] } };
    const refused = (await admin.create(RESOURCES.workspace, direct, person.namespace).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.body).to.deep.include({ reason: 'Invalid', message: answer.body.error });
    expect(refused.body.details?.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', field: 'spec.sshAuthorizedKeys[0]', message: 'This is not an SSH public key Den can use (the key is not valid base64). Paste the one line of your public key file, such as ~/.ssh/id_ed25519.pub: it starts with ssh-ed25519, ecdsa-sha2- or ssh-rsa.' },
    ]);
    expect(await absent('badkey')).to.equal(true);
  });

  it("refuses a workspace above the person's quota: REST 403, the quota named", async () => {
    const answer = await rest.call('POST', '/workspaces', { body: workspaceRequest('huge', image, key, '9'), as: { session } });
    expect(answer.status).to.equal(403);
    expect(answer.body).to.deep.equal({ error: `admission webhook "vworkspace.den.dev" denied the request: spec.resources.requests.cpu: exceeded quota of UserSpace "${person.name}" (spec.quota.cpu): requested 9, used 0, limited 4` });
    expect(await absent('huge')).to.equal(true);
  });

  it("refuses a change of a UserSpace's owner with the rule's message and advice", async () => {
    const space = await admin.get<KubeObject & { spec: Record<string, unknown> }>(RESOURCES.userSpace, person.name);
    const refused = (await admin.replace(RESOURCES.userSpace, { ...space, spec: { ...space.spec, owner: 'someone-else@example.com' } }).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.message).to.equal(`admission webhook "vuserspace.den.dev" denied the request: spec.owner: is immutable: it is "${person.name}@example.com", the update asks for "someone-else@example.com"; create a new UserSpace for another owner`);
    expect((await admin.get<{ spec: { owner: string } }>(RESOURCES.userSpace, person.name)).spec.owner).to.equal(`${person.name}@example.com`);
  });

  it("refuses an ImageRegistry whose pattern RE2 cannot read: 422 with the field and the administrator's words as its cause, nothing stored", async () => {
    const name = uniqueName('ecr');
    const registry: KubeObject = { apiVersion: RESOURCES.imageRegistry.apiVersion, kind: 'ImageRegistry', metadata: { name }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync: { include: ['^team/(?!tmp)'] } } };
    const refused = (await admin.create(RESOURCES.imageRegistry, registry).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.message).to.match(/^admission webhook "vimageregistry\.den\.dev" denied the request: spec\.sync\.include\[0\]: is not a valid RE2 pattern: /);
    const causes = refused.body.details?.causes ?? [];
    expect(causes.map((c) => [c.reason, c.field])).to.deep.equal([['FieldValueInvalid', 'spec.sync.include[0]']]);
    expect(causes[0]!.message).to.match(/^This is not a regular expression Den can use \(.+\)\. Den reads patterns as RE2, which has no lookahead, lookbehind or backreferences: rewrite it, such as \^team\/\.\*\$\.$/);
    expect(await admin.get(RESOURCES.imageRegistry, name).then(() => 'stored', () => 'absent')).to.equal('absent');
  });

  it('admits a good workspace with variables of its own, the mutating webhook having written who asked for it', async () => {
    const answer = await rest.call('POST', '/workspaces', { body: { ...workspaceRequest('dev', image, key), env: { EDITOR: 'vim', PROMPT: '$(HOSTNAME)$' } }, as: { session } });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    const stored = await admin.get<KubeObject & { spec: { env?: unknown } }>(RESOURCES.workspace, 'dev', person.namespace);
    expect(stored.metadata?.annotations?.[ANNOTATIONS.requester]).to.equal(sessionUser(person));
    expect(stored.spec.env, 'REST env as spec.env, kept literal').to.deep.equal([{ name: 'EDITOR', value: 'vim' }, { name: 'PROMPT', value: '$$(HOSTNAME)$$' }]);
  });
});
