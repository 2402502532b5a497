// How one request travels to the API server: query strings, which requests may be sent again
// on a fresh connection, keep-alive agents shared per TLS material, 429 waits, bodies and the
// API server's Status.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { http } from '../process/node-http.js';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { statusFromText, type KubeStatus } from './errors.js';
import type { TlsOptions } from './connection.js';

export type Query = Record<string, string | number | boolean | undefined>;

/** `signal` abandons the request: not sent if it is still waiting for the rate limit, cut off if it is on the wire. */
export interface Abortable {
  signal?: AbortSignal;
}

export interface RequestOptions extends Abortable {
  method?: string;
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Milliseconds before the request is abandoned. */
  timeoutMs?: number;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export const DEFAULT_TIMEOUT_MS = 30_000;

/** Answers 429 (the API server's max-in-flight or priority-and-fairness queues are full) tried again, as client-go does. */
export const TOO_MANY_REQUESTS_RETRIES = 10;

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * Requests that may be sent again when the first try found its connection closed: the
 * methods HTTP defines as idempotent (RFC 9110 §9.2.2), and the patches whose second
 * application changes nothing: server-side apply and JSON merge patch (RFC 7386 sets what it
 * names). Should the first have been acted on after all, a repeated DELETE is answered 404 and
 * a write carrying a resourceVersion 409, which callers handle. POST and JSON Patch (an `add`
 * to a list adds twice) are not repeated.
 */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const REPEATABLE_PATCHES = new Set([PATCH_CONTENT_TYPES.apply, PATCH_CONTENT_TYPES.merge]);

export function repeatable(method: string, contentType: string | undefined): boolean {
  return REPEATABLE_METHODS.has(method) || (method === 'PATCH' && REPEATABLE_PATCHES.has(contentType ?? ''));
}

/**
 * The API server closed a kept-alive connection as this request went out on it: the request
 * never reached it, and a new connection will do (Node's documented `reusedSocket` check).
 */
export function closedWhileIdle(req: ClientRequest, err: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}

/** Keep-alive agents shared by every client of one connection, keyed by their TLS material. */
export class AgentPool {
  private readonly agents = new Map<string, Agent>();
  readonly plain = new http.Agent({ keepAlive: true, maxSockets: 64 });

  forTls(tls: TlsOptions): Agent {
    const key = createHash('sha256')
      .update(String(tls.ca ?? ''))
      .update('\0')
      .update(String(tls.cert ?? ''))
      .update('\0')
      .update(String(tls.key ?? ''))
      .update(tls.rejectUnauthorized === false ? '\0insecure' : '')
      .digest('hex');
    let agent = this.agents.get(key);
    if (!agent) {
      // Rotated client certificates produce a new key; the old agent's idle sockets close on their own.
      agent = new https.Agent({ keepAlive: true, maxSockets: 64, ...tls });
      this.agents.set(key, agent);
    }
    return agent;
  }
}

/** The wait a 429 asks for (Retry-After in seconds, at most 10 s), else client-go's backoff from 1 s. */
export function retryAfterMs(res: IncomingMessage, retry: number): number {
  const seconds = Number(res.headers['retry-after']);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 10) * 1000;
  return Math.min(2 ** (retry - 1), 10) * 1000;
}

export function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

export function parseStatus(status: number, text: string): KubeStatus {
  try {
    const parsed = JSON.parse(text) as KubeStatus;
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text as the message.
  }
  return statusFromText(status, text);
}
