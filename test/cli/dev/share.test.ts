// den share, and what the guest's den ls, den config-ssh and den ssh make of a shared workspace,
// against den server's app on the fake API server (the chart's RBAC and the fake's escalation
// check), as alice and bob run them on their own laptops with their own API tokens.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, startCluster, startDen, untilSharesCached, type Den } from '../../server/core/cluster.js';
import { laptop, signInWithToken, type Laptop } from './support.js';

function runningWorkspace(name: string, namespace: string): KubeObject {
  return {
    apiVersion: RESOURCES.workspace.apiVersion,
    kind: 'Workspace',
    metadata: { name, namespace, creationTimestamp: new Date().toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '1Gi', sshAuthorizedKeys: [] },
    status: { phase: 'Running', endpoint: `${name}@ssh.example.com` },
  } as KubeObject;
}

describe('den share: a workspace shared from one laptop and used from another', function () {
  this.timeout(90_000);
  let api: FakeApiServer;
  let den: Den;
  let alice: Laptop;
  let bob: Laptop;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    api.seed(runningWorkspace('dev', 'svc-alice'));
    den = await startDen(api);
    [alice, bob] = await Promise.all([laptop(), laptop()]);
    await signInWithToken(den, 'alice', alice, ['--name', 'corp']);
    await signInWithToken(den, 'bob', bob, ['--name', 'corp']);
  });

  after(async () => {
    await den?.close();
    await api?.close();
    for (const l of [alice, bob]) if (l) await rm(l.home, { recursive: true, force: true });
  });

  it('den share dev bob shares it (one line saying how bob reaches it) and den share dev lists bob', async () => {
    const shared = await alice.den(['share', 'dev', 'bob']);
    expect(shared.code, shared.stderr).to.equal(0);
    expect(shared.stdout).to.equal('workspace dev shared with bob: they reach it as dev.alice (den ssh dev.alice, or ssh after den config-ssh)\n');
    expect(api.object(RESOURCES.roleBinding, 'den-share.dev.bob', 'svc-alice'), 'the RoleBinding alice wrote').to.not.equal(undefined);
    const listed = await alice.den(['share', 'dev']);
    expect(listed.stdout).to.match(/^PERSON +SINCE\nbob +\d{4}-\d\d-\d\dT/);
    const json = JSON.parse((await alice.den(['share', 'dev', '-o', 'json'])).stdout);
    expect(json.items.map((s: { person: string }) => s.person)).to.deep.equal(['bob']);
  });

  it("shows bob the shared workspace apart from his own in den ls, and only it with --shared -o json (the REST answer)", async () => {
    await untilSharesCached(den, 'bob', 1);
    const ls = await bob.den(['ls']);
    expect(ls.code, ls.stderr).to.equal(0);
    expect(ls.stderr).to.equal('no workspaces yet (create one with den create <name> --image <entry>)\n');
    expect(ls.stdout).to.match(/^SHARED WITH YOU +OWNER +PHASE +RUNNING +IMAGE +AGE\ndev\.alice +alice +Running +yes +ubuntu +\d+s\n$/);
    const json = JSON.parse((await bob.den(['ls', '--shared', '-o', 'json'])).stdout);
    expect(json.items.map((s: Record<string, string>) => [s.ssh_user, s.owner, s.namespace, s.name])).to.deep.equal([['dev.alice', 'alice', 'svc-alice', 'dev']]);
    const own = JSON.parse((await bob.den(['ls', '-o', 'json'])).stdout);
    expect(own, "den ls -o json stays GET /workspaces' answer").to.deep.equal({ items: [] });
  });

  it('writes a Host for the shared workspace into bob\'s ssh config: dev.alice.corp, user dev.alice, his own key', async () => {
    const file = join(bob.home, 'ssh_config');
    const written = await bob.den(['config-ssh', '--file', file]);
    expect(written.code, written.stderr).to.equal(0);
    const text = await readFile(file, 'utf8');
    expect(text).to.contain(['Host dev.alice.corp', '  HostName ssh.example.com', '  Port 22', '  User dev.alice', `  IdentityFile ${bob.keyFile}`, '  IdentitiesOnly yes'].join('\n'));
  });

  it("den ssh of a stopped shared workspace says only its owner can start it, and starts nothing", async () => {
    const ws = api.object<KubeObject & { spec: Record<string, unknown> }>(RESOURCES.workspace, 'dev', 'svc-alice')!;
    api.seed({ ...ws, spec: { ...ws.spec, running: false } });
    try {
      const r = await bob.den(['ssh', 'dev.alice', 'true']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal('den ssh: workspace dev.alice is stopped, and only alice can start it\n');
      expect(api.object<{ spec: { running: boolean } }>(RESOURCES.workspace, 'dev', 'svc-alice')!.spec.running).to.equal(false);
    } finally {
      api.seed({ ...api.object<KubeObject & { spec: Record<string, unknown> }>(RESOURCES.workspace, 'dev', 'svc-alice')!, spec: { ...ws.spec, running: true } });
    }
  });

  it("refuses a share with nobody (exit 1, the server's words), --remove without a person (exit 2), and bob stopping or deleting alice's workspace", async () => {
    const nobody = await alice.den(['share', 'dev', 'carol']);
    expect(nobody.code).to.equal(1);
    expect(nobody.stderr).to.equal('den share: there is no person "carol" in this Den: use their Den user name\n');
    const bare = await alice.den(['share', 'dev', '--remove']);
    expect(bare.code).to.equal(2);
    expect(bare.stderr).to.equal('den share: --remove needs the person whose share ends: den share <workspace> <person> --remove\n(see den share --help)\n');
    const stop = await bob.den(['stop', 'dev']);
    expect(stop.code, 'bob has no dev of his own, and REST stops only in his namespace').to.equal(1);
    expect(api.object<{ spec: { running: boolean } }>(RESOURCES.workspace, 'dev', 'svc-alice')!.spec.running).to.equal(true);
  });

  it('den share dev bob --remove ends it: bob no longer lists it, and a second removal says it is not shared', async () => {
    const removed = await alice.den(['share', 'dev', 'bob', '--remove']);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.equal('workspace dev is no longer shared with bob; their open sessions end within seconds\n');
    await untilSharesCached(den, 'bob', 0);
    const ls = await bob.den(['ls']);
    expect(ls.stdout).to.equal('');
    const again = await alice.den(['share', 'dev', 'bob', '--remove']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal('den share: workspace dev is not shared with bob\n');
    expect((await alice.den(['share', 'dev'])).stderr).to.equal('workspace dev is not shared with anyone (share it with den share dev <person>)\n');
  });
});
