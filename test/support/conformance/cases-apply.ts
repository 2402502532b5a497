// Conformance cases. Server-side apply: owners, conflicts, forced applies, keyed lists between managers, concurrent applies.
import { owners, statusOf } from './harness.js';
import { APPLY, MERGE, cm, containersOf, deployment, gadget, gadgets, type Case } from './objects.js';

export const APPLY_CASES: Case[] = [
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
    name: 'server-side apply of a custom resource: a list-map merges by its key between two managers; a clash on one item conflicts',
    run: async (s) => {
      const one = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=alice`, gadget('g5', { tags: [{ name: 'a', value: '1' }] }), APPLY);
      const two = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=bob`, gadget('g5', { tags: [{ name: 'b', value: '2' }] }), APPLY);
      const clash = await s.request('PATCH', `${gadgets(s)}/g5?fieldManager=bob`, gadget('g5', { tags: [{ name: 'a', value: '9' }, { name: 'b', value: '2' }] }), APPLY);
      const applyOwners = (o: any) => (owners(o) as any[]).filter((e) => e.operation === 'Apply');
      return { one: one.code, two: [two.code, two.body.spec, applyOwners(two.body)], clash: statusOf(clash) };
    },
  },
];
