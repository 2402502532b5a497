// What an admission rule says when it refuses, and how a list of refusals becomes the
// Status the API server shows the person (prefixed with `admission webhook "…" denied the request: `).

export type RuleId =
  | 'namespace-owner'
  | 'image-exists'
  | 'image-on-offer'
  | 'image-root'
  | 'ssh-key'
  | 'running-needs-key'
  | 'home-volume'
  | 'volume-mount'
  | 'quantity'
  | 'request-above-limit'
  | 'extended-resource'
  | 'quota'
  | 'unique-name'
  | 'workspace-name'
  | 'storage-immutable'
  | 'owner-immutable'
  | 'admin-only'
  | 'read-only'
  | 'registry-spec'
  | 'image-apps'
  | 'source'
  | 'shared-ports'
  | 'schedule';

export interface Violation {
  rule: RuleId;
  /** Path of the offending field in the reviewed object (`spec.resources.requests.cpu`). */
  field: string;
  /** What is wrong, with the values involved; read by a person after the field name. */
  message: string;
  /**
   * The same in the words of the person who made the request, saying what happened and what
   * to do: the cause of this field carries it (the pages show it beside the field), the Status
   * message keeps `message` (REST's `{error}`, kubectl). Every rule has such words.
   */
  advice: string;
}

/**
 * One refused field as metav1.StatusCause carries it; kube-apiserver passes the causes on to
 * the client. Its message is the rule's advice to a person when the rule has one.
 */
export interface DenialCause {
  reason: 'FieldValueInvalid' | 'FieldValueForbidden';
  field: string;
  message: string;
}

export interface DenialStatus {
  code: number;
  reason: 'Forbidden' | 'Invalid' | 'InternalError';
  message: string;
  /** The refused fields, so a client shows each refusal beside its field without reading the message. */
  causes?: DenialCause[];
  /** The rules that refused, for the denial figures; never sent to the API server. */
  rules?: RuleId[];
}

/**
 * Quota refusals answer 403 Forbidden like the API server's own quota admission; any other
 * refusal is an invalid object, 422. A quota check on an invalid object means nothing, so
 * when both kinds occur only the invalid fields are reported.
 */
export function denialStatus(violations: Violation[]): DenialStatus | undefined {
  if (violations.length === 0) return undefined;
  const invalid = violations.filter((v) => v.rule !== 'quota');
  const rulesOf = (list: Violation[]) => [...new Set(list.map((v) => v.rule))];
  const causesOf = (list: Violation[], reason: DenialCause['reason']) => list.map((v) => ({ reason, field: v.field, message: v.advice }));
  if (invalid.length > 0) return { code: 422, reason: 'Invalid', message: joinMessages(invalid), causes: causesOf(invalid, 'FieldValueInvalid'), rules: rulesOf(invalid) };
  return { code: 403, reason: 'Forbidden', message: joinMessages(violations), causes: causesOf(violations, 'FieldValueForbidden'), rules: rulesOf(violations) };
}

function joinMessages(violations: Violation[]): string {
  return violations.map((v) => `${v.field}: ${v.message}`).join('; ');
}
