import { expect } from 'chai';
import { denCrds } from '../../contract/index.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { refusal } from './fake-apiserver/refusal.js';
import { fixtureLines } from './fixtures.js';
import { rawWatch } from './fake-apiserver/stream.js';

const cm = (name: string) => ({ metadata: { name } });


describe('the fake API server, lists and watches', () => {
  let api: FakeApiServer;
  afterEach(() => api.close());
  async function start(opts: ConstructorParameters<typeof FakeApiServer>[0] = {}) {
    api = new FakeApiServer(opts);
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } });
  }

  for (const watchLagMs of [0, 50]) {
    it(`sends a write its response before any watch sees the event (watch lag ${watchLagMs} ms)`, async () => {
      await start({ watchLagMs });
      const admin = api.client();
      const order: string[] = [];
      const watch = await rawWatch(admin, resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' }), { resourceVersion: String(api.resourceVersion) });
      const added = watch.next((e) => e.type === 'ADDED').then(() => order.push('event'));
      const res = await admin.send({ method: 'POST', path: resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' }), body: cm('a') });
      order.push(`response ${res.statusCode}`);
      res.resume();
      await added;
      expect(order).to.deep.equal(['response 201', 'event']);
      watch.close();
    });
  }

  it('holds the events of later writes for a watch lag set while it runs', async () => {
    await start();
    const admin = api.client();
    const watch = await rawWatch(admin, resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' }), { resourceVersion: String(api.resourceVersion) });
    await admin.create(RESOURCES.configMap, cm('before'), 'svc-demo');
    await watch.next((e) => e.type === 'ADDED' && e.object.metadata.name === 'before');
    api.setWatchLag(400);
    const answered = Date.now();
    await admin.create(RESOURCES.configMap, cm('after'), 'svc-demo');
    await watch.next((e) => e.type === 'ADDED' && e.object.metadata.name === 'after');
    expect(Date.now() - answered).to.be.at.least(400);
    watch.close();
  });

  it('answers limit and continue with pages under the first page\'s resourceVersion, and refuses a continue key it did not give', async () => {
    await start();
    const admin = api.client();
    for (const name of ['c', 'a', 'e', 'b', 'd']) await admin.create(RESOURCES.configMap, cm(name), 'svc-demo');
    const first = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo', limit: 2 });
    expect(first.items.map((o) => o.metadata?.name)).to.deep.equal(['a', 'b']);
    expect(first.metadata).to.include({ remainingItemCount: 3 });
    await admin.create(RESOURCES.configMap, cm('f'), 'svc-demo');
    const second = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo', limit: 2, continue: first.metadata.continue });
    const third = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo', limit: 2, continue: second.metadata.continue });
    expect([second, third].map((page) => page.items.map((o) => o.metadata?.name))).to.deep.equal([['c', 'd'], ['e', 'f']]);
    expect([second, third].map((page) => page.metadata.resourceVersion)).to.deep.equal([first.metadata.resourceVersion, first.metadata.resourceVersion]);
    expect(third.metadata.continue).to.equal(undefined);
    const whole = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo' });
    expect(whole.items).to.have.length(6);
    expect(whole.metadata.continue).to.equal(undefined);
    const refused = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo', limit: 2, continue: 'not-a-key' }).catch((err: unknown) => err);
    expect(refused).to.have.property('status', 400);
  });

  it('ends the initial events with a BOOKMARK marked k8s.io/initial-events-end, in the recorded shape', async () => {
    await start();
    const admin = api.client();
    await admin.create(RESOURCES.configMap, cm('a'), 'svc-demo');
    const listed = await admin.list(RESOURCES.configMap, { namespace: 'svc-demo' });
    const watch = await rawWatch(admin, resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' }), { sendInitialEvents: 'true', allowWatchBookmarks: 'true', resourceVersionMatch: 'NotOlderThan' });
    const bookmark = await watch.next((e) => e.type === 'BOOKMARK');
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`)).to.deep.equal(['ADDED a', 'BOOKMARK ']);
    expect(bookmark.object).to.deep.equal({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: listed.metadata.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } });
    const recorded = fixtureLines('watch-stream-fixtures.jsonl');
    expect(Object.keys(watch.events[0]!)).to.deep.equal(Object.keys(recorded[0]));
    watch.close();
  });

  it('refuses sendInitialEvents without bookmarks or without resourceVersionMatch=NotOlderThan, as kube-apiserver validates them', async () => {
    await start();
    const path = resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' });
    const noMatch = await refusal(api.client().request({ path, query: { watch: true, sendInitialEvents: true, allowWatchBookmarks: true } }));
    expect(noMatch.status).to.equal(422);
    expect(noMatch.message).to.equal('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    const noBookmarks = await refusal(api.client().request({ path, query: { watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } }));
    expect(noBookmarks.message).to.equal('ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Required value: sendInitialEvents requires setting allowWatchBookmarks to true');
  });

  it('sends periodic BOOKMARKs only to watches that allow them', async () => {
    await start({ bookmarkIntervalMs: 10 });
    const admin = api.client();
    const path = resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' });
    const from = { resourceVersion: String(api.resourceVersion) };
    const plain = await rawWatch(admin, path, from);
    const bookmarked = await rawWatch(admin, path, { ...from, allowWatchBookmarks: 'true' });
    await bookmarked.next((e) => e.type === 'BOOKMARK');
    await bookmarked.next((e) => e.type === 'BOOKMARK');
    await admin.create(RESOURCES.configMap, cm('a'), 'svc-demo');
    await Promise.all([plain.next((e) => e.type === 'ADDED'), bookmarked.next((e) => e.type === 'ADDED')]);
    expect(plain.events.map((e) => e.type)).to.deep.equal(['ADDED']);
    expect(bookmarked.events[0]).to.deep.equal({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: from.resourceVersion } } });
    plain.close();
    bookmarked.close();
  });

  describe('field selectors', () => {
    beforeEach(() => start());
    const cases: [string, string, string | undefined][] = [
      ['pods', 'spec.nodeName=node-1', undefined],
      ['pods', 'status.phase!=Running,spec.serviceAccountName=default', undefined],
      ['pods', 'spec.containers=x', 'spec.containers'],
      ['configmaps', 'metadata.name=a', undefined],
      ['configmaps', 'data.key=v', 'data.key'],
      ['secrets', 'type=kubernetes.io/dockerconfigjson', undefined],
      ['events', 'involvedObject.name=dev,reason=Pulled,source=kubelet', undefined],
      ['services', 'spec.type=ClusterIP', 'spec.type'],
      ['namespaces', 'status.phase=Active', undefined],
      ['workspaces', 'spec.running=true', 'spec.running'],
    ];
    for (const [plural, selector, unsupported] of cases) {
      it(`${unsupported ? 'refuses' : 'accepts'} ${selector} on ${plural}${unsupported ? ' with 400' : ''}, in a list and in a watch`, async () => {
        api.installCrds(denCrds().map((crd) => ({ ...crd })));
        const t = Object.values(RESOURCES).find((r) => r.plural === plural)!;
        const path = resourcePath(t, { namespace: t.namespaced ? 'svc-demo' : undefined });
        for (const query of [{ fieldSelector: selector }, { fieldSelector: selector, watch: true, resourceVersion: String(api.resourceVersion) }]) {
          const answer = await api.client().send({ path, query });
          answer.destroy();
          if (!unsupported) {
            expect(answer.statusCode).to.equal(200);
            continue;
          }
          const err = await refusal(api.client().request({ path, query }));
          expect(err.status).to.equal(400);
          // As kube-apiserver 1.25: kinds with field labels of their own (and custom resources) say so; the rest answer the generic conversion's words.
          const own = plural === 'pods' || plural === 'workspaces';
          const message = own ? `field label not supported: ${unsupported}` : `"${unsupported}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
          expect(err.body).to.deep.include({ reason: 'BadRequest', message });
        }
      });
    }

    it('filters secrets by type and namespaces by phase', async () => {
      const admin = api.client();
      await admin.create(RESOURCES.secret, { metadata: { name: 'pull' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') } } as any, 'svc-demo');
      await admin.create(RESOURCES.secret, { metadata: { name: 'plain' }, data: {} } as any, 'svc-demo');
      const pulls = await admin.list(RESOURCES.secret, { namespace: 'svc-demo', fieldSelector: 'type=kubernetes.io/dockerconfigjson' });
      expect(pulls.items.map((s) => s.metadata?.name)).to.deep.equal(['pull']);
      await admin.create(RESOURCES.configMap, cm('keep'), 'svc-demo');
      await admin.delete(RESOURCES.namespace, 'svc-demo');
      const active = await admin.list(RESOURCES.namespace, { fieldSelector: 'status.phase=Active' });
      expect(active.items.map((n) => n.metadata?.name)).to.not.include('svc-demo');
    });

    it('accepts a CRD field listed in its selectableFields', async () => {
      const crds = denCrds().map((crd: any): KubeObject => (crd.spec.names.plural === 'workspaces' ? { ...crd, spec: { ...crd.spec, versions: crd.spec.versions.map((v: any) => ({ ...v, selectableFields: [{ jsonPath: '.spec.running' }] })) } } : crd));
      api.installCrds(crds);
      const list = await api.client().list(RESOURCES.workspace, { namespace: 'svc-demo', fieldSelector: 'spec.running=true' });
      expect(list.items).to.deep.equal([]);
    });
  });
});
