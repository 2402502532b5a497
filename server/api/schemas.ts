// The REST request shapes of SPEC 2.6 that the resource endpoints accept, and their query strings.
import { MEMBERSHIP_ROLES } from '../../contract/user-space.js';
import { ACCEPTED_KEY_TYPES } from '../../ssh/authorized-keys.js';
import { publicKeyLineSource } from '../../ssh/wire.js';
import { exact, fields } from '../http/validate.js';
import { IMAGE_REGISTRY_LIMITS as LIMITS, RE2_HINT, re2Problem, TAG_MODES } from '../../contract/image-registry-rules.js';
import { REGISTRY_PROVIDERS } from '../../contract/image-registry.js';
import { WORKSPACE_NAME_MAX } from '../../contract/workspace-rules.js';
import { ACTIVITY_KINDS } from '../../kube/den-events.js';
import { declaredAppViolations } from '../../contract/workspace-image-rules.js';
import { sourceViolations } from '../../contract/workspace-source.js';
import { array, object } from 'yup';
import { ENV_COUNT_MAX, ENV_VALUE_MAX, envNameProblem } from '../../contract/personal.js';
import { DAILY_TIME_EXAMPLES, isTimeZone, MIN_MAX_RUNNING_MS, parseDailyTime } from '../../contract/schedule.js';
import { durationMs } from '../../contract/duration.js';
import { DURATION_PATTERN } from '../../contract/schema.js';
import { label, quantity, serviceName, subdomain } from './fields.js';

const { string, boolean, integer, strings } = fields;

export { WORKSPACE_NAME_MAX } from '../../contract/workspace-rules.js';

/** `svc-<name>` must itself be a namespace name (63 characters). */
export const USERSPACE_NAME_MAX = 63 - 'svc-'.length;

/** The line's shape and type; the key itself is the webhook's to check (ssh/authorized-keys.ts). */
const KEY_LINE = new RegExp(publicKeyLineSource(ACCEPTED_KEY_TYPES));

function re2Patterns() {
  return strings().test('re2', '${path} is not a valid RE2 pattern', function check(list) {
    for (const [i, pattern] of (list ?? []).entries()) {
      const problem = re2Problem(pattern ?? '');
      if (problem) return this.createError({ path: `${this.path}[${i}]`, message: `${this.path}[${i}] is not a valid RE2 pattern: ${problem}. ${RE2_HINT}` });
    }
    return true;
  });
}

/** A number of GPUs: whole, as an extended resource is reserved (request equal to limit); 0 for none. */
const gpuCount = () => string().matches(/^\d{1,4}$/, 'gpu must be a whole number of GPUs, such as 1 (0 for none)');

/** `source` of a create: Workspace spec.source as the CRD spells it, checked by the webhook's rules (contract/workspace-source.ts). */
function workspaceSource() {
  return exact({
    git: exact({ url: string().required('source.git.url is required'), ref: string(), path: string() }).required('source.git is required'),
    devcontainer: string(),
  }).test('source', '${path} is refused', function check(source) {
    const violations = sourceViolations(source);
    if (!violations.length) return true;
    return this.createError({ message: violations.map((v) => `${v.field.replace(/^spec\./, '')} ${v.message}`).join('; ') });
  }).optional();
}

/**
 * `env` of a create: variables the workspace adds to its person's own, or overrides (its
 * spec.env comes before the personal Secret's envFrom; docs/personal-env.md), by the same
 * name rules as a personal variable (contract/personal.ts).
 */
function workspaceEnv() {
  return object()
    .typeError('${path} must be an object of variable names to values')
    .test('env', '${path} is refused', function check(env) {
      if (env === undefined) return true;
      const entries = Object.entries(env as Record<string, unknown>);
      if (entries.length > ENV_COUNT_MAX) return this.createError({ message: `env must have at most ${ENV_COUNT_MAX} variables (got ${entries.length})` });
      for (const [name, value] of entries) {
        const problem = envNameProblem(name);
        if (problem) return this.createError({ path: `env.${name}`, message: `env: ${problem}` });
        if (typeof value !== 'string') return this.createError({ path: `env.${name}`, message: `env.${name} must be a string` });
        if (Buffer.byteLength(value) > ENV_VALUE_MAX) return this.createError({ path: `env.${name}`, message: `env.${name} must be at most ${ENV_VALUE_MAX} bytes` });
      }
      return true;
    })
    .optional();
}

/** A time of day on some days (`weekdays 08:30`), the grammar of contract/schedule.ts; "" removes it in a PATCH. */
function dailyTime(field: string) {
  return string().test('daily-time', `${field} must be a time of day such as ${DAILY_TIME_EXAMPLES}`, function check(text) {
    if (text === undefined || text === '') return true;
    const parsed = parseDailyTime(text);
    return typeof parsed === 'string' ? this.createError({ message: `${field}: ${parsed}` }) : true;
  });
}

/**
 * `schedule` of a create and of PATCH /workspaces/{name}/schedule: Workspace spec.schedule in
 * words (docs/schedules.md). In a PATCH an absent field keeps its value and "" removes it.
 */
/** A longest running time (8h, at least 10m); "" removes it in a PATCH. */
function runningTime(field: string) {
  return string().test('running-time', `${field} must be a duration of at least 10m, such as 8h or 90m`, (v) => v === undefined || v === '' || (durationMs(v) ?? 0) >= MIN_MAX_RUNNING_MS);
}

function timeZone(field: string) {
  return string().test('time-zone', `${field} must be an IANA time zone such as Europe/Berlin, America/New_York or UTC`, (v) => v === undefined || v === '' || isTimeZone(v));
}

export const scheduleRequest = exact({
  autostart: dailyTime('autostart'),
  autostop: dailyTime('autostop'),
  max_running: runningTime('max_running'),
  time_zone: timeZone('time_zone'),
});
export type ScheduleRequest = typeof scheduleRequest.__outputType;

/**
 * PATCH /admin/schedules/{name}: a UserSpace's spec.schedules in words (docs/schedules.md),
 * as scheduleRequest is: an absent field keeps its value, "" removes it.
 */
export const schedulePolicyRequest = exact({
  max_running_limit: runningTime('max_running_limit'),
  default_max_running: runningTime('default_max_running'),
  default_autostop: dailyTime('default_autostop'),
  time_zone: timeZone('time_zone'),
});
export type SchedulePolicyRequest = typeof schedulePolicyRequest.__outputType;

export const createWorkspaceRequest = exact({
  name: serviceName(WORKSPACE_NAME_MAX).required('name is required'),
  image: subdomain().required('image is required'),
  cpu: quantity(),
  memory: quantity(),
  gpu: gpuCount(),
  storage: quantity().required('storage is required'),
  ssh_public_key: string()
    .required('ssh_public_key is required')
    .max(16384, 'ssh_public_key must be at most 16384 characters')
    .matches(KEY_LINE, 'ssh_public_key must be one OpenSSH public key line starting with ssh-, ecdsa-sha2- or sk-'),
  source: workspaceSource(),
  env: workspaceEnv(),
  schedule: scheduleRequest.optional(),
});
export type CreateWorkspaceRequest = typeof createWorkspaceRequest.__outputType;

/** `apps` of a catalog request: WorkspaceImage spec.apps, checked by the rules the webhook reads (contract/workspace-image-rules.ts). */
function declaredAppList() {
  const app = exact({ name: string(), port: integer(), path: string(), icon: string() });
  return array()
    .typeError('${path} must be an array of apps')
    .of(app.defined('${path} must be an app'))
    .test('apps', '${path} is refused', function check(list) {
      const violations = declaredAppViolations(list);
      if (!violations.length) return true;
      return this.createError({ message: violations.map((v) => `${v.field.replace(/^spec\.apps/, this.path)} ${v.message}`).join('; ') });
    });
}

/**
 * A change of a workspace after creation where the SPEC allows it (2.5: storage is immutable;
 * spec.resources, GPUs included, is checked against the quota on update: 1.4 "a resize is an
 * update"): the web UI's workspace page sends it.
 * Every field is optional; an absent one keeps its value (2.8).
 */
export const changeWorkspaceRequest = exact({
  image: subdomain(),
  cpu: quantity(),
  memory: quantity(),
  gpu: gpuCount(),
  idle_timeout: string().matches(new RegExp(DURATION_PATTERN), 'idle_timeout must be a duration such as 4h, 90m or 1h30m (0s never stops)'),
});
export type ChangeWorkspaceRequest = typeof changeWorkspaceRequest.__outputType;

const imageFields = {
  image: string().min(1, 'image must not be empty').max(1024, 'image must be at most 1024 characters').matches(/^\S+$/, 'image must not contain spaces'),
  display_name: string().min(1, 'display_name must not be empty').max(256, 'display_name must be at most 256 characters'),
  description: string().max(4096, 'description must be at most 4096 characters'),
  icon: string().max(2048, 'icon must be at most 2048 characters'),
  tags: strings(),
  deprecated: boolean(),
  apps: declaredAppList(),
};

export const createWorkspaceImageRequest = exact({
  name: subdomain().required('name is required'),
  ...imageFields,
  image: imageFields.image.required('image is required'),
});
export type CreateWorkspaceImageRequest = typeof createWorkspaceImageRequest.__outputType;

export const patchWorkspaceImageRequest = exact({
  name: string().test('create-only', 'name is create-only and cannot be changed', (v) => v === undefined),
  ...imageFields,
});
export type PatchWorkspaceImageRequest = typeof patchWorkspaceImageRequest.__outputType;

export { REGISTRY_PROVIDERS, TAG_MODES };

const registryFields = {
  region: string().min(1, 'region must not be empty').max(LIMITS.regionMaxLength, `region must be at most ${LIMITS.regionMaxLength} characters`),
  registry_id: string().max(LIMITS.registryIdMaxLength, `registry_id must be at most ${LIMITS.registryIdMaxLength} characters`).matches(/^\d*$/, 'registry_id must be an account id (digits)'),
  role_arn: string().max(LIMITS.roleArnMaxLength, `role_arn must be at most ${LIMITS.roleArnMaxLength} characters`),
  interval_seconds: integer().min(LIMITS.intervalSecondsMin, `interval_seconds must be at least ${LIMITS.intervalSecondsMin}`),
  include: re2Patterns(),
  exclude: re2Patterns(),
  tag_mode: string().oneOf([...TAG_MODES], `tag_mode must be one of ${TAG_MODES.join(', ')}`),
  tag_patterns: re2Patterns(),
  tag_limit: integer().min(LIMITS.tagLimitMin, `tag_limit must be at least ${LIMITS.tagLimitMin}`),
  prune: boolean(),
  image_pull_secret: string().test('secret-name', 'image_pull_secret must be a Secret name (RFC 1123 subdomain) or empty to remove it', (v) => v === undefined || v === '' || subdomain().isValidSync(v)),
};

export const createImageRegistryRequest = exact({
  name: label().required('name is required'),
  provider: string().oneOf([...REGISTRY_PROVIDERS], `provider must be one of ${REGISTRY_PROVIDERS.join(', ')}`),
  ...registryFields,
  region: registryFields.region.required('region is required'),
});
export type CreateImageRegistryRequest = typeof createImageRegistryRequest.__outputType;

export const patchImageRegistryRequest = exact({
  name: string().test('create-only', 'name is create-only and cannot be changed', (v) => v === undefined),
  provider: string().test('create-only', 'provider is create-only and cannot be changed', (v) => v === undefined),
  ...registryFields,
});
export type PatchImageRegistryRequest = typeof patchImageRegistryRequest.__outputType;

const role = () => string().oneOf([...MEMBERSHIP_ROLES], `role must be one of ${MEMBERSHIP_ROLES.join(', ')}`);

export const userSpaceRequest = exact({
  name: label(USERSPACE_NAME_MAX)
    .required('name is required')
    .notOneOf(['system'], 'name "system" is reserved: its namespace svc-system is the platform\'s own'),
  owner: string().required('owner is required').min(1, 'owner must not be empty').max(320, 'owner must be at most 320 characters'),
  role: role(),
});
export type UserSpaceRequest = typeof userSpaceRequest.__outputType;

export const membershipRequest = exact({
  role: role(),
  disabled: boolean(),
});
export type MembershipRequest = typeof membershipRequest.__outputType;

export const quotaRequest = exact({
  workspaces: integer().min(0, 'workspaces must be at least 0'),
  cpu: quantity(),
  memory: quantity(),
  storage: quantity(),
  gpu: integer().min(0, 'gpu must be at least 0'),
});
export type QuotaRequest = typeof quotaRequest.__outputType;

// Query strings: every value arrives as a string (an array when repeated, which a string refuses).

export const namespaceQuery = exact({ namespace: label() });

export const deleteWorkspaceQuery = exact({ namespace: label(), delete_volume: string() });

export const logsQuery = exact({
  namespace: label(),
  tail: string().matches(/^[1-9]\d{0,8}$/, 'tail must be an integer of at least 1'),
});

/** Most activity entries one answer holds, and how many when `limit` is not given. */
export const ACTIVITY_LIMIT = { max: 1000, default: 200 };

const activityFilters = {
  person: label(),
  kind: string().oneOf([...ACTIVITY_KINDS], `kind must be one of ${ACTIVITY_KINDS.join(', ')}`),
  limit: string().matches(/^[1-9]\d{0,3}$/, `limit must be an integer from 1 to ${ACTIVITY_LIMIT.max}`).test('at-most', `limit must be an integer from 1 to ${ACTIVITY_LIMIT.max}`, (v) => v === undefined || Number(v) <= ACTIVITY_LIMIT.max),
};

export const adminActivityQuery = exact({ ...activityFilters, workspace: label() });

/** The filters of one workspace's activity on its page (always the caller's own namespace). */
export const activityFilterQuery = exact(activityFilters);

export const workspaceEventsQuery = exact({ ...activityFilters, namespace: label() });
