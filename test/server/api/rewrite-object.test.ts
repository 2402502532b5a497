// rewriteObject (server/api/rewrite-object.ts), the read-change-patch that personal-store.ts and
// port-share.ts write with: conditional on the resourceVersion read, so a write that came
// between answers 409 and the change is made again on what that write stored, three times at most.
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { rewriteObject } from '../../../server/api/rewrite-object.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('rewriteObject: a read-change-patch that a concurrent write cannot undo', () => {
  let api: FakeApiServer;
  let kube: KubeClient;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'svc-demo' }, data: { a: '1' } } as KubeObject);
    kube = api.client();
  });
  afterEach(() => api.close());

  const stored = () => api.object<ConfigMap>(RESOURCES.configMap, 'held', 'svc-demo')!;
  /** A plain read that lets another writer change the object after it, `times` times. */
  function beatenRead(times: number): { read: () => Promise<ConfigMap>; reads: () => number } {
    let reads = 0;
    return {
      reads: () => reads,
      read: async () => {
        const current = await kube.get<ConfigMap>(RESOURCES.configMap, 'held', 'svc-demo');
        if (reads++ < times) await kube.patch(RESOURCES.configMap, 'held', { data: { [`other${reads}`]: 'x' } }, { namespace: 'svc-demo' });
        return current;
      },
    };
  }

  it('patches the change made on what it read and answers the object as stored', async () => {
    const written = await rewriteObject<ConfigMap>(kube, RESOURCES.configMap, 'held', 'svc-demo', (current) => ({ data: { b: String(Number(current.data?.a) + 1) } }));
    expect(stored().data).to.deep.equal({ a: '1', b: '2' });
    expect(written.data).to.deep.equal({ a: '1', b: '2' });
    expect(written.metadata?.resourceVersion).to.equal(stored().metadata?.resourceVersion);
  });

  it('makes the change again on what a write between read and patch stored, keeping that write', async () => {
    const beaten = beatenRead(1);
    const written = await rewriteObject<ConfigMap>(kube, RESOURCES.configMap, 'held', 'svc-demo', () => ({ data: { b: '2' } }), beaten);
    expect(beaten.reads(), 'read again after the 409').to.equal(2);
    expect(written.data).to.deep.equal({ a: '1', other1: 'x', b: '2' });
    expect(stored().data).to.deep.equal({ a: '1', other1: 'x', b: '2' });
  });

  it('gives up with the 409 after three attempts all beaten by another writer, writing nothing of its own', async () => {
    const beaten = beatenRead(Infinity);
    const err = await rewriteObject<ConfigMap>(kube, RESOURCES.configMap, 'held', 'svc-demo', () => ({ data: { b: '2' } }), beaten).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(KubeApiError);
    expect((err as KubeApiError).status).to.equal(409);
    expect(beaten.reads()).to.equal(3);
    expect(stored().data).to.not.have.property('b');
  });
});
