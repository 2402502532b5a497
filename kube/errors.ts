// Errors a Kubernetes API call can end in. The API server's own Status body is kept
// so its message can reach a person verbatim (SPEC 5 rule 4).

export interface KubeStatus {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    /** With 429 TooManyRequests (and some 5xx): when to try again. */
    retryAfterSeconds?: number;
    /** With a DELETE's Success: the uid of the object that went. */
    uid?: string;
  };
}

/** The API server answered with a non-2xx status. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly status: number,
    readonly body: KubeStatus,
    readonly method: string,
    readonly path: string,
  ) {
    super(body.message || `${method} ${path}: HTTP ${status}`);
  }

  get reason(): string | undefined {
    return this.body.reason;
  }
}

/** The API server could not be reached or did not answer in time. */
export class KubeUnavailableError extends Error {
  override readonly name = 'KubeUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409;
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409 && err.reason === 'AlreadyExists';
}

/** The NamespaceLifecycle refusal: nothing new may be created in a namespace being deleted. */
export function isNamespaceTerminating(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 403 && !!err.body.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}

export function isGone(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 410;
}

/** A Status body for a non-JSON error answer, so callers always see the same shape. */
export function statusFromText(status: number, text: string): KubeStatus {
  const message = text.trim().slice(0, 500) || `HTTP ${status}`;
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code: status };
}
