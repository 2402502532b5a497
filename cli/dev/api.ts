// Den's REST API (/api/v1, the published contract) with the person's API token, over Node's
// fetch: nothing shared with the server's code. A refusal becomes the server's `{error}`.
import { CommandError } from './io.js';

export type Json = Record<string, any>;

export class ApiError extends CommandError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class DenApi {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T = Json>(method: string, path: string, opts: { query?: Record<string, string>; body?: unknown } = {}): Promise<T> {
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}/api/v1${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.token}` };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: 'error' });
    } catch (err) {
      const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
      throw new CommandError(`cannot reach ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, refusal(res.status, text));
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/**
 * kube-apiserver's quota admission while Kubernetes has not yet counted the person's quota (a
 * new space's first seconds), which REST passes on verbatim (its 403 and message).
 */
const QUOTA_NOT_COUNTED = /\bstatus unknown for quota: /;

/** The server's `{error}`, else what the status means; 401 says how to sign in again; a quota not yet counted in words. */
function refusal(status: number, text: string): string {
  let message = '';
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's error page, say): the status below speaks instead.
    message = '';
  }
  if (status === 401) return `${message || 'not signed in'} (sign in again with den login)`;
  if (status === 403 && QUOTA_NOT_COUNTED.test(message)) return 'your space is still being set up: try again in a few seconds';
  return message || `the server answered ${status}`;
}
