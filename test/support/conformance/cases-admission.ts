// Conformance cases. What admits, authorizes and cleans up: tokens, RBAC, quotas, LimitRange, CRD schemas, namespaces, garbage collection.
import { sleep, statusOf } from './harness.js';
import { MERGE, cm, counted, gadget, gadgets, names, pod, putFresh, type Case } from './objects.js';

export const ADMISSION_CASES: Case[] = [
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
    name: "a ServiceAccount's token stops working when the ServiceAccount is deleted, and stays refused when one of the same name is made again",
    run: async (s) => {
      const sa = (await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'recreated' } })).body;
      const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${s.ns}`;
      await s.request('POST', `${rbac}/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
      await s.request('POST', `${rbac}/rolebindings`, { metadata: { name: 'cm-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'recreated', namespace: s.ns }] });
      await sleep(500);
      const token = (await s.request('POST', s.core('serviceaccounts/recreated/token'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).body.status.token;
      const before = (await s.request('GET', s.core('configmaps'), undefined, undefined, token)).code;
      await s.request('DELETE', s.core('serviceaccounts/recreated'));
      const deleted = statusOf(await s.request('GET', s.core('configmaps'), undefined, undefined, token));
      const again = (await s.request('POST', s.core('serviceaccounts'), { metadata: { name: 'recreated' } })).body;
      const recreated = statusOf(await s.request('GET', s.core('configmaps'), undefined, undefined, token));
      return { before, deleted, recreated, newUid: again.metadata.uid !== sa.metadata.uid };
    },
  },
  {
    name: 'an unknown token: 401',
    run: async (s) => statusOf(await s.request('GET', s.core('configmaps'), undefined, undefined, 'not-a-token')),
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
      const put = await putFresh(s, s.core('resourcequotas/unknown'), (q) => ({ ...q, status: { hard: { 'count/services': '5' } } }), '/status');
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
    run: async (s) => {
      const one = statusOf(await s.request('POST', gadgets(s), gadget('g2', { size: 0 })));
      const two = (await s.request('POST', gadgets(s), gadget('g3', { mode: 'warp', size: 'big' }))).body;
      // kube-apiserver lists several problems in no fixed order (Go map order): compare them as a set.
      const problems = /^(.*is invalid: )\[(.*)\]$/.exec(two.message ?? '');
      if (!problems) throw new Error(`${s.name}: not two problems in one message: ${JSON.stringify(two)}`);
      const causes = [...(two.details?.causes ?? [])].sort((a: any, b: any) => a.field.localeCompare(b.field));
      return [one, { code: two.code, reason: two.reason, head: problems[1], parts: problems[2]!.split(/, (?=spec\.)/).sort(), causes }];
    },
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
