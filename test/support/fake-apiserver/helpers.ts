// What the fake API server's parts share: a request's route and writer, the kinds it serves beyond
// kube/resources.ts, keys of stored objects, list pages, and small pure helpers of requests and objects.
import type http from 'node:http';
import YAML from 'yaml';
import type { KubeObject } from '../../../kube/client.js';
import { groupOf, type ResourceType } from '../../../kube/resources.js';
import { ApiError, status } from './api-error.js';
import type { RequestClass } from './latency.js';
import { clone } from './patch.js';
import type { UserInfo } from './rbac.js';

export interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Who writes: the authenticated user and the field manager (fieldManager, else the User-Agent's product). */
export interface Writer {
  user: UserInfo;
  manager: string;
  /** The bearer token the request came with (per-client watch lag). */
  token?: string;
}

/** What write() answers when the object changed while admission ran: the caller starts over on the new version. */
export const STALE = Symbol('stale');

/** Resources with a status subresource: writes to the main resource leave status alone. */
export const STATUS_SUBRESOURCE = new Set(['workspaces', 'workspaceimages', 'userspaces', 'imageregistries', 'statefulsets', 'pods', 'namespaces', 'persistentvolumeclaims', 'resourcequotas']);
/** Resources whose generation follows spec changes. */
export const GENERATION_TRACKED = new Set(['workspaces', 'workspaceimages', 'userspaces', 'imageregistries', 'statefulsets', 'networkpolicies', 'customresourcedefinitions']);

export const EXTRA_TYPES: ResourceType[] = [
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false },
  // The install chart's Deployments (test/support/platform.ts stores them as kubectl apply would).
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
];

export function typeKey(t: Pick<ResourceType, 'apiVersion' | 'plural'>): string {
  return `${t.plural}.${groupOf(t.apiVersion)}`;
}

/**
 * One page of a list, as kube-apiserver answers `limit` and `continue`: at most `limit` items,
 * and while more remain a `continue` token naming the list's resourceVersion and the last key
 * given. Later pages keep the first page's resourceVersion; they read the current objects
 * after that key (the fake keeps no snapshot), which a watch from that resourceVersion repairs.
 */
export function pageOf(list: { kind: string; apiVersion: string; metadata: { resourceVersion: string }; items: KubeObject[] }, q: URLSearchParams) {
  const limit = Number(q.get('limit') ?? 0);
  const token = q.get('continue');
  let { items } = list;
  let resourceVersion = list.metadata.resourceVersion;
  if (token) {
    let after: string;
    try {
      ({ rv: resourceVersion, after } = JSON.parse(Buffer.from(token, 'base64url').toString()) as { rv: string; after: string });
    } catch {
      throw new ApiError(400, status(400, 'BadRequest', 'continue key is not valid'));
    }
    items = items.filter((o) => keyOf(o.metadata?.namespace, o.metadata!.name!).localeCompare(after) > 0);
  }
  if (!(limit > 0) || items.length <= limit) return { ...list, metadata: { resourceVersion }, items };
  const page = items.slice(0, limit);
  const last = page.at(-1)!.metadata!;
  const next = Buffer.from(JSON.stringify({ rv: resourceVersion, after: keyOf(last.namespace, last.name!) })).toString('base64url');
  // kube-apiserver counts what remains only when no selector filters the list.
  const selected = Boolean(q.get('labelSelector') || q.get('fieldSelector'));
  return { ...list, metadata: { resourceVersion, continue: next, ...(selected ? {} : { remainingItemCount: items.length - limit }) }, items: page };
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * What the latency model sees of a request; undefined for long-running ones (watches, logs),
 * which take no seat on kube-apiserver either.
 */
export function requestClass(method: string, route: Route, q: URLSearchParams, contentType: string): RequestClass | undefined {
  const resource = route.subresource ? `${route.type.plural}/${route.subresource}` : route.type.plural;
  if (method === 'GET') {
    if (q.get('watch') === 'true' || q.get('watch') === '1' || route.subresource === 'log') return undefined;
    return { verb: 'GET', resource };
  }
  if (method === 'PATCH' && contentType.startsWith('application/apply-patch')) return { verb: 'APPLY', resource };
  if (method === 'PATCH' || method === 'PUT' || method === 'POST' || method === 'DELETE') return { verb: method, resource };
  return undefined;
}

/** kube-apiserver's answer to list options that contradict each other. */
export function invalidWatch(field: string, reason: 'FieldValueForbidden' | 'FieldValueRequired', detail: string): ApiError {
  const problem = `${reason === 'FieldValueForbidden' ? 'Forbidden' : 'Required value'}: ${detail}`;
  return new ApiError(422, status(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${problem}`, { kind: 'ListOptions', group: 'meta.k8s.io', causes: [{ reason, message: problem, field }] }));
}

export function isCore(t: ResourceType, plural: string): boolean {
  return t.plural === plural && t.apiVersion === 'v1';
}

export function isNamespace(t: ResourceType): boolean {
  return t.plural === 'namespaces' && t.apiVersion === 'v1';
}

/** A namespace with no finalizer left, in metadata or spec. */
export function namespaceFinalized(ns: KubeObject): boolean {
  return !ns.metadata?.finalizers?.length && !(ns as { spec?: { finalizers?: string[] } }).spec?.finalizers?.length;
}

export function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

export function specOf(o: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o as Record<string, unknown>;
  return rest;
}

export function stripVolatile(o: KubeObject): unknown {
  const copy = clone(o) as any;
  delete copy.metadata?.resourceVersion;
  delete copy.metadata?.managedFields;
  delete copy.metadata?.generation;
  return copy;
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function jsonOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined; // not JSON: the caller parses it as YAML
  }
}

export function parseBody(raw: string, contentType: string): unknown {
  try {
    // JSON is YAML; clients send apply bodies as JSON, and JSON.parse is far cheaper (loop bench).
    if (contentType.includes('yaml')) return jsonOrUndefined(raw) ?? YAML.parse(raw);
    return JSON.parse(raw);
  } catch (err) {
    throw new ApiError(400, status(400, 'BadRequest', `the request body could not be decoded: ${(err as Error).message}`));
  }
}
