// The fake API server checked against the truth: every case sends the same requests to the fake
// and to the run's real kube-apiserver 1.25 and expects the same answers, normalised only where
// two servers legitimately differ (uids, timestamps, resourceVersions' values, the namespace's
// random name). A difference is a bug of the fake, or of a case that asks what the fake does not model.
import { expect } from 'chai';
import { FakeApiServer } from './fake-apiserver.js';
import { CASES, GADGET_CRD } from './conformance/cases.js';
import { Side } from './conformance/harness.js';
import { sharedRealKube } from './real-kube/shared.js';

describe('the fake API server answers as the real kube-apiserver does', function () {
  this.timeout(180_000);
  let api: FakeApiServer;
  let fake: Side;
  let real: Side;

  before(async () => {
    const shared = await sharedRealKube();
    api = new FakeApiServer();
    await api.start();
    fake = new Side('fake', api.url, api.adminToken);
    real = new Side('real', shared.kube.url, shared.kube.adminToken, shared.kube.ca);
    api.installCrds([GADGET_CRD]);
    await real.installCrd(GADGET_CRD);
    await fake.prepare();
    await real.prepare();
  });

  after(async () => {
    await real?.cleanUp();
    await real?.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${GADGET_CRD.metadata.name}`);
    await api?.close();
  });

  for (const c of CASES) {
    it(c.name, async function () {
      this.timeout(30_000);
      const [onReal, onFake] = await Promise.all([c.run(real), c.run(fake)]);
      expect(fake.normalise(onFake), 'the fake').to.deep.equal(real.normalise(onReal));
    });
  }
});
