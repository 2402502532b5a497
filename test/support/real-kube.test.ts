// The harness's real Kubernetes: found or named in one line, started on loopback, shared by the
// run, and Den installed on it as the chart installs it.
import { expect } from 'chai';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { kubeBinaries, realClient, RealKubeMissing } from './real-kube/cluster.js';
import { sharedRealKube, type SharedRealKube } from './real-kube/shared.js';

describe('the real Kubernetes the tests run', function () {
  this.timeout(180_000);
  let shared: SharedRealKube;

  before(async () => {
    shared = await sharedRealKube();
  });

  it('names the missing etcd and how to install it, in one line', () => {
    expect(() => kubeBinaries({ PATH: '/nonexistent', DEN_KAPI: '/bin/true' }))
      .to.throw(RealKubeMissing)
      .with.property('message')
      .that.matches(/etcd is missing: install Debian's etcd-server \(apt-get install --no-install-recommends etcd-server\)/)
      .and.not.match(/\n/);
  });

  it('names a missing kapi and where it is looked for', () => {
    expect(() => kubeBinaries({ DEN_ETCD: '/bin/true', DEN_KAPI: '/nonexistent/kapi' }))
      .to.throw(RealKubeMissing, '/nonexistent/kapi is missing: lay ../shared beside the checkout');
  });

  it('is a kube-apiserver of 1.25 that refuses a token it did not issue', async () => {
    const version = await realClient(shared.kube).request<{ major: string; minor: string; gitVersion: string }>({ path: '/version' });
    expect(version.gitVersion).to.match(/^v1\.25\./);
    const refused = await realClient(shared.kube, 'not-a-token').list(RESOURCES.namespace).catch((err) => err);
    expect(refused).to.be.instanceOf(KubeApiError);
    expect((refused as KubeApiError).status).to.equal(401);
  });

  it('holds Den as installed: the CRDs served, both webhooks registered by URL with a CA bundle, the manager Lease held', async () => {
    const admin = realClient(shared.kube);
    const crds = await admin.list<any>(RESOURCES.customResourceDefinition);
    expect(crds.items.map((c) => c.metadata.name)).to.include.members(['workspaces.den.dev', 'userspaces.den.dev', 'workspaceimages.den.dev', 'imageregistries.den.dev']);
    for (const r of [RESOURCES.mutatingWebhookConfiguration, RESOURCES.validatingWebhookConfiguration]) {
      const config = await admin.get<any>(r, 'den-webhooks');
      for (const hook of config.webhooks) {
        expect(hook.clientConfig.url, hook.name).to.match(/^https:\/\/127\.0\.0\.1:\d+\//);
        expect(hook.clientConfig.caBundle, hook.name).to.be.a('string').and.not.equal('');
      }
    }
    const lease = await admin.get<any>(RESOURCES.lease, 'den-manager', 'svc-system');
    expect(lease.spec.holderIdentity).to.be.a('string').and.not.equal('');
  });

  it('answers each process\'s readiness: two replicas of every role', async () => {
    for (const role of ['manager', 'server', 'gateway'] as const) {
      expect(shared.den.health[role]).to.have.length(2);
      for (const url of shared.den.health[role]) expect((await fetch(`${url}/readyz`)).status, url).to.equal(200);
    }
  });
});
