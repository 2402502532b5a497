// A small Kubernetes REST client: JSON requests, server-side apply, watches and
// websocket upgrades (exec, portforward), with the API server's errors kept intact.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { http } from '../process/node-http.js';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { WebSocket } from 'ws';
import { KubeApiError, KubeUnavailableError, statusFromText, type KubeStatus } from './errors.js';
import type { KubeConnection, TlsOptions } from './connection.js';
import { opened, type MessageHandler } from './channel-ws.js';
import { resourcePath, type PathOptions, type ResourceType } from './resources.js';
import { RateLimiter, type RateLimit } from '../process/rate-limit.js';
import { sleep } from '../process/timers.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    finalizers?: string[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

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

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const DEFAULT_TIMEOUT_MS = 30_000;

/** Answers 429 (the API server's max-in-flight or priority-and-fairness queues are full) tried again, as client-go does. */
const TOO_MANY_REQUESTS_RETRIES = 10;

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

function repeatable(method: string, contentType: string | undefined): boolean {
  return REPEATABLE_METHODS.has(method) || (method === 'PATCH' && REPEATABLE_PATCHES.has(contentType ?? ''));
}

/**
 * The API server closed a kept-alive connection as this request went out on it: the request
 * never reached it, and a new connection will do (Node's documented `reusedSocket` check).
 */
function closedWhileIdle(req: ClientRequest, err: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}

/** Keep-alive agents shared by every client of one connection, keyed by their TLS material. */
class AgentPool {
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

export interface KubeClientOptions {
  /** Keep-alive sockets of this client are shared with it. */
  shared?: KubeClient;
  /**
   * Requests started per second and the burst above it (client-go's QPS and Burst): a
   * process that writes for many objects at once must not starve the API server.
   */
  rateLimit?: RateLimit;
}

export class KubeClient {
  private readonly pool: AgentPool;
  private readonly limiter: RateLimiter | undefined;

  /**
   * @param connection where the API server is and the process's own credentials
   * @param bearer a token to use instead of the connection's own credentials
   */
  constructor(
    readonly connection: KubeConnection,
    private readonly bearer?: string,
    opts: KubeClientOptions = {},
  ) {
    this.pool = opts.shared?.pool ?? new AgentPool();
    this.limiter = opts.rateLimit ? new RateLimiter(opts.rateLimit) : undefined;
  }

  /** Requests waiting for the client-side rate limit now. */
  get throttled(): number {
    return this.limiter?.queued ?? 0;
  }

  /** The same API server reached as another identity (a token minted for a person), without this client's rate limit. */
  withToken(token: string): KubeClient {
    return new KubeClient(this.connection, token, { shared: this });
  }

  private async transport(): Promise<{ agent: Agent; authorization?: string; secure: boolean; tls: TlsOptions }> {
    const { tls, authorization } = await this.connection.credentials();
    const secure = this.connection.server.startsWith('https:');
    // A forwarded token must be the only identity on the request: drop client certificates.
    const effectiveTls: TlsOptions = this.bearer ? { ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized } : tls;
    const agent = secure ? this.pool.forTls(effectiveTls) : this.pool.plain;
    return { agent, secure, tls: effectiveTls, authorization: this.bearer ? `Bearer ${this.bearer}` : authorization };
  }

  /** One request; resolves with the parsed JSON body (or the text when it is not JSON). */
  async request<T = unknown>(opts: RequestOptions): Promise<T> {
    let res = await this.send(opts);
    let text = await readBody(res);
    for (let retry = 1; res.statusCode === 429 && retry <= TOO_MANY_REQUESTS_RETRIES && !opts.signal?.aborted; retry++) {
      await sleep(retryAfterMs(res, retry), opts.signal);
      res = await this.send(opts);
      text = await readBody(res);
    }
    const status = res.statusCode ?? 0;
    const method = opts.method ?? 'GET';
    if (status < 200 || status >= 300) throw new KubeApiError(status, parseStatus(status, text), method, opts.path);
    if (!text) return undefined as T;
    const type = String(res.headers['content-type'] ?? '');
    if (type.includes('json')) return JSON.parse(text) as T;
    return text as T;
  }

  /** The raw response, for streams (watch, follow logs). The caller must consume or destroy it. */
  async send(opts: RequestOptions): Promise<IncomingMessage> {
    await this.limiter?.take(opts.signal);
    opts.signal?.throwIfAborted(); // abandoned while it waited for its turn: never sent
    const { agent, authorization, secure } = await this.transport();
    const method = opts.method ?? 'GET';
    const url = new URL(this.connection.server + opts.path + queryString(opts.query));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (authorization) headers.Authorization = authorization;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const lib = secure ? https : http;
    const attempt = (mayRetry: boolean): Promise<IncomingMessage> =>
      new Promise((resolve, reject) => {
        const req = lib.request(url, { method, headers, agent, signal: opts.signal }, resolve);
        req.setTimeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => {
          req.destroy(new KubeUnavailableError(`${method} ${opts.path}: no answer from the API server in time`));
        });
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (mayRetry && closedWhileIdle(req, err)) resolve(attempt(false));
          else if (err instanceof KubeUnavailableError || err.name === 'AbortError') reject(err);
          else reject(new KubeUnavailableError(`${method} ${opts.path}: API server unreachable (${err.message})`, { cause: err }));
        });
        if (payload !== undefined) req.write(payload);
        req.end();
      });
    return attempt(repeatable(method, opts.contentType));
  }

  get<T = KubeObject>(r: ResourceType, name: string, namespace?: string, opts: Abortable = {}): Promise<T> {
    return this.request<T>({ path: resourcePath(r, { namespace, name }), signal: opts.signal });
  }

  /** The object as the API server holds it now, or undefined when it does not exist (404). */
  async getIfExists<T = KubeObject>(r: ResourceType, name: string, namespace?: string, opts: Abortable = {}): Promise<T | undefined> {
    try {
      return await this.get<T>(r, name, namespace, opts);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** One list request; with `limit`, one page of at most that many items, and `continue` (the previous page's `metadata.continue`) for the next. */
  list<T = KubeObject>(r: ResourceType, opts: { namespace?: string; labelSelector?: string; fieldSelector?: string; resourceVersion?: string; limit?: number; continue?: string } & Abortable = {}): Promise<KubeList<T>> {
    const { namespace, signal, ...query } = opts;
    return this.request<KubeList<T>>({ path: resourcePath(r, { namespace }), query, signal });
  }

  create<T = KubeObject>(r: ResourceType, body: KubeObject, namespace?: string, query?: Query): Promise<T> {
    return this.request<T>({ method: 'POST', path: resourcePath(r, { namespace }), body, query });
  }

  replace<T = KubeObject>(r: ResourceType, body: KubeObject, opts: PathOptions & Abortable = {}): Promise<T> {
    const { signal, ...path } = opts;
    const name = path.name ?? body.metadata?.name;
    return this.request<T>({ method: 'PUT', path: resourcePath(r, { ...path, name, namespace: path.namespace ?? body.metadata?.namespace }), body, signal });
  }

  patch<T = KubeObject>(r: ResourceType, name: string, patch: unknown, opts: { namespace?: string; type?: PatchType; subresource?: string; fieldManager?: string; force?: boolean } & Abortable = {}): Promise<T> {
    const type = opts.type ?? 'merge';
    return this.request<T>({
      method: 'PATCH',
      path: resourcePath(r, { namespace: opts.namespace, name, subresource: opts.subresource }),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      query: { fieldManager: opts.fieldManager, force: opts.force },
      signal: opts.signal,
    });
  }

  /** Server-side apply of a whole desired object under one field manager. */
  apply<T = KubeObject>(r: ResourceType, body: KubeObject, fieldManager: string, opts: { subresource?: string } & Abortable = {}): Promise<T> {
    const name = body.metadata?.name;
    if (!name) throw new Error(`apply ${r.kind}: metadata.name is required`);
    return this.patch<T>(r, name, body, { namespace: body.metadata?.namespace, type: 'apply', subresource: opts.subresource, fieldManager, force: true, signal: opts.signal });
  }

  delete<T = KubeObject>(r: ResourceType, name: string, namespace?: string, body?: unknown, opts: Abortable = {}): Promise<T> {
    return this.request<T>({ method: 'DELETE', path: resourcePath(r, { namespace, name }), body, signal: opts.signal });
  }

  /**
   * Streams watch events until the server closes the stream or `signal` aborts.
   * Resolves when the stream ends; rejects with KubeApiError on a non-2xx answer
   * (a 410 Gone means the resourceVersion is too old: relist).
   */
  async watch<T = KubeObject>(path: string, query: Query, onEvent: (event: WatchEvent<T>) => void, signal?: AbortSignal): Promise<void> {
    const res = await this.send({ path, query: { ...query, watch: true, allowWatchBookmarks: true }, signal, timeoutMs: 0x7fffffff });
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const text = await readBody(res);
      throw new KubeApiError(status, parseStatus(status, text), 'GET', path);
    }
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      let done = false;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        if (err) reject(err);
        else resolve();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (!line) continue;
          let event: WatchEvent<T>;
          try {
            event = JSON.parse(line) as WatchEvent<T>;
          } catch (err) {
            res.destroy();
            finish(new KubeUnavailableError(`watch ${path}: malformed event`, { cause: err }));
            return;
          }
          if (event.type === 'ERROR') {
            const st = event.object as KubeStatus;
            res.destroy();
            finish(new KubeApiError(st.code ?? 500, st, 'GET', path));
            return;
          }
          onEvent(event);
        }
      });
      res.on('end', () => finish());
      res.on('close', () => finish());
      res.on('error', (err) => finish(err.name === 'AbortError' ? undefined : err));
      signal?.addEventListener('abort', () => {
        res.destroy();
        finish();
      }, { once: true });
    });
  }

  /**
   * Opens a websocket to a streaming subresource and waits until the API server accepted the
   * upgrade; rejects with its Status (KubeApiError) when refused.
   */
  async openStream(path: string, query: URLSearchParams, protocols: string[]): Promise<OpenStream> {
    const ws = await this.websocket(path, query, protocols);
    return { ws, onMessage: await opened(ws, path) };
  }

  /** Opens a websocket to a streaming subresource (pods/exec, pods/portforward). */
  async websocket(path: string, query: URLSearchParams, protocols: string[]): Promise<WebSocket> {
    const { authorization, tls } = await this.transport();
    const base = this.connection.server.replace(/^http/, 'ws');
    const headers: Record<string, string> = {};
    if (authorization) headers.Authorization = authorization;
    const qs = query.toString();
    return new WebSocket(`${base}${path}${qs ? `?${qs}` : ''}`, protocols, {
      headers,
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      rejectUnauthorized: tls.rejectUnauthorized,
      perMessageDeflate: false,
    });
  }
}

/** The wait a 429 asks for (Retry-After in seconds, at most 10 s), else client-go's backoff from 1 s. */
function retryAfterMs(res: IncomingMessage, retry: number): number {
  const seconds = Number(res.headers['retry-after']);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 10) * 1000;
  return Math.min(2 ** (retry - 1), 10) * 1000;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function parseStatus(status: number, text: string): KubeStatus {
  try {
    const parsed = JSON.parse(text) as KubeStatus;
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text as the message.
  }
  return statusFromText(status, text);
}

/** An accepted streaming upgrade: the websocket, and where its frames (those already received included) go. */
export interface OpenStream {
  ws: WebSocket;
  onMessage: (handler: MessageHandler) => void;
}
