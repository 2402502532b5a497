// The validating webhook on UserSpace UPDATE (SPEC 1.2 rule 6, 2.4): `spec.owner` never
// changes, and a person who is not an administrator may change nothing but their SSH keys.
// Deciding who is an administrator needs the cluster (a SubjectAccessReview), so the decision
// is split: which fields changed (pure), then the verdict given the answer.
import { isDeepStrictEqual } from 'node:util';
import { checkAuthorizedKey, type KeyCheck } from '../../ssh/authorized-keys.js';
import { authorizedKeysViolations } from './authorized-keys.js';
import type { UserSpace } from './objects.js';
import type { Violation } from './violations.js';
import { policyViolations } from '../../contract/schedule.js';

/** Rewritten by `kubectl apply` on every apply, including an owner's own key edit. */
const APPLY_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

export interface UserSpaceChanges {
  ownerChanged: boolean;
  /** Every changed field an owner may not change. */
  restricted: FieldChange[];
  /** Violations of fields anyone may change (malformed new SSH keys). */
  keyViolations: Violation[];
  keysChanged: boolean;
  /** What is wrong with a changed spec.schedules (an unknown time zone, a default above the limit). */
  scheduleViolations: Violation[];
}

/** A read-scoped API token acts as this ServiceAccount (SPEC 5 rule 3). */
const READ_ONLY_IDENTITY = /^system:serviceaccount:[^:]+:session-readonly$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An absent field and an empty map or list mean the same to a person. */
function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

function fieldPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}["${key}"]`;
}

/** A field that differs: where, and its value before and after the update. */
export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

/** Leaf fields where `a` (new) and `b` (old) differ; lists compare as a whole. */
function differences(a: unknown, b: unknown, path: string, skip: (path: string) => boolean = () => false): FieldChange[] {
  if (skip(path) || (isEmpty(a) && isEmpty(b))) return [];
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences(a[k], b[k], fieldPath(path, k), skip));
  }
  return isDeepStrictEqual(a, b) ? [] : [{ path, from: b, to: a }];
}

/** A value as a person reads it in a denial, cut short so a large value cannot flood it. */
function shown(value: unknown): string {
  if (value === undefined) return 'unset';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function userSpaceChanges(object: UserSpace, oldObject: UserSpace, checkKey: (entry: unknown) => KeyCheck = checkAuthorizedKey): UserSpaceChanges {
  const spec = object.spec ?? {};
  const oldSpec = oldObject.spec ?? {};
  const ownerChanged = spec.owner !== oldSpec.owner;
  const restricted = [
    ...differences(spec, oldSpec, 'spec', (p) => p === 'spec.sshAuthorizedKeys' || p === 'spec.owner'),
    ...differences(object.metadata?.labels ?? {}, oldObject.metadata?.labels ?? {}, 'metadata.labels'),
    ...differences(object.metadata?.annotations ?? {}, oldObject.metadata?.annotations ?? {}, 'metadata.annotations', (p) => p === fieldPath('metadata.annotations', APPLY_ANNOTATION)),
    ...differences(object.metadata?.finalizers ?? [], oldObject.metadata?.finalizers ?? [], 'metadata.finalizers'),
    ...differences(object.metadata?.ownerReferences ?? [], oldObject.metadata?.ownerReferences ?? [], 'metadata.ownerReferences'),
  ];

  const keyViolations = authorizedKeysViolations(spec.sshAuthorizedKeys, oldSpec.sshAuthorizedKeys, checkKey);
  const keysChanged = differences(spec.sshAuthorizedKeys ?? [], oldSpec.sshAuthorizedKeys ?? [], 'spec.sshAuthorizedKeys').length > 0;
  const scheduleViolations = isDeepStrictEqual(spec.schedules, oldSpec.schedules) ? [] : policyViolations(spec.schedules).map((v) => ({ rule: 'schedule' as const, ...v }));
  return { ownerChanged, restricted, keyViolations, keysChanged, scheduleViolations };
}

/** Whether the decision needs to know if the requester is an administrator. */
export function needsAdminCheck(changes: UserSpaceChanges): boolean {
  return changes.restricted.length > 0;
}

export function decideUserSpaceUpdate(changes: UserSpaceChanges, requester: { username: string; isAdmin: boolean }, oldObject: UserSpace, object: UserSpace): Violation[] {
  const violations: Violation[] = [...changes.keyViolations, ...changes.scheduleViolations];
  // RBAC rule 5 binds session-readonly into the ClusterRole with `patch` on the UserSpace;
  // a read-scoped token must still not be able to add an SSH key (that is write access).
  if (READ_ONLY_IDENTITY.test(requester.username) && (changes.keysChanged || changes.restricted.length > 0 || changes.ownerChanged)) {
    violations.push({
      rule: 'read-only',
      field: changes.keysChanged ? 'spec.sshAuthorizedKeys' : (changes.restricted[0]?.path ?? 'spec.owner'),
      message: `${requester.username} is a read-scoped identity and may not change a UserSpace; use a full-scope token or sign in`,
      advice: 'This token may only read: sign in, or use a token with full scope, to change your space.',
    });
    return violations;
  }
  if (changes.ownerChanged) {
    violations.push({
      rule: 'owner-immutable',
      field: 'spec.owner',
      message: `is immutable: it is ${shown(oldObject.spec?.owner)}, the update asks for ${shown(object.spec?.owner)}; create a new UserSpace for another owner`,
      advice: `A space keeps the owner it was made for (${shown(oldObject.spec?.owner)}): for another person, create a new space.`,
    });
  }
  if (!requester.isAdmin) {
    for (const change of changes.restricted) {
      violations.push({
        rule: 'admin-only',
        field: change.path,
        message: `only an administrator may change this field (it is ${shown(change.from)}, the update asks for ${shown(change.to)}); ${requester.username} may change spec.sshAuthorizedKeys only`,
        advice: 'In your own space you may change only your saved SSH keys; ask an administrator for anything else.',
      });
    }
  }
  return violations;
}
