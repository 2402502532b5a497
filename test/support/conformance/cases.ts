// The requests the conformance test sends to the fake and to the real API server alike, one
// case per behaviour the fake implements; each answers what a client reads of the answers
// (status codes, Status bodies, objects' fields, watch events, managedFields' owners).
import { owners, sleep, statusOf, type Side } from './harness.js';

export interface Case {
  name: string;
  run(side: Side): Promise<unknown>;
}

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data });
const names = (list: any) => ((list?.items ?? []) as any[]).map((o) => o.metadata.name);
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'a', image: 'busybox', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }, { name: 'b', image: 'nginx' }] },
});
const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'a', image: 'busybox', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }, { name: 'b', image: 'nginx' }] } } },
});
const containersOf = (spec: any) => ((spec?.containers ?? []) as any[]).map((c) => ({ name: c.name, image: c.image, env: c.env }));

/** Polls until the namespace's quota has status.used for every hard key (the quota controller has counted it). */
async function counted(side: Side, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const q = (await side.request('GET', side.core(`resourcequotas/${name}`))).body;
    if (q?.status?.used && Object.keys(q.spec.hard).every((k) => k in q.status.used)) return;
    await sleep(100);
  }
  throw new Error(`${side.name}: quota ${name} never counted`);
}

/** A CRD of the conformance test's own (no webhook of Den's runs on it), installed on both sides before the cases. */
export const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.conformance.example.com' },
  spec: {
    group: 'conformance.example.com',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 1, default: 3 },
                  mode: { type: 'string', enum: ['fast', 'slow'] },
                  tags: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } } },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};
const gadgets = (s: Side) => `/apis/conformance.example.com/v1/namespaces/${s.ns}/gadgets`;
const gadget = (name: string, spec: object) => ({ apiVersion: 'conformance.example.com/v1', kind: 'Gadget', metadata: { name }, spec });

export const CASES: Case[] = [
  {
    name: 'a GET of a missing object: 404 NotFound naming it',
    run: async (s) => statusOf(await s.request('GET', s.core('configmaps/nothing'))),
  },
  {
    name: 'a create: 201 with the data; again: 409 AlreadyExists',
    run: async (s) => {
      const first = await s.request('POST', s.core('configmaps'), cm('dup', { a: '1' }));
      const again = await s.request('POST', s.core('configmaps'), cm('dup', { a: '2' }));
      return { first: [first.code, first.body.data], again: statusOf(again) };
    },
  },
  {
    name: 'a create with an invalid name: 422 Invalid with the validation message',
    run: async (s) => statusOf(await s.request('POST', s.core('configmaps'), cm('Bad_Name'))),
  },
  {
    name: 'a create with a label value it cannot hold: 422 Invalid',
    run: async (s) => statusOf(await s.request('POST', s.core('configmaps'), cm('badlabel', {}, { app: 'x'.repeat(64) }))),
  },
  {
    name: 'a PUT with an old resourceVersion: 409 Conflict; without one: 200',
    run: async (s) => {
      const made = (await s.request('POST', s.core('configmaps'), cm('put', { a: '1' }))).body;
      await s.request('PUT', s.core('configmaps/put'), { ...made, data: { a: '2' } });
      const stale = await s.request('PUT', s.core('configmaps/put'), { ...made, data: { a: '3' } });
      const blind = await s.request('PUT', s.core('configmaps/put'), { ...made, metadata: { ...made.metadata, resourceVersion: undefined }, data: { a: '4' } });
      return { stale: statusOf(stale), blind: [blind.code, blind.body.data] };
    },
  },
  {
    name: 'a merge patch: null removes a key, objects merge, lists are replaced',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('merge', { a: '1', b: '2' }));
      const patched = await s.request('PATCH', s.core('configmaps/merge'), { data: { a: null, c: '3' }, metadata: { labels: { x: 'y' } } }, MERGE);
      return [patched.code, patched.body.data, patched.body.metadata.labels];
    },
  },
  {
    name: 'a JSON patch whose test fails: refused, nothing changed',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('jsonpatch', { a: '1' }));
      const refused = await s.request('PATCH', s.core('configmaps/jsonpatch'), [{ op: 'test', path: '/data/a', value: '2' }, { op: 'replace', path: '/data/a', value: '3' }], 'application/json-patch+json');
      const after = await s.request('GET', s.core('configmaps/jsonpatch'));
      return { code: refused.code, reason: refused.body.reason, data: after.body.data };
    },
  },
  {
    name: 'a strategic merge patch of a pod: containers merge by name (image of one changed, the other kept)',
    run: async (s) => {
      await s.request('POST', s.core('pods'), pod('smp'));
      const patched = await s.request('PATCH', s.core('pods/smp'), { spec: { containers: [{ name: 'b', image: 'nginx:2' }] } }, STRATEGIC);
      return [patched.code, containersOf(patched.body.spec)];
    },
  },
  {
    name: 'a strategic merge patch of a Deployment: env merges by name, $patch: delete removes a container',
    run: async (s) => {
      const base = `/apis/apps/v1/namespaces/${s.ns}/deployments`;
      await s.request('POST', base, deployment('smp'));
      const env = await s.request('PATCH', `${base}/smp`, { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] }] } } } }, STRATEGIC);
      const removed = await s.request('PATCH', `${base}/smp`, { spec: { template: { spec: { containers: [{ name: 'b', $patch: 'delete' }] } } } }, STRATEGIC);
      return { env: [env.code, containersOf(env.body.spec.template.spec)], removed: [removed.code, containersOf(removed.body.spec.template.spec)] };
    },
  },
  {
    name: 'a strategic merge patch of a custom resource: 415',
    run: async (s) => statusOf(await s.request('PATCH', `/apis/den.dev/v1alpha1/namespaces/${s.ns}/workspaces/none`, { spec: {} }, STRATEGIC)),
  },
  {
    name: 'a DELETE whose uid or resourceVersion precondition fails: 409 Conflict, the object kept; one that holds: a Status with the uid',
    run: async (s) => {
      const made = (await s.request('POST', s.core('configmaps'), cm('pre'))).body;
      const uid = await s.request('DELETE', s.core('configmaps/pre'), { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } });
      const rv = await s.request('DELETE', s.core('configmaps/pre'), { preconditions: { resourceVersion: '1' } });
      const kept = (await s.request('GET', s.core('configmaps/pre'))).code;
      const ok = await s.request('DELETE', s.core('configmaps/pre'), { preconditions: { uid: made.metadata.uid, resourceVersion: made.metadata.resourceVersion } });
      return { uid: statusOf(uid), rv: statusOf(rv), kept, ok: { code: ok.code, kind: ok.body.kind, status: ok.body.status, details: ok.body.details } };
    },
  },
  {
    name: 'a DELETE of an object gone at once: a Status naming it and its uid for most kinds, the object for Services, ServiceAccounts and pods',
    run: async (s) => {
      const answers: unknown[] = [];
      const kinds: [string, object][] = [
        ['configmaps', cm('del')],
        ['secrets', { metadata: { name: 'del' } }],
        ['serviceaccounts', { metadata: { name: 'del' } }],
        ['services', { metadata: { name: 'del' }, spec: { ports: [{ port: 80 }] } }],
        ['pods', pod('del')],
      ];
      for (const [plural, body] of kinds) {
        await s.request('POST', s.core(plural), body);
        const gone = (await s.request('DELETE', s.core(`${plural}/del`))).body;
        answers.push({ plural, kind: gone.kind, ...(gone.kind === 'Status' ? { status: gone.status, details: gone.details } : { name: gone.metadata.name }) });
      }
      const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${s.ns}/roles`;
      await s.request('POST', roles, { metadata: { name: 'del' }, rules: [] });
      const role = (await s.request('DELETE', `${roles}/del`, { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } })).body;
      const roleGone = (await s.request('DELETE', `${roles}/del`)).body;
      return { answers, role: [role.code, role.message, role.details], roleGone: roleGone.details };
    },
  },
  {
    name: 'a DELETE of a missing object: 404',
    run: async (s) => statusOf(await s.request('DELETE', s.core('configmaps/none'))),
  },
  {
    name: 'a DELETE of an object with a finalizer: 200 with the object marked, kept until the finalizer goes',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), { ...cm('fin'), metadata: { name: 'fin', finalizers: ['example.com/hold'] } });
      const marked = await s.request('DELETE', s.core('configmaps/fin'));
      const held = await s.request('GET', s.core('configmaps/fin'));
      await s.request('PATCH', s.core('configmaps/fin'), { metadata: { finalizers: null } }, MERGE);
      const gone = await s.request('GET', s.core('configmaps/fin'));
      return { marked: [marked.code, marked.body.kind, Boolean(marked.body.metadata?.deletionTimestamp)], held: held.code, gone: gone.code };
    },
  },
  {
    name: 'a DELETE of a pod on a node: its grace period, the pod kept with a deletionTimestamp; a pod on no node goes at once',
    run: async (s) => {
      await s.request('POST', s.core('pods'), pod('bound', 'node-1'));
      const graceful = await s.request('DELETE', s.core('pods/bound'));
      const still = await s.request('GET', s.core('pods/bound'));
      await s.request('DELETE', s.core('pods/bound'), { gracePeriodSeconds: 0 });
      await s.request('POST', s.core('pods'), pod('free'));
      const free = await s.request('DELETE', s.core('pods/free'));
      const freeAfter = await s.request('GET', s.core('pods/free'));
      return {
        graceful: [graceful.code, graceful.body.kind, graceful.body.metadata.deletionGracePeriodSeconds],
        still: [still.code, Boolean(still.body.metadata?.deletionTimestamp)],
        free: [free.code, free.body.kind, free.body.metadata?.deletionGracePeriodSeconds],
        freeAfter: freeAfter.code,
      };
    },
  },
  {
    name: 'a TokenRequest under 10 minutes: 422 naming spec.expirationSeconds; one of an hour: 201 for an hour',
    run: async (s) => {
      await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'tok' } });
      const short = await s.request('POST', s.core('serviceaccounts/tok/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 60 } });
      const hour = await s.request('POST', s.core('serviceaccounts/tok/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
      return { short: statusOf(short), hour: [hour.code, hour.body.spec.expirationSeconds, typeof hour.body.status.token] };
    },
  },
  {
    name: "a ServiceAccount's token without rights: 403 Forbidden in RBAC's words",
    run: async (s) => {
      await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'nobody' } });
      const token = (await s.request('POST', s.core('serviceaccounts/nobody/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).body.status.token;
      return [statusOf(await s.request('GET', s.core('configmaps'), undefined, undefined, token)), statusOf(await s.request('GET', s.core('secrets/x'), undefined, undefined, token))];
    },
  },
  {
    name: 'an unknown token: 401',
    run: async (s) => statusOf(await s.request('GET', s.core('configmaps'), undefined, undefined, 'not-a-token')),
  },
  {
    name: 'a list by field selector: metadata.name matches; an unsupported field: 400 naming it',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('fs-a'));
      await s.request('POST', s.core('configmaps'), cm('fs-b'));
      const one = await s.request('GET', s.core('configmaps?fieldSelector=metadata.name%3Dfs-b'));
      const bad = await s.request('GET', s.core('configmaps?fieldSelector=data.key%3Dv'));
      return { one: names(one.body), bad: statusOf(bad) };
    },
  },
  {
    name: 'an unsupported field selector on Services, Secrets and a custom resource: 400 in each one\'s words',
    run: async (s) => [
      statusOf(await s.request('GET', s.core('services?fieldSelector=spec.type%3DClusterIP'))),
      statusOf(await s.request('GET', s.core('secrets?fieldSelector=data.x%3Dy'))),
      statusOf(await s.request('GET', `/apis/den.dev/v1alpha1/namespaces/${s.ns}/workspaces?fieldSelector=spec.running%3Dtrue`)),
    ],
  },
  {
    name: 'a list of pods by spec.nodeName and status.phase',
    run: async (s) => {
      await s.request('POST', s.core('pods'), pod('sel-bound', 'node-9'));
      await s.request('POST', s.core('pods'), pod('sel-free'));
      const onNode = await s.request('GET', s.core('pods?fieldSelector=spec.nodeName%3Dnode-9'));
      const notRunning = await s.request('GET', s.core('pods?fieldSelector=status.phase!%3DRunning'));
      await s.request('DELETE', s.core('pods/sel-bound'), { gracePeriodSeconds: 0 });
      return { onNode: names(onNode.body), notRunning: names(notRunning.body).filter((n: string) => n.startsWith('sel-')) };
    },
  },
  {
    name: 'a list by label selector: equality, inequality, set and existence',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('ls-a', {}, { ls: 'y', tier: 'web', env: 'prod' }));
      await s.request('POST', s.core('configmaps'), cm('ls-b', {}, { ls: 'y', tier: 'db', env: 'prod' }));
      await s.request('POST', s.core('configmaps'), cm('ls-c', {}, { ls: 'y', tier: 'web' }));
      const q = (sel: string) => s.request('GET', s.core(`configmaps?labelSelector=${encodeURIComponent(`ls=y,${sel}`)}`)).then((a) => names(a.body));
      return [await q('tier=web'), await q('env=prod,tier!=web'), await q('tier in (db,cache)'), await q('!env'), await q('tier,env notin (prod)')];
    },
  },
  {
    name: 'a list in pages: limit and continue, the remaining count',
    run: async (s) => {
      for (const n of ['pg-a', 'pg-b', 'pg-c']) await s.request('POST', s.core('configmaps'), cm(n, {}, { pages: 'yes' }));
      const first = (await s.request('GET', s.core('configmaps?labelSelector=pages%3Dyes&limit=2'))).body;
      const next = (await s.request('GET', s.core(`configmaps?labelSelector=pages%3Dyes&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`))).body;
      return { first: names(first), remaining: first.metadata.remainingItemCount, next: names(next), more: next.metadata.continue ?? '' };
    },
  },
  {
    name: 'a watch: ADDED, MODIFIED, DELETED in order',
    run: async (s) => {
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dorder'))).body.metadata.resourceVersion;
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=watch%3Dorder&resourceVersion=${rv}`));
      await sleep(200);
      await s.request('POST', s.core('configmaps'), cm('w1', {}, { watch: 'order' }));
      await s.request('POST', s.core('configmaps'), cm('w2', {}, { watch: 'order' }));
      await s.request('PATCH', s.core('configmaps/w1'), { data: { a: '1' } }, MERGE);
      await s.request('DELETE', s.core('configmaps/w2'));
      const events = await w.until(4);
      w.close();
      return events;
    },
  },
  {
    name: 'a watch by label: an object that stops matching arrives as DELETED, one that starts as ADDED',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('wl', {}, { watch: 'label', on: 'yes' }));
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dlabel'))).body.metadata.resourceVersion;
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=${encodeURIComponent('watch=label,on=yes')}&resourceVersion=${rv}`));
      await sleep(200);
      await s.request('PATCH', s.core('configmaps/wl'), { metadata: { labels: { on: 'no' } } }, MERGE);
      await s.request('PATCH', s.core('configmaps/wl'), { metadata: { labels: { on: 'yes' } } }, MERGE);
      const events = await w.until(2);
      w.close();
      return events;
    },
  },
  {
    name: 'a watch from a resourceVersion sees only what came after it',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('wr1', {}, { watch: 'from' }));
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dfrom'))).body.metadata.resourceVersion;
      await s.request('POST', s.core('configmaps'), cm('wr2', {}, { watch: 'from' }));
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=watch%3Dfrom&resourceVersion=${rv}`));
      const events = await w.until(1);
      await sleep(200);
      w.close();
      return w.events;
    },
  },
  {
    name: 'server-side apply: the applier owns its fields; another manager applying one of them: 409 naming the owner; forced: the field moves',
    run: async (s) => {
      const path = s.core('configmaps/ssa?fieldManager=alice');
      const made = await s.request('PATCH', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '1', b: '2' } }, APPLY);
      const clash = await s.request('PATCH', s.core('configmaps/ssa?fieldManager=bob'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '9' } }, APPLY);
      const forced = await s.request('PATCH', s.core('configmaps/ssa?fieldManager=bob&force=true'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '9' } }, APPLY);
      return { made: [made.code, owners(made.body)], clash: statusOf(clash), forced: [forced.code, forced.body.data, owners(forced.body)] };
    },
  },
  {
    name: 'server-side apply: a field left out of the next apply is removed; an Update by another manager is recorded beside it',
    run: async (s) => {
      await s.request('PATCH', s.core('configmaps/ssa2?fieldManager=alice'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa2' }, data: { a: '1', b: '2' } }, APPLY);
      const less = await s.request('PATCH', s.core('configmaps/ssa2?fieldManager=alice'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa2' }, data: { a: '1' } }, APPLY);
      const merged = await s.request('PATCH', s.core('configmaps/ssa2?fieldManager=carol'), { data: { c: '3' } }, MERGE);
      return { less: less.body.data, merged: [merged.body.data, owners(merged.body)] };
    },
  },
  {
    name: 'server-side apply of a Deployment: containers merge by name between two managers, each owning its own item',
    run: async (s) => {
      const base = `/apis/apps/v1/namespaces/${s.ns}/deployments/ssa`;
      const one = await s.request('PATCH', `${base}?fieldManager=alice`, deployment('ssa'), APPLY);
      const two = await s.request('PATCH', `${base}?fieldManager=bob`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'redis' }] } } } }, APPLY);
      const applyOwners = (o: any) => (owners(o) as any[]).filter((e) => e.operation === 'Apply');
      return { one: [one.code, applyOwners(one.body)], two: [two.code, containersOf(two.body.spec.template.spec).map((c) => c.name), applyOwners(two.body)] };
    },
  },
  {
    name: 'two managers applying one field at once: one is stored, the other refused 409, the first keeps it',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('race'));
      const body = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'race' }, data: { k: v } });
      const answers = await Promise.all([s.request('PATCH', s.core('configmaps/race?fieldManager=one'), body('1'), APPLY), s.request('PATCH', s.core('configmaps/race?fieldManager=two'), body('2'), APPLY)]);
      const after = (await s.request('GET', s.core('configmaps/race'))).body;
      const winner = answers.findIndex((a) => a.code === 200);
      const owner = ((after.metadata.managedFields ?? []) as any[]).find((e) => e.fieldsV1?.['f:data']?.['f:k'])?.manager;
      return { codes: answers.map((a) => a.code).sort(), owner: owner === ['one', 'two'][winner], value: after.data.k === String(winner + 1) };
    },
  },
  {
    name: 'an apply without fieldManager: refused',
    run: async (s) => statusOf(await s.request('PATCH', s.core('configmaps/nofm'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nofm' } }, APPLY)).code,
  },
  {
    name: 'a ResourceQuota: counted by the controller, then a create over it refused 403 in the quota plugin\'s words',
    run: async (s) => {
      await s.request('POST', s.core('resourcequotas'), { metadata: { name: 'q' }, spec: { hard: { 'count/secrets': '1' } } });
      await counted(s, 'q');
      const first = await s.request('POST', s.core('secrets'), { metadata: { name: 's1' } });
      const second = await s.request('POST', s.core('secrets'), { metadata: { name: 's2' } });
      const used = (await s.request('GET', s.core('resourcequotas/q'))).body.status.used;
      return { first: first.code, second: statusOf(second), used };
    },
  },
  {
    name: "a ResourceQuota whose status names a hard limit without its use: a create it limits is refused 'status unknown for quota'",
    run: async (s) => {
      await s.request('POST', s.core('resourcequotas'), { metadata: { name: 'unknown' }, spec: { hard: { 'count/services': '5' } } });
      await counted(s, 'unknown');
      const q = (await s.request('GET', s.core('resourcequotas/unknown'))).body;
      const put = await s.request('PUT', s.core('resourcequotas/unknown/status'), { ...q, status: { hard: { 'count/services': '5' } } });
      await sleep(1500); // the admission plugin reads quotas from the API server's informer
      const refused = await s.request('POST', s.core('services'), { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } });
      await s.request('DELETE', s.core('resourcequotas/unknown'));
      return { put: put.code, refused: statusOf(refused) };
    },
  },
  {
    name: 'a namespace deleted: Terminating at once, and a create in it refused 403',
    run: async (s) => {
      const ns = `${s.ns}-gone`;
      await s.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      await s.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { ...cm('keep'), metadata: { name: 'keep', finalizers: ['example.com/hold'] } });
      const deleted = await s.request('DELETE', `/api/v1/namespaces/${ns}`);
      const refused = await s.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('late'));
      await s.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/keep`, { metadata: { finalizers: null } }, MERGE);
      return { deleted: [deleted.code, deleted.body.status?.phase], refused: statusOf(refused) };
    },
  },
  {
    name: 'a create with generateName: a name of the prefix and five characters',
    run: async (s) => {
      const made = await s.request('POST', s.core('configmaps'), { metadata: { generateName: 'gen-' } });
      return [made.code, /^gen-[a-z0-9]{5}$/.test(made.body.metadata.name)];
    },
  },
  {
    name: 'a create with dryRun=All: 201 with the object, nothing stored',
    run: async (s) => {
      const dry = await s.request('POST', s.core('configmaps?dryRun=All'), cm('dry', { a: '1' }));
      const after = await s.request('GET', s.core('configmaps/dry'));
      return { dry: [dry.code, dry.body.metadata.name, dry.body.data], after: after.code };
    },
  },
  {
    name: 'the status subresource: a PUT of the object leaves status alone, a PUT of status leaves spec alone',
    run: async (s) => {
      const made = (await s.request('POST', s.core('resourcequotas'), { metadata: { name: 'sub' }, spec: { hard: { 'count/configmaps': '100' } } })).body;
      await counted(s, 'sub');
      const live = (await s.request('GET', s.core('resourcequotas/sub'))).body;
      const main = await s.request('PUT', s.core('resourcequotas/sub'), { ...live, spec: { hard: { 'count/configmaps': '99' } }, status: { hard: { 'count/configmaps': '1' }, used: { 'count/configmaps': '0' } } });
      const again = (await s.request('GET', s.core('resourcequotas/sub'))).body;
      const status = await s.request('PUT', s.core('resourcequotas/sub/status'), { ...again, spec: { hard: { 'count/configmaps': '5' } }, status: { hard: { 'count/configmaps': '99' }, used: { 'count/configmaps': '7' } } });
      return { made: made.status, main: [main.code, main.body.spec.hard, main.body.status.hard], status: [status.code, status.body.spec.hard, status.body.status.used] };
    },
  },
  {
    name: 'a SelfSubjectAccessReview: allowed for the administrator, denied for a ServiceAccount without rights',
    run: async (s) => {
      const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'secrets', namespace: s.ns } } };
      const admin = await s.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review);
      await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'reviewer' } });
      const token = (await s.request('POST', s.core('serviceaccounts/reviewer/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).body.status.token;
      const sa = await s.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review, undefined, token);
      return { admin: [admin.code, admin.body.status.allowed], sa: [sa.code, sa.body.status.allowed] };
    },
  },
  {
    name: 'RBAC: a ServiceAccount that may write Roles but not read Secrets cannot grant reading them (403 in the escalation check\'s words); a binding to a missing Role: 404',
    run: async (s) => {
      const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${s.ns}`;
      await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'granter' } });
      await s.request('POST', `${rbac}/roles`, { metadata: { name: 'role-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get'] }] });
      await s.request('POST', `${rbac}/rolebindings`, { metadata: { name: 'granter' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-writer' }, subjects: [{ kind: 'ServiceAccount', name: 'granter', namespace: s.ns }] });
      await sleep(500);
      const token = (await s.request('POST', s.core('serviceaccounts/granter/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).body.status.token;
      const role = await s.request('POST', `${rbac}/roles`, { metadata: { name: 'secrets' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }, undefined, token);
      const binding = await s.request('POST', `${rbac}/rolebindings`, { metadata: { name: 'dangling' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nowhere' }, subjects: [{ kind: 'ServiceAccount', name: 'granter', namespace: s.ns }] }, undefined, token);
      return { role: statusOf(role), binding: statusOf(binding) };
    },
  },
  {
    name: "a custom resource: the schema's default filled in, an unknown field pruned, status left out of a create",
    run: async (s) => {
      const made = await s.request('POST', gadgets(s), { ...gadget('g1', { mode: 'fast', extra: 'x' }), status: { phase: 'Ready' } });
      return [made.code, made.body.spec, made.body.status ?? null, made.body.metadata.generation];
    },
  },
  {
    name: "a custom resource outside its schema: 422 Invalid naming each field in the schema's words",
    run: async (s) => [
      statusOf(await s.request('POST', gadgets(s), gadget('g2', { size: 0 }))),
      statusOf(await s.request('POST', gadgets(s), gadget('g3', { mode: 'warp', size: 'big' }))),
    ],
  },
  {
    name: 'a custom resource: generation follows spec changes, not status writes; an unsupported field selector is 400',
    run: async (s) => {
      await s.request('POST', gadgets(s), gadget('g4', { size: 2 }));
      const spec = await s.request('PATCH', `${gadgets(s)}/g4`, { spec: { size: 5 } }, MERGE);
      const status = await s.request('PATCH', `${gadgets(s)}/g4/status`, { status: { phase: 'Ready' } }, MERGE);
      const select = await s.request('GET', `${gadgets(s)}?fieldSelector=spec.size%3D5`);
      return { spec: [spec.code, spec.body.metadata.generation], status: [status.code, status.body.metadata.generation, status.body.status], select: statusOf(select) };
    },
  },
  {
    name: 'server-side apply of a custom resource: a list-map merges by its key between two managers; a clash on one item conflicts',
    run: async (s) => {
      const one = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=alice`, gadget('g5', { tags: [{ name: 'a', value: '1' }] }), APPLY);
      const two = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=bob`, gadget('g5', { tags: [{ name: 'b', value: '2' }] }), APPLY);
      const clash = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=bob`, gadget('g5', { tags: [{ name: 'a', value: '9' }, { name: 'b', value: '2' }] }), APPLY);
      const applyOwners = (o: any) => (owners(o) as any[]).filter((e) => e.operation === 'Apply');
      return { one: one.code, two: [two.code, two.body.spec, applyOwners(two.body)], clash: statusOf(clash) };
    },
  },
  {
    name: 'a LimitRange: its defaults filled into a pod, a pod over its max refused 403 in LimitRanger\'s words',
    run: async (s) => {
      await s.request('POST', s.core('limitranges'), { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '64Mi' }, max: { cpu: '1' } }] } });
      const made = await s.request('POST', s.core('pods'), pod('limited'));
      const over = await s.request('POST', s.core('pods'), { ...pod('over'), spec: { containers: [{ name: 'a', image: 'busybox', resources: { limits: { cpu: '2' } } }] } });
      await s.request('DELETE', s.core('limitranges/limits'));
      await s.request('DELETE', s.core('pods/limited'));
      return { made: [made.code, made.body.spec.containers.map((c: any) => c.resources), made.body.metadata.annotations], over: statusOf(over) };
    },
  },
  {
    name: "a compute ResourceQuota: a pod naming no limits refused 403 'must specify'",
    run: async (s) => {
      const ns = `${s.ns}-compute`;
      await s.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      await s.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'compute' }, spec: { hard: { 'limits.cpu': '2', 'limits.memory': '1Gi' } } });
      for (let i = 0; i < 100; i++) {
        const q = (await s.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/compute`)).body;
        if (q.status?.used) break;
        await sleep(100);
      }
      const refused = await s.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('bare'));
      await s.request('DELETE', `/api/v1/namespaces/${ns}`);
      return statusOf(refused);
    },
  },
  {
    name: 'garbage collection: a dependent whose owner is deleted goes too',
    run: async (s) => {
      const owner = (await s.request('POST', s.core('configmaps'), cm('owner'))).body;
      await s.request('POST', s.core('configmaps'), { ...cm('dependent'), metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } });
      await s.request('DELETE', s.core('configmaps/owner'));
      for (let i = 0; i < 200; i++) {
        if ((await s.request('GET', s.core('configmaps/dependent'))).code === 404) return 'collected';
        await sleep(100);
      }
      return 'kept';
    },
  },
  {
    name: 'a namespace deleted goes once its contents are gone, finalizer last',
    run: async (s) => {
      const ns = `${s.ns}-emptied`;
      await s.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      await s.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('inside'));
      await s.request('DELETE', `/api/v1/namespaces/${ns}`);
      for (let i = 0; i < 300; i++) {
        const got = await s.request('GET', `/api/v1/namespaces/${ns}`);
        if (got.code === 404) return 'gone';
        await sleep(100);
      }
      return 'stuck';
    },
  },
  {
    name: 'a namespaced object in a namespace that does not exist: 404 naming the namespace',
    run: async (s) => statusOf(await s.request('POST', '/api/v1/namespaces/conf-missing-ns/configmaps', cm('x'))),
  },
];
