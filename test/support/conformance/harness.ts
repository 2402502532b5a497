// One side of the conformance test: raw HTTP requests to an API server (the fake, or the real
// one of the run) as its administrator or as a bearer token, and watches read line by line;
// answers are normalised only where two servers legitimately differ (uids, timestamps,
// resourceVersions' values, the namespace's random name).
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';

export interface Answer {
  code: number;
  body: any;
}

export interface WatchEvents {
  /** The events read so far, as `TYPE name`. */
  events: string[];
  /** Resolves once `n` events have arrived (rejects after 10 s). */
  until(n: number): Promise<string[]>;
  close(): void;
}

/** An API server as the cases see it. */
export class Side {
  /** The namespace the cases write in, created by prepare(), removed by cleanUp(). */
  readonly ns = `conf-${randomBytes(4).toString('hex')}`;

  constructor(
    readonly name: 'fake' | 'real',
    private readonly url: string,
    private readonly adminToken: string,
    private readonly ca?: string,
  ) {}

  request(method: string, path: string, body?: unknown, contentType = 'application/json', token = this.adminToken): Promise<Answer> {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = this.transport(path, method, token, { 'content-type': contentType, ...(data !== undefined ? { 'content-length': String(Buffer.byteLength(data)) } : {}) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: parsed(text) }));
      });
      req.on('error', reject);
      req.end(data);
    });
  }

  /** A namespaced path of this side's namespace: `/api/v1/namespaces/<ns>/<rest>`. */
  core(rest: string): string {
    return `/api/v1/namespaces/${this.ns}/${rest}`;
  }

  watch(path: string): WatchEvents {
    const events: string[] = [];
    const waiters: { n: number; resolve: (e: string[]) => void }[] = [];
    let buffer = '';
    const req = this.transport(path, 'GET', this.adminToken, {}, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 1);
          if (!line.trim()) continue;
          const e = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
          if (e.type === 'BOOKMARK') continue;
          events.push(`${e.type} ${e.object.metadata?.name ?? ''}`);
          for (const w of waiters.filter((x) => events.length >= x.n)) w.resolve(events.slice());
        }
      });
    });
    req.on('error', () => {});
    req.end();
    return {
      events,
      until: (n) =>
        events.length >= n
          ? Promise.resolve(events.slice())
          : new Promise((resolve, reject) => {
              waiters.push({ n, resolve });
              setTimeout(() => reject(new Error(`${this.name}: ${n} watch events expected, got ${JSON.stringify(events)}`)), 10_000).unref();
            }),
      close: () => req.destroy(),
    };
  }

  async prepare(): Promise<void> {
    const made = await this.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.ns } });
    if (made.code !== 201) throw new Error(`${this.name}: namespace ${this.ns} not created: ${JSON.stringify(made.body)}`);
  }

  /** Creates a CRD and waits until the API server serves it (Established). */
  async installCrd(crd: { metadata: { name: string } }): Promise<void> {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const made = await this.request('POST', path, crd);
    if (made.code !== 201 && made.code !== 409) throw new Error(`${this.name}: CRD ${crd.metadata.name} not created: ${JSON.stringify(made.body)}`);
    for (let i = 0; i < 100; i++) {
      const got = (await this.request('GET', `${path}/${crd.metadata.name}`)).body;
      if (got?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.name}: CRD ${crd.metadata.name} never Established`);
  }

  async cleanUp(): Promise<void> {
    await this.request('DELETE', `/api/v1/namespaces/${this.ns}`);
  }

  /** The answer with what legitimately differs between two servers replaced by placeholders. */
  normalise(value: unknown): unknown {
    const text = JSON.stringify(value ?? null)
      .replaceAll(this.ns, '<ns>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
      .replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"<rv>"')
      .replace(/in record \(\d+\)/g, 'in record (<rv>)');
    return JSON.parse(text) as unknown;
  }

  private transport(path: string, method: string, token: string, headers: Record<string, string>, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
    const u = new URL(this.url + path);
    const options = { host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent: false, headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': 'conformance/1.0', ...headers } } as const;
    return this.ca ? https.request({ ...options, ca: this.ca }, onResponse) : http.request(options, onResponse);
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A Status answer reduced to what a client reads of it. */
export function statusOf(a: Answer): { code: number; reason?: string; message?: string; details?: unknown } {
  const b = a.body as { kind?: string; reason?: string; message?: string; details?: unknown };
  if (b?.kind !== 'Status') return { code: a.code };
  return { code: a.code, reason: b.reason, message: b.message, details: b.details };
}

/** managedFields reduced to who owns what (no times). */
export function owners(o: any): unknown {
  return ((o?.metadata?.managedFields ?? []) as any[]).map((e) => ({ manager: e.manager, operation: e.operation, subresource: e.subresource, fieldsV1: e.fieldsV1 })).sort((a, b) => `${a.manager}${a.operation}`.localeCompare(`${b.manager}${b.operation}`));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
