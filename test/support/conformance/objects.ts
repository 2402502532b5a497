// What the conformance cases build their requests from: objects, the patch types, a CRD of the
// test's own, and waiting for the quota controller.
import { sleep, type Side } from './harness.js';

export interface Case {
  name: string;
  run(side: Side): Promise<unknown>;
}

export const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data });
export const names = (list: any) => ((list?.items ?? []) as any[]).map((o) => o.metadata.name);
export const MERGE = 'application/merge-patch+json';
export const STRATEGIC = 'application/strategic-merge-patch+json';
export const APPLY = 'application/apply-patch+yaml';
export const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'a', image: 'busybox', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }, { name: 'b', image: 'nginx' }] },
});
export const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'a', image: 'busybox', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }, { name: 'b', image: 'nginx' }] } } },
});
export const containersOf = (spec: any) => ((spec?.containers ?? []) as any[]).map((c) => ({ name: c.name, image: c.image, env: c.env }));

/** Polls until the namespace's quota has status.used for every hard key (the quota controller has counted it). */
/**
 * GETs the object and PUTs `change(live)`, again while the answer is 409: the quota controller
 * rewrites a quota's status whenever another case changes what it counts, so a read-then-write can
 * lose that race on the real server.
 */
export async function putFresh(side: Side, path: string, change: (live: any) => unknown, subresource = ''): Promise<{ code: number; body: any }> {
  for (let attempt = 0; ; attempt++) {
    const live = (await side.request('GET', path)).body;
    const put = await side.request('PUT', path + subresource, change(live));
    if (put.code !== 409 || attempt === 9) return put;
  }
}

export async function counted(side: Side, name: string): Promise<void> {
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
export const gadgets = (s: Side) => `/apis/conformance.example.com/v1/namespaces/${s.ns}/gadgets`;
export const gadget = (name: string, spec: object) => ({ apiVersion: 'conformance.example.com/v1', kind: 'Gadget', metadata: { name }, spec });
