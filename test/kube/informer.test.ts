import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { KubeClient, type KubeObject } from '../../kube/client.js';
import { applyWatchEvent, Informer, objectKey, replaceStore, stripManagedFields, type CacheEvent } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { staticConnection } from '../../kube/connection.js';

const cm = (name: string, rv: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv }, data });

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('informer cache functions', () => {
  it('keys namespaced objects as namespace/name and cluster objects as name', () => {
    expect(objectKey(cm('a', '1'))).to.equal('ns/a');
    expect(objectKey({ metadata: { name: 'u' } })).to.equal('u');
  });

  it('turns watch events into cache changes and ignores repeats of the same resourceVersion', () => {
    const store = new Map<string, KubeObject>();
    expect(applyWatchEvent(store, { type: 'ADDED', object: cm('a', '1') })?.type).to.equal('ADDED');
    expect(applyWatchEvent(store, { type: 'MODIFIED', object: cm('a', '1') })).to.equal(undefined);
    const modified = applyWatchEvent(store, { type: 'MODIFIED', object: cm('a', '2') });
    expect(modified?.type).to.equal('MODIFIED');
    expect(modified?.old?.metadata?.resourceVersion).to.equal('1');
    expect(applyWatchEvent(store, { type: 'BOOKMARK', object: cm('', '3') })).to.equal(undefined);
    expect(applyWatchEvent(store, { type: 'DELETED', object: cm('a', '4') })?.type).to.equal('DELETED');
    expect(applyWatchEvent(store, { type: 'DELETED', object: cm('a', '4') })).to.equal(undefined);
    expect(store.size).to.equal(0);
  });

  it('reconciles a relist with the cache: additions, changes and objects gone while not watching', () => {
    const store = new Map<string, KubeObject>([['ns/a', cm('a', '1')], ['ns/b', cm('b', '1')]]);
    const events = replaceStore(store, [cm('a', '2'), cm('c', '1')]);
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).to.deep.equal(['MODIFIED a', 'ADDED c', 'DELETED b']);
    expect([...store.keys()]).to.deep.equal(['ns/a', 'ns/c']);
  });
});

describe('Informer', () => {
  let api: FakeApiServer;
  let stop: AbortController;

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    stop = new AbortController();
  });
  afterEach(async () => {
    stop.abort();
    await api.close();
  });

  it('lists, then follows changes through the watch', async () => {
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first', namespace: 'svc-system' } });
    const events: CacheEvent<KubeObject>[] = [];
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system' }).on((e) => events.push(e));
    void informer.run(stop.signal);
    await informer.synced;
    expect(informer.get('first', 'svc-system')?.kind).to.equal('ConfigMap');
    await api.client().create(RESOURCES.configMap, { metadata: { name: 'second' } }, 'svc-system');
    await until(() => informer.get('second', 'svc-system') !== undefined);
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).to.deep.equal(['ADDED first', 'ADDED second']);
  });

  it('caches objects without managedFields, listed or watched, and with a transform only what it keeps', async () => {
    const admin = api.client();
    await admin.apply(RESOURCES.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed', namespace: 'svc-system' }, data: { a: '1' } }, 'den-manager');
    expect(api.object<KubeObject>(RESOURCES.configMap, 'listed', 'svc-system')!.metadata!.managedFields).to.have.length(1);
    const plain = new Informer(admin, RESOURCES.configMap, { namespace: 'svc-system' });
    const keysOnly = new Informer(admin, RESOURCES.configMap, { namespace: 'svc-system', transform: (o) => ({ ...stripManagedFields(o), data: Object.keys((o.data as object) ?? {}) }) });
    void plain.run(stop.signal);
    void keysOnly.run(stop.signal);
    await Promise.all([plain.synced, keysOnly.synced]);
    await admin.apply(RESOURCES.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', namespace: 'svc-system' }, data: { b: '2' } }, 'den-manager');
    await until(() => plain.get('watched', 'svc-system') !== undefined && keysOnly.get('watched', 'svc-system') !== undefined);
    for (const name of ['listed', 'watched']) {
      expect(plain.get(name, 'svc-system')!.metadata).to.not.have.property('managedFields');
      expect(plain.get(name, 'svc-system')!.metadata!.resourceVersion).to.equal(api.object<KubeObject>(RESOURCES.configMap, name, 'svc-system')!.metadata!.resourceVersion);
    }
    expect(plain.get('watched', 'svc-system')!.data).to.deep.equal({ b: '2' });
    expect(keysOnly.get('listed', 'svc-system')!.data).to.deep.equal(['a']);
    expect(keysOnly.get('watched', 'svc-system')!.data).to.deep.equal(['b']);
  });

  it('lists in pages, transforming each page as it comes, and then watches from the list\'s resourceVersion', async () => {
    for (let i = 0; i < 7; i++) api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}`, namespace: 'svc-system' }, data: { big: 'x'.repeat(100) } });
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system', pageSize: 3, transform: (o) => ({ ...stripManagedFields(o), data: undefined }) });
    void informer.run(stop.signal);
    await informer.synced;
    const lists = api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-system/configmaps' && !r.query.includes('watch'));
    expect(lists.map((r) => new URLSearchParams(r.query).get('limit'))).to.deep.equal(['3', '3', '3']);
    expect(lists.map((r) => new URLSearchParams(r.query).has('continue'))).to.deep.equal([false, true, true]);
    expect([...informer.store.keys()].sort()).to.deep.equal(['cm0', 'cm1', 'cm2', 'cm3', 'cm4', 'cm5', 'cm6'].map((n) => `svc-system/${n}`));
    expect(informer.get('cm6', 'svc-system')!.data).to.equal(undefined);
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: 'svc-system' } });
    await until(() => informer.get('after', 'svc-system') !== undefined);
    expect(informer.store.size).to.equal(8);
  });

  it('keeps one copy of a string that every cached object carries, though each came parsed from its own answer', async () => {
    const script = 'kill -TERM -1 2>/dev/null\n'.repeat(400);
    for (let i = 0; i < 500; i++) api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}`, namespace: 'svc-system' }, data: { stop: script } });
    collect();
    const before = process.memoryUsage().heapUsed;
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system', pageSize: 50 });
    void informer.run(stop.signal);
    await informer.synced;
    collect();
    const held = process.memoryUsage().heapUsed - before;
    expect(informer.store.size).to.equal(500);
    expect(informer.get('cm499', 'svc-system')!.data).to.deep.equal({ stop: script });
    // 500 copies would be 5 MiB; one copy and 500 small objects are a fraction of it.
    expect(held, `${(held / 1048576).toFixed(1)} MiB held`).to.be.below(500 * script.length * 0.4);
  });

  it('keeps the equal parts of listed and watched objects once, frozen, with each object as the API server has it', async () => {
    const data = (i: number) => ({ shared: 'same for all', ...Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`key${k}`, `value ${k}`])), own: `cm${i}` });
    const labels = { app: 'den', tier: 'dev' };
    for (let i = 0; i < 3; i++) api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}`, namespace: 'svc-system', labels }, data: data(i) });
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system' });
    void informer.run(stop.signal);
    await informer.synced;
    const [first, second] = [informer.get('cm0', 'svc-system')!, informer.get('cm1', 'svc-system')!];
    expect(second.metadata!.labels).to.equal(first.metadata!.labels);
    expect(second.data).to.not.equal(first.data);
    expect(second.data).to.deep.equal(data(1));
    await api.client().patch(RESOURCES.configMap, 'cm1', { data: { own: 'changed' } }, { namespace: 'svc-system', type: 'merge' });
    await until(() => (informer.get('cm1', 'svc-system')!.data as Record<string, string>).own === 'changed');
    const changed = informer.get('cm1', 'svc-system')!;
    expect(changed.data).to.deep.equal({ ...data(1), own: 'changed' });
    expect(changed.metadata!.labels).to.equal(second.metadata!.labels);
    expect(api.object<KubeObject>(RESOURCES.configMap, 'cm1', 'svc-system')!.metadata!.labels).to.deep.equal(labels);
    expect(() => {
      (changed.metadata!.labels as Record<string, string>).app = 'other';
    }).to.throw(TypeError);
    expect(informer.get('cm0', 'svc-system')!.metadata!.labels).to.deep.equal(labels);
  });

  it('does not prepare again what a relist finds at the resourceVersion the cache holds', async () => {
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same', namespace: 'svc-system' }, data: { a: '1' } });
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'changed', namespace: 'svc-system' }, data: { a: '1' } });
    const prepared: string[] = [];
    const transform = (o: KubeObject) => (prepared.push(o.metadata!.name!), stripManagedFields(o));
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system', transform });
    void informer.run(stop.signal);
    await informer.synced;
    const same = informer.get('same', 'svc-system');
    await api.client().replace(RESOURCES.configMap, { ...api.object<KubeObject>(RESOURCES.configMap, 'changed', 'svc-system')!, data: { a: '2' } });
    await until(() => (informer.get('changed', 'svc-system')!.data as Record<string, string>).a === '2');
    expect(prepared.sort()).to.deep.equal(['changed', 'changed', 'same']);
    prepared.length = 0;
    await informer.relist();
    expect(prepared).to.deep.equal([]);
    expect(informer.get('same', 'svc-system')).to.equal(same);
    expect(informer.get('changed', 'svc-system')!.data).to.deep.equal({ a: '2' });
  });

  it('relists after 410 Gone and catches up on what it missed', async () => {
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system', backoffMs: 10 });
    void informer.run(stop.signal);
    await informer.synced;
    api.dropWatches();
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'missed', namespace: 'svc-system' } });
    api.compact();
    await until(() => informer.get('missed', 'svc-system') !== undefined);
    const relists = api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-system/configmaps' && !r.query.includes('watch'));
    expect(relists.length).to.be.greaterThanOrEqual(2);
  });

  it('keeps retrying with backoff when the API server refuses, and reports the error', async () => {
    const errors: unknown[] = [];
    api.failNext('GET', /configmaps/, 500, { message: 'etcd is sad' }, 2);
    const informer = new Informer(api.client(), RESOURCES.configMap, { namespace: 'svc-system', backoffMs: 5, onError: (e) => errors.push(e) });
    void informer.run(stop.signal);
    await informer.synced;
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['etcd is sad', 'etcd is sad']);
  });

  it('stops at once when its signal aborts while a list is unanswered, instead of waiting out the request timeout', async () => {
    let listed!: (req: IncomingMessage) => void;
    const listArrived = new Promise<IncomingMessage>((ok) => (listed = ok));
    const silent = createServer((req) => listed(req)); // never answers
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    try {
      const client = new KubeClient(staticConnection(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, 't'));
      const informer = new Informer(client, RESOURCES.configMap, { namespace: 'svc-system' });
      const own = new AbortController();
      const running = informer.run(own.signal);
      const req = await listArrived;
      const closed = new Promise((ok) => req.socket.once('close', ok));
      const started = Date.now();
      own.abort();
      await running;
      expect(Date.now() - started, 'ms from abort to stop').to.be.below(2_000);
      await closed; // the request was abandoned on the wire, not left open
      expect(informer.list()).to.deep.equal([]);
    } finally {
      silent.closeAllConnections();
      await new Promise((ok) => silent.close(ok));
    }
  });
});
