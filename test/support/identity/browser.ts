// A small browser for sign-in round trips: a cookie jar (per host name, with paths and
// expiry, as browsers keep them) and redirects followed by hand, so every hop between Den and
// a provider is seen. Host names can be routed to loopback ports (`den.test` → Den).

interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
}

export interface Visit {
  status: number;
  url: string;
  body: string;
  headers: Headers;
  /** Every address visited, the last one included. */
  chain: string[];
}

export class Browser {
  private readonly jar: StoredCookie[] = [];

  /** `routes` maps a host (`den.test`, `login.microsoftonline.com`) to the loopback origin that serves it. */
  constructor(private readonly routes: Record<string, string> = {}) {}

  cookie(host: string, name: string): string | undefined {
    return this.jar.find((c) => c.host === host && c.name === name)?.value;
  }

  setCookie(host: string, name: string, value: string, path = '/'): void {
    this.store(new URL(`http://${host}${path}`), `${name}=${value}; Path=${path}`);
  }

  /** GET `url` and follow redirects. */
  get(url: string): Promise<Visit> {
    return this.visit(url, { method: 'GET' });
  }

  /** POST a form to `url` and follow redirects. */
  post(url: string, form: Record<string, string>): Promise<Visit> {
    return this.visit(url, { method: 'POST', body: new URLSearchParams(form).toString(), contentType: 'application/x-www-form-urlencoded' });
  }

  private async visit(start: string, req: { method: string; body?: string; contentType?: string }): Promise<Visit> {
    const chain: string[] = [];
    let url = new URL(start);
    let method = req.method;
    let body = req.body;
    for (let hop = 0; hop < 20; hop++) {
      chain.push(url.href);
      const headers: Record<string, string> = {};
      const cookies = this.cookiesFor(url);
      if (cookies) headers.Cookie = cookies;
      if (body !== undefined && req.contentType) headers['Content-Type'] = req.contentType;
      const res = await fetch(this.route(url), { method, headers, body, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) this.store(url, line);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        url = new URL(location, url);
        if (res.status !== 307 && res.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      return { status: res.status, url: url.href, body: await res.text(), headers: res.headers, chain };
    }
    throw new Error(`more than 20 redirects from ${start}`);
  }

  private route(url: URL): string {
    const origin = this.routes[url.host];
    return origin ? `${origin}${url.pathname}${url.search}` : url.href;
  }

  private cookiesFor(url: URL): string {
    return this.jar
      .filter((c) => c.host === url.hostname && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private store(url: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
    let expired = false;
    for (const attribute of attributes) {
      const [key = '', val = ''] = attribute.split('=').map((s) => s.trim());
      if (/^path$/i.test(key)) path = val || '/';
      if (/^max-age$/i.test(key) && Number(val) <= 0) expired = true;
      if (/^expires$/i.test(key) && Date.parse(val) < Date.now()) expired = true;
    }
    const at = this.jar.findIndex((c) => c.host === url.hostname && c.name === name && c.path === path);
    if (at >= 0) this.jar.splice(at, 1);
    if (!expired) this.jar.push({ name, value, host: url.hostname, path });
  }
}

/** The `action` of the first form on a page, resolved against the page's address. */
export function formAction(page: Visit): string {
  const m = /<form[^>]*action="([^"]+)"/i.exec(page.body);
  if (!m) throw new Error(`no form on ${page.url}: ${page.body.slice(0, 300)}`);
  return new URL(m[1]!.replaceAll('&amp;', '&'), page.url).href;
}
