// What every part of the OpenAPI description is built from (server/api/openapi.ts): JSON Schema
// shorthands, the cluster kinds by their CRD schemas, the error answers each operation lists,
// and the parameters and bodies the resources share.
import { denCrds } from '../../contract/index.js';
import type { JsonSchema } from '../../contract/schema.js';
import { ACTIVITY_LIMIT } from './schemas.js';
import { ACTIVITY_KINDS } from '../../kube/den-events.js';
import { DNS1123_LABEL, DNS1123_LABEL_MAX } from '../../kube/names.js';
import { SPACE_BEING_REMOVED } from '../../koa/errors.js';

export type Schema = Record<string, unknown>;
export type Operation = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const int = (description: string, extra: Schema = {}): Schema => ({ type: 'integer', description, ...extra });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const strings = (description: string): Schema => ({ type: 'array', description, items: { type: 'string' } });

export function closed(properties: Record<string, Schema>, required: string[] = [], description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export function listOf(item: string): Schema {
  return { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref(item) } } };
}

// A namespace or token name query parameter, as the request schemas check it (fields.ts).
export const LABEL_PARAMETER = { type: 'string', pattern: DNS1123_LABEL.source, maxLength: DNS1123_LABEL_MAX };

/** A cluster object as the cluster returns it; its own fields stay camelCase (SPEC 2.7). */
export function clusterObject(kind: string): Schema {
  const crd = denCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no CRD for ${kind}`);
  const schema = crd.spec.versions[0]!.schema.openAPIV3Schema as JsonSchema & Schema;
  return { ...schema, description: `${schema.description ?? kind} Returned as the cluster returns it, with any extra properties.`, additionalProperties: true };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request body, path or query parameter (unknown ones included), malformed JSON, or an admission denial (the cluster\'s message).',
  401: 'Missing or invalid session cookie or bearer token.',
  403: 'Denied by the cluster\'s RBAC for the caller\'s identity (the cluster\'s message verbatim); or the person is disabled or has no UserSpace; or a mutating cookie request without the session\'s X-CSRF-Token.',
  404: 'No object with that name (in that namespace).',
  409: 'Conflict; see the operation.',
  413: 'Request body larger than 1 MiB.',
  415: 'Request body that is not JSON.',
  429: 'Too many failed password attempts for this username; Retry-After says when to try again.',
  502: 'The cluster API failed (den manager\'s admission webhook not answering included, said as such), or refused the server a token for the caller\'s ServiceAccount.',
  503: 'The server is still starting, the caller\'s namespace is not ready yet, or the cluster API is unreachable or busy; retry after Retry-After.',
};

export const ADMIN_ONLY = 'The caller is not an administrator (a SelfSubjectAccessReview for create userspaces.den.dev with the caller\'s token is denied); or the person is disabled or has no UserSpace; or a cookie request without the session\'s X-CSRF-Token.';

/** What any request can meet before its route runs: a bad or oversized body, a server still starting, a cluster away. */
export const EVERY_REQUEST = [400, 413, 415, 503];
/** What any authenticated request can meet besides: no or a bad credential, a refused person or CSRF token, a space being removed, a failed mint. */
export const AUTHENTICATED = [401, 403, 409, 502];

const REMOVAL = `Or the caller's space (namespace) is being removed: "${SPACE_BEING_REMOVED}".`;

type Access = 'authenticated' | 'public';

/** The error answers of an operation: those SPEC 4 lists for it, and those every request (or every authenticated one) can meet. */
export function errors(codes: number[], overrides: Record<number, string> = {}, access: Access = 'authenticated'): Record<string, unknown> {
  const all = new Set([...codes, ...EVERY_REQUEST, ...(access === 'authenticated' ? AUTHENTICATED : [])]);
  return Object.fromEntries(
    [...all].sort((a, b) => a - b).map((code) => {
      const text = overrides[code] ?? STATUS_TEXT[code];
      const description = code === 409 && access === 'authenticated' ? `${text} ${REMOVAL}` : text;
      return [String(code), { description, content: { 'application/json': { schema: ref('Error') } } }];
    }),
  );
}

export const json = (schema: string, description: string) => ({ description, content: { 'application/json': { schema: ref(schema) } } });
export const body = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });
export const optionalBody = (schema: string) => ({ required: false, content: { 'application/json': { schema: ref(schema) } } });
export const noContent = (description: string) => ({ description });

export const nameParam = (what: string) => ({ name: 'name', in: 'path', required: true, description: `Name of the ${what}.`, schema: { type: 'string' } });
export const namespaceParam = (description: string) => ({ name: 'namespace', in: 'query', required: false, description, schema: LABEL_PARAMETER });
export const OTHER_NAMESPACE = 'Namespace of a visible workspace the caller does not own; the caller\'s own namespace when omitted.';

export const activityParams = [
  { name: 'person', in: 'query', required: false, description: 'Only what this person (UserSpace name) did, and what happened to workspaces in their namespace svc-<person>.', schema: LABEL_PARAMETER },
  { name: 'kind', in: 'query', required: false, description: 'Only this kind of act.', schema: { type: 'string', enum: [...ACTIVITY_KINDS] } },
  { name: 'limit', in: 'query', required: false, description: 'At most this many entries, the newest.', schema: { type: 'integer', minimum: 1, maximum: ACTIVITY_LIMIT.max, default: ACTIVITY_LIMIT.default } },
];
export const ACTIVITY_ORDER = 'Newest first. Den records as core/v1 Events on the Workspace (source.component den, so kubectl describe workspace shows them too): SSH sessions opened and closed, browser terminals opened and closed, starts and stops (by whom), resizes and deletions, shares made and removed. A burst of the same act is one entry with a count. Events expire with the cluster\'s event TTL (one hour by default).';

export function op(tag: string, summary: string, rest: Operation): Operation {
  return { tags: [tag], summary, ...rest };
}

export const PUBLIC = { security: [] };

