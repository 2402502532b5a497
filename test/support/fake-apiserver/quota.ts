// The built-in admission of pods and PersistentVolumeClaims as kube-apiserver runs it:
// LimitRanger (container defaults, then min/max/maxLimitRequestRatio) and ResourceQuota
// (hard limits against status.used, explicit requests for quota'd compute resources), with
// the plugins' own messages; and the quota controller's status.used.
import type { KubeObject } from '../../../kube/client.js';
import { addQuantities, compareQuantities, countQuantity, formatQuantity, parseQuantity, type Quantity } from '../../../kube/quantity.js';

type ResourceList = Record<string, string>;

interface Container {
  name: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

interface LimitItem {
  type?: string;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  min?: ResourceList;
  max?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface Quota extends KubeObject {
  spec?: { hard?: ResourceList };
  status?: { hard?: ResourceList; used?: ResourceList };
}

/** A refusal of an admission plugin: the caller wraps it as `<resource> "<name>" is forbidden: <message>`. */
export class AdmissionRefusal extends Error {}

const q = (text: string | number): Quantity => parseQuantity(text);
const text = (value: Quantity): string => formatQuantity(value);

function containersOf(pod: any): Container[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
}

/** API defaulting of a pod (SetDefaults_Pod): a container's request defaults to its limit. */
export function defaultPodRequests(pod: KubeObject): void {
  for (const c of containersOf(pod)) {
    const limits = c.resources?.limits ?? {};
    for (const [k, v] of Object.entries(limits)) {
      c.resources!.requests ??= {};
      c.resources!.requests[k] ??= v;
    }
  }
}

/** LimitRanger's mutation: `default` and `defaultRequest` for containers without them, and its annotation. */
export function applyLimitDefaults(pod: KubeObject, limitRanges: KubeObject[]): void {
  const set: string[] = [];
  for (const item of limitItems(limitRanges, 'Container')) {
    for (const c of containersOf(pod)) {
      const resources = (c.resources ??= {});
      const limits = Object.entries(item.default ?? {}).filter(([k]) => !resources.limits?.[k]);
      const requests = Object.entries(item.defaultRequest ?? {}).filter(([k]) => !resources.requests?.[k]);
      for (const [k, v] of limits) (resources.limits ??= {})[k] = v;
      for (const [k, v] of requests) (resources.requests ??= {})[k] = v;
      if (requests.length) set.push(`${requests.map(([k]) => k).join(', ')} request for container ${c.name}`);
      if (limits.length) set.push(`${limits.map(([k]) => k).join(', ')} limit for container ${c.name}`);
    }
  }
  if (set.length) pod.metadata!.annotations = { ...pod.metadata!.annotations, 'kubernetes.io/limit-ranger': `LimitRanger plugin set: ${set.join('; ')}` };
}

function limitItems(limitRanges: KubeObject[], type: string): LimitItem[] {
  return limitRanges.flatMap((lr) => ((lr as { spec?: { limits?: LimitItem[] } }).spec?.limits ?? []).filter((l) => l.type === type));
}

function minProblem(type: string, r: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  if (requests[r] === undefined) return `minimum ${r} usage per ${type} is ${text(q(enforced))}.  No request is specified`;
  if (compareQuantities(q(requests[r]), q(enforced)) < 0) return `minimum ${r} usage per ${type} is ${text(q(enforced))}, but request is ${text(q(requests[r]))}`;
  if (limits[r] !== undefined && compareQuantities(q(limits[r]), q(enforced)) < 0) return `minimum ${r} usage per ${type} is ${text(q(enforced))}, but limit is ${text(q(limits[r]))}`;
  return undefined;
}

function maxProblem(type: string, r: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  if (limits[r] === undefined) return `maximum ${r} usage per ${type} is ${text(q(enforced))}.  No limit is specified`;
  if (compareQuantities(q(limits[r]), q(enforced)) > 0) return `maximum ${r} usage per ${type} is ${text(q(enforced))}, but limit is ${text(q(limits[r]))}`;
  if (requests[r] !== undefined && compareQuantities(q(requests[r]), q(enforced)) > 0) return `maximum ${r} usage per ${type} is ${text(q(enforced))}, but request is ${text(q(requests[r]))}`;
  return undefined;
}

function ratioProblem(type: string, r: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[r] === undefined ? undefined : q(requests[r]);
  const lim = limits[r] === undefined ? undefined : q(limits[r]);
  if (!req || req.num === 0n) return `${r} max limit to request ratio per ${type} is ${text(q(enforced))}, but no request is specified or request is 0`;
  if (!lim || lim.num === 0n) return `${r} max limit to request ratio per ${type} is ${text(q(enforced))}, but no limit is specified or limit is 0`;
  const ratio = Number(lim.num * req.den) / Number(req.num * lim.den);
  const max = q(enforced);
  if (ratio * 1000 > (Number(max.num) / Number(max.den)) * 1000) return `${r} max limit to request ratio per ${type} is ${text(max)}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function checkItem(type: string, item: LimitItem, requests: ResourceList, limits: ResourceList, withLimits = true): string[] {
  const problems: (string | undefined)[] = [];
  for (const [r, v] of Object.entries(item.min ?? {})) problems.push(minProblem(type, r, v, requests, withLimits ? limits : {}));
  for (const [r, v] of Object.entries(item.max ?? {})) {
    if (withLimits) problems.push(maxProblem(type, r, v, requests, limits));
    else if (requests[r] === undefined) problems.push(`maximum ${r} usage per ${type} is ${text(q(v))}.  No request is specified`);
    else if (compareQuantities(q(requests[r]), q(v)) > 0) problems.push(`maximum ${r} usage per ${type} is ${text(q(v))}, but request is ${text(q(requests[r]))}`);
  }
  for (const [r, v] of Object.entries(item.maxLimitRequestRatio ?? {})) problems.push(ratioProblem(type, r, v, requests, limits));
  return problems.filter((p): p is string => p !== undefined);
}

function sumLists(lists: ResourceList[]): ResourceList {
  const out: Record<string, Quantity> = {};
  for (const list of lists) for (const [k, v] of Object.entries(list)) out[k] = out[k] ? addQuantities(out[k], q(v)) : q(v);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, text(v)]));
}

/** LimitRanger's validation (Container, Pod and PersistentVolumeClaim limits); throws its aggregated message. */
export function checkLimitRanges(kind: 'Pod' | 'PersistentVolumeClaim', obj: KubeObject, limitRanges: KubeObject[]): void {
  const problems: string[] = [];
  if (kind === 'Pod') {
    for (const item of limitItems(limitRanges, 'Container')) {
      for (const c of containersOf(obj)) problems.push(...checkItem('Container', item, c.resources?.requests ?? {}, c.resources?.limits ?? {}));
    }
    const containers = containersOf(obj);
    for (const item of limitItems(limitRanges, 'Pod')) {
      problems.push(...checkItem('Pod', item, sumLists(containers.map((c) => c.resources?.requests ?? {})), sumLists(containers.map((c) => c.resources?.limits ?? {}))));
    }
  } else {
    const requests = (obj as any).spec?.resources?.requests ?? {};
    for (const item of limitItems(limitRanges, 'PersistentVolumeClaim')) problems.push(...checkItem('PersistentVolumeClaim', item, requests, {}, false));
  }
  if (problems.length === 1) throw new AdmissionRefusal(problems[0]);
  if (problems.length > 1) throw new AdmissionRefusal(`[${problems.join(', ')}]`);
}

const COMPUTE = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** What one container counts for (podComputeUsageHelper). */
function containerUsage(c: Container): Record<string, Quantity> {
  const out: Record<string, Quantity> = {};
  for (const [k, v] of Object.entries(c.resources?.requests ?? {})) {
    out[`requests.${k}`] = q(v);
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') out[k] = q(v);
  }
  for (const [k, v] of Object.entries(c.resources?.limits ?? {})) out[`limits.${k}`] = q(v);
  return out;
}

function maxInto(into: Record<string, Quantity>, from: Record<string, Quantity>): void {
  for (const [k, v] of Object.entries(from)) if (!into[k] || compareQuantities(v, into[k]) > 0) into[k] = v;
}

/** The quota usage of one object of `resource` (`<plural>.<group>`): a pod's compute, a claim's storage, and counts. */
export function usageOf(resource: string, obj: KubeObject): Record<string, Quantity> {
  const [plural, group] = resource.split(/\.(.*)/) as [string, string];
  const usage: Record<string, Quantity> = { [group ? `count/${plural}.${group}` : `count/${plural}`]: countQuantity(1) };
  if (!group && ['pods', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas'].includes(plural)) usage[plural] = countQuantity(1);
  if (resource === 'pods.') {
    const phase = (obj as any).status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return {};
    const sum: Record<string, Quantity> = {};
    for (const c of (obj as any).spec?.containers ?? []) for (const [k, v] of Object.entries(containerUsage(c))) sum[k] = sum[k] ? addQuantities(sum[k], v) : v;
    for (const c of (obj as any).spec?.initContainers ?? []) maxInto(sum, containerUsage(c));
    Object.assign(usage, sum);
  }
  if (resource === 'persistentvolumeclaims.') {
    const storage = (obj as any).spec?.resources?.requests?.storage;
    if (storage !== undefined) usage['requests.storage'] = q(storage);
  }
  return usage;
}

function prettyPrint(list: Record<string, Quantity | string>): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${typeof list[k] === 'string' ? text(q(list[k])) : text(list[k]!)}`)
    .join(',');
}

/**
 * ResourceQuota admission of a new object, against each quota's status (a quota the controller
 * has not counted yet constrains nothing): with a compute quota every container names the
 * resource; a limited resource the controller has not counted refuses (`status unknown for
 * quota: …`); the new usage stays within status.hard. Throws `failed quota: …` or
 * `exceeded quota: …`; answers each quota's status.used with the object counted, as the
 * admission plugin writes it before the object is stored.
 */
export function checkQuotas(resource: string, obj: KubeObject, quotas: Quota[]): { quota: Quota; used: ResourceList }[] {
  const requested = usageOf(resource, obj);
  const counted: { quota: Quota; used: ResourceList }[] = [];
  for (const quota of quotas) {
    const hard = quota.status?.hard ?? {};
    const name = quota.metadata!.name!;
    const restricted = Object.keys(hard).filter((k) => quotaTracks(resource, [k])).sort();
    if (restricted.length === 0) continue;
    if (restricted.some((k) => quota.status?.used?.[k] === undefined)) throw new AdmissionRefusal(`status unknown for quota: ${name}, resources: ${restricted.join(',')}`);
    if (resource === 'pods.' && Object.keys(requested).length > 0) {
      const required = Object.keys(hard).filter((k) => COMPUTE.includes(k));
      const missing = new Map<string, string[]>();
      for (const c of containersOf(obj)) {
        const has = containerUsage(c);
        for (const r of required) if (!has[r]) missing.set(r, [...(missing.get(r) ?? []), c.name]);
      }
      if (missing.size > 0) {
        const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...new Set(missing.get(r))].sort().join(',')}`);
        throw new AdmissionRefusal(`failed quota: ${name}: must specify ${parts.join('; ')}`);
      }
    }
    const exceeded = Object.keys(requested).filter((k) => hard[k] !== undefined && compareQuantities(addQuantities(q(quota.status?.used?.[k] ?? '0'), requested[k]!), q(hard[k])) > 0);
    if (exceeded.length === 0) {
      const used: ResourceList = { ...quota.status?.used };
      for (const k of Object.keys(requested)) if (hard[k] !== undefined) used[k] = text(addQuantities(q(used[k] ?? '0'), requested[k]!));
      counted.push({ quota, used });
      continue;
    }
    const pick = (list: Record<string, Quantity | string>) => Object.fromEntries(exceeded.map((k) => [k, list[k] ?? '0']));
    throw new AdmissionRefusal(`exceeded quota: ${name}, requested: ${prettyPrint(pick(requested))}, used: ${prettyPrint(pick(quota.status?.used ?? {}))}, limited: ${prettyPrint(pick(hard))}`);
  }
  return counted;
}

/** Whether a quota with these hard keys counts objects of `resource` (`<plural>.<group>`). */
export function quotaTracks(resource: string, hardKeys: string[]): boolean {
  const [plural, group] = resource.split(/\.(.*)/) as [string, string];
  const count = group ? `count/${plural}.${group}` : `count/${plural}`;
  return hardKeys.some((k) => {
    if (k === count || (!group && k === plural)) return true;
    if (resource === 'pods.') return COMPUTE.includes(k) || k === 'ephemeral-storage' || (k.startsWith('requests.') && k !== 'requests.storage') || k.startsWith('limits.');
    return resource === 'persistentvolumeclaims.' && k === 'requests.storage';
  });
}

/** The quota controller's status: hard as the spec says, used summed over the namespace's objects. */
export function quotaStatus(quota: Quota, objects: { resource: string; object: KubeObject }[]): { hard: ResourceList; used: ResourceList } {
  const hard = { ...quota.spec?.hard };
  const used: Record<string, Quantity> = Object.fromEntries(Object.keys(hard).map((k) => [k, countQuantity(0)]));
  for (const { resource, object } of objects) {
    for (const [k, v] of Object.entries(usageOf(resource, object))) if (k in used) used[k] = addQuantities(used[k]!, v);
  }
  return { hard, used: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, text(v)])) };
}
