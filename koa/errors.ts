// One middleware maps every failure to `{error}` with the right status (DESIGN.md
// "How REST maps cluster answers"). Handlers throw; nothing else writes error bodies.
import type { Context, Next } from 'koa';
import { ValidationError } from 'yup';
import { isNamespaceTerminating, KubeApiError, KubeUnavailableError } from '../kube/errors.js';
import { MintError } from '../kube/minting.js';
import { GROUP } from '../kube/group.js';
import { audit, AUDIT_ACTS } from '../process/audit.js';

/** An error whose status and message are meant for the caller as they are. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** What a person is told while their namespace is being deleted (the cluster's own words go to the log). */
export const SPACE_BEING_REMOVED = 'your space is being removed; ask an administrator if this is unexpected';

/**
 * The name of Den's own admission webhook the API server could not get an answer from (down,
 * frozen, past its timeout): with failurePolicy Fail it refuses the request with a 500
 * `failed calling webhook "<name>"`; undefined for any other answer.
 */
export function unansweredDenWebhook(err: KubeApiError): string | undefined {
  if (err.status < 500) return undefined;
  const group = GROUP.replace(/\./g, '\\.');
  return new RegExp(`failed calling webhook "([a-z0-9-]+\\.${group})"`).exec(err.message)?.[1];
}

/** The REST status for a cluster answer. */
export function restStatusOf(err: KubeApiError): number {
  switch (err.status) {
    case 400:
    case 422:
      return 400;
    case 401:
      return 401;
    case 403:
      return 403;
    case 404:
      return 404;
    case 409:
      return 409;
    case 410:
      return 409;
    case 413:
      return 413;
    case 429:
      return 503;
    default:
      return err.status >= 500 ? 502 : 400;
  }
}

export interface ErrorLogger {
  (msg: string, fields: Record<string, unknown>): void;
}

export function errorMapper(logError: ErrorLogger) {
  return async function mapErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const { status, message, headers, logged } = describeError(err);
      if (status >= 500 || logged) logError('request failed', { method: ctx.method, path: ctx.path, status, error: String((err as Error)?.message ?? err) });
      if (err instanceof KubeApiError && (err.status === 401 || err.status === 403)) {
        const caller = (ctx.state as { caller?: { email?: string; userspace?: string } }).caller;
        audit(logError, AUDIT_ACTS.clusterRefused, { person: caller?.email, userspace: caller?.userspace, request: `${err.method} ${err.path}`, status: err.status, reason: err.message });
      }
      ctx.status = status;
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      ctx.body = { error: message };
    }
  };
}

/**
 * The status, message and headers a failure is answered with (JSON for REST, a page for the
 * web UI); `logged` when the answer hides the cluster's words, which the log keeps.
 */
export function describeError(err: unknown): { status: number; message: string; headers: Record<string, string>; logged?: boolean } {
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers };
  if (err instanceof MintError) return err.retryable ? { status: 503, message: err.message, headers: { 'Retry-After': '5' } } : { status: 502, message: err.message, headers: {} };
  if (err instanceof ValidationError) return { status: 400, message: err.errors.join('; ') || err.message, headers: {} };
  if (isNamespaceTerminating(err)) return { status: 409, message: SPACE_BEING_REMOVED, headers: {}, logged: true };
  if (err instanceof KubeApiError) {
    const status = restStatusOf(err);
    const webhook = unansweredDenWebhook(err);
    if (status === 502 && webhook) {
      const message = `den manager did not answer the cluster's admission check (webhook ${webhook}), so the cluster refused the request rather than let it through unchecked; nothing was changed: try again shortly, and if it persists ask an administrator to check den manager (the cluster said: ${err.message})`;
      return { status, message, headers: {} };
    }
    if (status === 502) return { status, message: `the cluster API failed: ${err.message}`, headers: {} };
    if (status === 503) return { status, message: 'the cluster API is busy, retry shortly', headers: { 'Retry-After': '1' } };
    return { status, message: err.message, headers: {} };
  }
  if (err instanceof KubeUnavailableError) return { status: 503, message: 'the cluster API is unreachable, retry shortly', headers: { 'Retry-After': '5' } };
  const e = err as { status?: number; expose?: boolean; message?: string; type?: string };
  // Errors raised by Koa's own helpers (body parser 413/415/400) carry an exposable status.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) return { status: e.status, message: e.message ?? 'bad request', headers: {} };
  return { status: 500, message: 'internal error', headers: {} };
}
