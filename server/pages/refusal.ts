// What a page says about a refused change, in one place for every form: the refusing rule's
// words for a person when the webhook gave them (hooks/admission: the cause of the field it
// refused), else what the cluster's kind of answer means (a missing right, a name taken, a
// change made elsewhere at the same moment, a space being removed, a quota full or not yet counted), with the cluster's own text
// kept to fold. REST answers the same refusals with the cluster's message (koa/errors.ts).
import { ValidationError } from 'yup';
import { isAlreadyExists, isConflict, isNamespaceTerminating, KubeApiError } from '../../kube/errors.js';
import { describeError } from '../../koa/errors.js';
import { overrunInWords, quotaOverrunOf, SPACE_BEING_SET_UP, uncountedQuotaOf } from '../../kube/quota-refusal.js';
import { CLUSTER_FORBIDDEN_ADVICE } from '../../web/templates/layout.js';

export interface Refusal {
  /** The refused field of the cluster object (`spec.resources.requests.cpu`), when the answer names one. */
  field?: string;
  /** What happened and what to do, for the person. */
  said: string;
  /** The cluster's own text, when `said` is not it. */
  cluster?: string;
  /** The status the page answers with. */
  status: number;
}

/** `workspaces` → `workspace`, as the cluster names a kind in an answer. */
function kindInWords(kind: string | undefined): string {
  const word = (kind ?? '').split('.')[0]?.toLowerCase() ?? '';
  return word.endsWith('s') ? word.slice(0, -1) : word || 'object';
}

/**
 * A refusal in the person's words; a failure of the cluster or of Den itself (5xx) is not a
 * refusal and is thrown on to the error page.
 */
export function refusalOf(err: unknown): Refusal {
  const described = describeError(err);
  if (described.status >= 500) throw err;
  const { status, message } = described;
  const withCluster = (said: string, field?: string): Refusal => ({ ...(field !== undefined && { field }), said, status, ...(said !== message && { cluster: message }) });
  if (err instanceof ValidationError) return { ...(err.path && { field: err.path }), said: message, status };
  if (!(err instanceof KubeApiError) || isNamespaceTerminating(err)) return { said: message, status };
  const cause = err.body.details?.causes?.find((c) => c.field && c.message);
  if (cause) return withCluster(cause.message!, cause.field);
  if (isAlreadyExists(err)) {
    const name = err.body.details?.name;
    return withCluster(`There is already a ${kindInWords(err.body.details?.kind)}${name ? ` named ${name}` : ' of that name'}: pick another name.`, 'metadata.name');
  }
  if (isConflict(err)) return withCluster('It was changed elsewhere at the same moment, so nothing was saved: reload the page to see it as it is now, and try again.');
  const overrun = err.status === 403 ? quotaOverrunOf(err.message) : undefined;
  if (overrun) return withCluster(`Your space has no room left in its quota for this (ResourceQuota ${overrun.quota}): it needs ${overrunInWords(overrun)}. Delete what you no longer need, or ask an administrator for a larger quota.`);
  if (err.status === 403 && uncountedQuotaOf(err.message)) return withCluster(`Nothing was created, because ${SPACE_BEING_SET_UP}.`);
  if (err.status === 403) return withCluster(CLUSTER_FORBIDDEN_ADVICE);
  return { said: message, status };
}
