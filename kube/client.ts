// A small Kubernetes REST client: JSON requests, server-side apply, watches and
// websocket upgrades (exec, portforward), with the API server's errors kept intact.
import type { Agent, IncomingMessage } from 'node:http';
import { http } from '../process/node-http.js';
import https from 'node:https';
import { WebSocket } from 'ws';
import { KubeApiError, KubeUnavailableError, type KubeStatus } from './errors.js';
import type { KubeConnection, TlsOptions } from './connection.js';
import { opened, type MessageHandler } from './channel-ws.js';
import { resourcePath, type PathOptions, type ResourceType } from './resources.js';
import { RateLimiter, type RateLimit } from '../process/rate-limit.js';
import { sleep } from '../process/timers.js';
import type { KubeList, KubeObject, WatchEvent } from './objects.js';
import { AgentPool, closedWhileIdle, DEFAULT_TIMEOUT_MS, parseStatus, PATCH_CONTENT_TYPES, queryString, readBody, repeatable, retryAfterMs, TOO_MANY_REQUESTS_RETRIES, type Abortable, type PatchType, type Query, type RequestOptions } from './transport.js';

// Every reader takes the API server's shapes from the client, as before they had files of their own.
export type { KubeList, KubeObject, OwnerReference, WatchEvent, WatchEventType } from './objects.js';
export { queryString, type Abortable, type PatchType, type Query, type RequestOptions } from './transport.js';

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

/** An accepted streaming upgrade: the websocket, and where its frames (those already received included) go. */
export interface OpenStream {
  ws: WebSocket;
  onMessage: (handler: MessageHandler) => void;
}
