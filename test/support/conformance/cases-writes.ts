// Conformance cases. Writes: create, PUT, the patch types, DELETE and its answers, generateName, dryRun, the status subresource.
import { statusOf } from './harness.js';
import { MERGE, STRATEGIC, cm, containersOf, counted, deployment, pod, putFresh, type Case } from './objects.js';

export const WRITES_CASES: Case[] = [
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
    name: 'a Service whose name starts with a digit: 422 naming the DNS-1035 rule; a namespace gets its kubernetes.io/metadata.name label',
    run: async (s) => {
      const svc = statusOf(await s.request('POST', s.core('services'), { metadata: { name: '1web' }, spec: { ports: [{ port: 80 }] } }));
      const ns = (await s.request('GET', `/api/v1/namespaces/${s.ns}`)).body;
      return { svc, labels: ns.metadata.labels, phase: ns.status.phase, finalizers: ns.spec.finalizers };
    },
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
      const main = await putFresh(s, s.core('resourcequotas/sub'), (live) => ({ ...live, spec: { hard: { 'count/configmaps': '99' } }, status: { hard: { 'count/configmaps': '1' }, used: { 'count/configmaps': '0' } } }));
      const status = await putFresh(s, s.core('resourcequotas/sub'), (live) => ({ ...live, spec: { hard: { 'count/configmaps': '5' } }, status: { hard: { 'count/configmaps': '99' }, used: { 'count/configmaps': '7' } } }), '/status');
      return { made: made.status, main: [main.code, main.body.spec.hard, main.body.status.hard], status: [status.code, status.body.spec.hard, status.body.status.used] };
    },
  },
];
