// Pure translations between the REST shapes (snake_case, SPEC 2.6 and 2.7) and cluster
// objects (camelCase, as the CRDs define them). No I/O here: routes call these.
import { isDisabled, roleOf, schedulePolicyOf, WORKSPACE_COUNT_KEY } from '../../contract/user-space.js';
import { API_VERSION, ANNOTATIONS, KINDS, LABELS } from '../../kube/group.js';
import type { KubeObject } from '../../kube/client.js';
import type {
  CreateImageRegistryRequest,
  CreateWorkspaceImageRequest,
  ChangeWorkspaceRequest,
  CreateWorkspaceRequest,
  MembershipRequest,
  PatchImageRegistryRequest,
  PatchWorkspaceImageRequest,
  QuotaRequest,
  SchedulePolicyRequest,
  ScheduleRequest,
  UserSpaceRequest,
} from './schemas.js';
import { dailyTimeText, parseDailyTime, type DailyTime } from '../../contract/schedule.js';

type Json = Record<string, unknown>;

/** Drops keys whose value is undefined, so a merge patch keeps what the request did not name (SPEC 2.8). */
function defined<T extends Json>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function isEmpty(o: object): boolean {
  return Object.keys(o).length === 0;
}

/** In a PATCH, an empty string removes an optional field (merge patch `null`). */
function clearable(v: string | undefined): string | null | undefined {
  return v === '' ? null : v;
}

// Workspaces

export function workspaceObject(req: CreateWorkspaceRequest, namespace: string, gpuResource: string): KubeObject {
  // 0 GPUs is none: no GPU resource at all, as a change to 0 removes it.
  const sized = defined({ cpu: req.cpu, memory: req.memory, [gpuResource]: req.gpu !== undefined && Number(req.gpu) === 0 ? undefined : req.gpu });
  const spec: Json = { imageRef: { name: req.image } };
  // Request equals limit: a workspace is guaranteed what it is charged for, and an extended
  // resource (GPU) is only accepted with request equal to limit (SPEC 1.4).
  if (!isEmpty(sized)) spec.resources = { requests: { ...sized }, limits: { ...sized } };
  spec.storage = req.storage;
  spec.sshAuthorizedKeys = [req.ssh_public_key.trim()];
  spec.running = true;
  if (req.source?.git) spec.source = { git: defined({ url: req.source.git.url, ref: req.source.git.ref, path: req.source.git.path }), ...(req.source.devcontainer ? { devcontainer: req.source.devcontainer } : {}) };
  if (req.env && !isEmpty(req.env)) spec.env = workspaceEnvOf(req.env as Record<string, string>);
  if (req.schedule) {
    const schedule = defined({
      timeZone: req.schedule.time_zone || undefined,
      autostart: ruleOf(req.schedule.autostart),
      autostop: ruleOf(req.schedule.autostop),
      maxRunning: req.schedule.max_running || undefined,
    });
    if (!isEmpty(schedule)) spec.schedule = schedule;
  }
  return { apiVersion: API_VERSION, kind: KINDS.workspace, metadata: { name: req.name, namespace }, spec };
}

/**
 * REST's `env` as the Workspace's spec.env, taken literally: the kubelet expands `$(VAR)` in an
 * env value and reads `$$` as `$`, so every `$` is doubled (a person's values, as the personal
 * variables given through envFrom, are never expanded).
 */
function workspaceEnvOf(env: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(env).map(([name, value]) => ({ name, value: value.replace(/\$/g, '$$$$') }));
}

/**
 * The request field a field of the Workspace came from, as workspaceObject writes it, so a
 * refusal that names the Workspace's field (a webhook's or the schema's cause) is shown
 * beside the request field it concerns; undefined for a field no request field writes.
 */
export function requestFieldOf(objectField: string, gpuResource: string): keyof CreateWorkspaceRequest | undefined {
  const path = objectField.replace(/\[\d+\]/g, '');
  if (path === 'metadata.name') return 'name';
  if (path.startsWith('spec.imageRef')) return 'image';
  if (path === 'spec.storage') return 'storage';
  if (path === 'spec.sshAuthorizedKeys') return 'ssh_public_key';
  if (path.startsWith('spec.source')) return 'source';
  if (path.startsWith('spec.env')) return 'env';
  if (path.startsWith('spec.schedule')) return 'schedule';
  const sized = /^spec\.resources\.(?:requests|limits)\.(.+)$/.exec(path)?.[1];
  if (sized === 'cpu' || sized === 'memory') return sized;
  if (sized === gpuResource) return 'gpu';
  return undefined;
}

/**
 * The merge patch of a change: CPU, memory and GPUs as both request and limit, as a create
 * writes them; 0 GPUs removes the GPU resource (a workspace without GPUs asks for none).
 */
export function workspaceChangePatch(req: ChangeWorkspaceRequest, gpuResource: string): Json {
  const gpu = req.gpu === undefined ? undefined : Number(req.gpu) === 0 ? null : req.gpu;
  const sized = defined({ cpu: req.cpu, memory: req.memory, [gpuResource]: gpu });
  const spec: Json = defined({ idleTimeout: req.idle_timeout });
  if (req.image !== undefined) spec.imageRef = { name: req.image };
  if (!isEmpty(sized)) spec.resources = { requests: { ...sized }, limits: { ...sized } };
  return { spec };
}

/** `weekdays 08:30` as spec.schedule writes it; undefined for an empty (or unreadable: the request check refused it) one. */
function ruleOf(text: string | undefined): DailyTime | undefined {
  const rule = text ? parseDailyTime(text) : undefined;
  return typeof rule === 'object' ? rule : undefined;
}

/**
 * The merge patch of a schedule request: each field named sets its part of spec.schedule, ""
 * removes it, an absent one stays. A time replaces the whole rule (its days too).
 */
export function schedulePatch(req: ScheduleRequest): Json {
  const schedule: Json = {};
  if (req.time_zone !== undefined) schedule.timeZone = clearable(req.time_zone);
  for (const key of ['autostart', 'autostop'] as const) {
    if (req[key] === undefined) continue;
    const rule = ruleOf(req[key]);
    // null days: a rule for every day replaces one for some days.
    schedule[key] = rule ? { days: rule.days ?? null, time: rule.time } : null;
  }
  if (req.max_running !== undefined) schedule.maxRunning = clearable(req.max_running);
  return { spec: { schedule } };
}

export function runningPatch(running: boolean): Json {
  return { spec: { running } };
}

// Catalog

export function workspaceImageObject(req: CreateWorkspaceImageRequest): KubeObject {
  const spec = defined({
    // The CRD requires a title; an entry created without one is titled by its name.
    displayName: req.display_name ?? req.name,
    description: req.description || undefined,
    icon: req.icon || undefined,
    tags: req.tags,
    deprecated: req.deprecated,
    image: req.image,
    apps: req.apps,
  });
  return { apiVersion: API_VERSION, kind: KINDS.workspaceImage, metadata: { name: req.name }, spec };
}

export function workspaceImagePatch(req: PatchWorkspaceImageRequest): Json {
  return {
    spec: defined({
      displayName: req.display_name,
      description: clearable(req.description),
      icon: clearable(req.icon),
      tags: req.tags,
      deprecated: req.deprecated,
      image: req.image,
      // A list replaces the stored one (an empty list removes every app).
      apps: req.apps,
    }),
  };
}

function syncSpec(req: PatchImageRegistryRequest): Json {
  const tags = defined({ mode: req.tag_mode, patterns: req.tag_patterns, limit: req.tag_limit });
  const sync: Json = defined({ intervalSeconds: req.interval_seconds, include: req.include, exclude: req.exclude, prune: req.prune });
  if (!isEmpty(tags)) sync.tags = tags;
  return sync;
}

export function imageRegistryObject(req: CreateImageRegistryRequest): KubeObject {
  const cloud = defined({ region: req.region, registryId: req.registry_id || undefined, roleArn: req.role_arn || undefined });
  const spec: Json = { provider: req.provider ?? 'cloud-registry', cloud };
  const sync = syncSpec(req);
  if (!isEmpty(sync)) spec.sync = sync;
  if (req.image_pull_secret) spec.imagePullSecretRef = { name: req.image_pull_secret };
  return { apiVersion: API_VERSION, kind: KINDS.imageRegistry, metadata: { name: req.name }, spec };
}

export function imageRegistryPatch(req: PatchImageRegistryRequest): Json {
  const spec: Json = {};
  const cloud = defined({ region: req.region, registryId: clearable(req.registry_id), roleArn: clearable(req.role_arn) });
  if (!isEmpty(cloud)) spec.cloud = cloud;
  const sync = syncSpec(req);
  if (!isEmpty(sync)) spec.sync = sync;
  if (req.image_pull_secret !== undefined) spec.imagePullSecretRef = req.image_pull_secret === '' ? null : { name: req.image_pull_secret };
  return { spec };
}

/** A value never used before, so setting it always counts as a change (SPEC 1.6). */
export function forceSyncPatch(now: Date, nonce: string): Json {
  return { metadata: { annotations: { [ANNOTATIONS.forceSync]: `${now.toISOString()}-${nonce}` } } };
}

// UserSpaces

export interface Quota {
  cpu: string;
  memory: string;
  storage: string;
  gpu: number;
  workspaces: number;
}

export function userSpaceObject(req: UserSpaceRequest, quota: Quota): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: KINDS.userSpace,
    metadata: { name: req.name, labels: { [LABELS.role]: req.role ?? 'user' } },
    spec: { owner: req.owner, quota: { ...quota }, networkPolicy: 'Isolated' },
  };
}

export function membershipPatch(req: MembershipRequest): Json {
  const labels: Json = {};
  if (req.role !== undefined) labels[LABELS.role] = req.role;
  if (req.disabled !== undefined) labels[LABELS.disabled] = req.disabled ? 'true' : null;
  return { metadata: { labels } };
}

export interface Membership {
  name: string;
  role: string;
  disabled: boolean;
}

export function membershipOf(userSpace: KubeObject): Membership {
  return { name: userSpace.metadata?.name ?? '', role: roleOf(userSpace), disabled: isDisabled(userSpace) };
}

export function quotaPatch(req: QuotaRequest): Json {
  return { spec: { quota: defined({ cpu: req.cpu, memory: req.memory, storage: req.storage, gpu: req.gpu, workspaces: req.workspaces }) } };
}

/** A UserSpace's spec.schedules in words, as PATCH /admin/schedules/{name} answers it: null where none is set. */
export interface SchedulePolicyLine {
  max_running_limit: string | null;
  default_max_running: string | null;
  default_autostop: string | null;
  time_zone: string | null;
}

/**
 * The merge patch of a schedule policy request: each field named sets its part of
 * spec.schedules, "" removes it, an absent one stays. A default autostop replaces the whole
 * rule (its days too); removing it removes its time zone with it.
 */
export function schedulePolicyPatch(req: SchedulePolicyRequest): Json {
  const schedules: Json = {};
  if (req.max_running_limit !== undefined) schedules.maxRunningLimit = clearable(req.max_running_limit);
  if (req.default_max_running !== undefined) schedules.defaultMaxRunning = clearable(req.default_max_running);
  const rule = ruleOf(req.default_autostop);
  if (req.default_autostop === '') schedules.defaultAutostop = null;
  else if (rule || req.time_zone !== undefined) {
    schedules.defaultAutostop = defined({ days: rule ? (rule.days ?? null) : undefined, time: rule?.time, timeZone: clearable(req.time_zone) });
  }
  return { spec: { schedules } };
}

export function schedulePolicyLineOf(userSpace: KubeObject): SchedulePolicyLine {
  const policy = schedulePolicyOf(userSpace) ?? {};
  const autostop = policy.defaultAutostop;
  return {
    max_running_limit: policy.maxRunningLimit ?? null,
    default_max_running: policy.defaultMaxRunning ?? null,
    default_autostop: autostop?.time ? dailyTimeText(autostop) : null,
    time_zone: autostop?.timeZone ?? null,
  };
}

function quotaSpec(userSpace: KubeObject): Partial<Record<keyof Quota, unknown>> {
  const spec = (userSpace.spec ?? {}) as { quota?: Partial<Record<keyof Quota, unknown>> };
  return spec.quota ?? {};
}

function asInteger(v: unknown): number {
  const n = typeof v === 'number' ? v : Number.parseInt(String(v ?? '0'), 10);
  return Number.isFinite(n) ? n : 0;
}

export function quotaOf(userSpace: KubeObject): Quota {
  const q = quotaSpec(userSpace);
  return { cpu: String(q.cpu ?? '0'), memory: String(q.memory ?? '0'), storage: String(q.storage ?? '0'), gpu: asInteger(q.gpu), workspaces: asInteger(q.workspaces) };
}

/**
 * What a namespace's ResourceQuota reports as used, in the shape of `spec.quota`. The
 * ResourceQuota may count requests (`requests.cpu`) or plain names (`cpu`); both are read.
 */
export function usageOf(resourceQuota: KubeObject, gpuResource: string): Quota {
  const used = ((resourceQuota.status ?? {}) as { used?: Record<string, string> }).used ?? {};
  const pick = (...keys: string[]): string => keys.map((k) => used[k]).find((v) => v !== undefined) ?? '0';
  return {
    cpu: pick('requests.cpu', 'cpu', 'limits.cpu'),
    memory: pick('requests.memory', 'memory', 'limits.memory'),
    storage: pick('requests.storage'),
    gpu: asInteger(pick(`requests.${gpuResource}`, `limits.${gpuResource}`)),
    workspaces: asInteger(pick(WORKSPACE_COUNT_KEY)),
  };
}
