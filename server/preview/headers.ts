// What crosses the preview proxy in each direction. To the app: no credential of the person
// (Den's cookies and a Den bearer token are taken out, so is Den's CSRF header), no hop-by-hop
// headers, and X-Forwarded-Prefix/-Host/-Proto/-For. From the app: its cookies are confined
// to the preview's path (Path rewritten under the prefix, Domain removed, any cookie named
// like Den's dropped), and headers that would reach beyond the preview (Clear-Site-Data,
// Service-Worker-Allowed) are dropped.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { isDenCookie } from '../auth/cookie.js';
import { API_TOKEN_PREFIX } from '../auth/secrets.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** Headers an app may not send to the browser through Den's origin. */
const REFUSED_FROM_APP = new Set(['clear-site-data', 'service-worker-allowed']);

export interface ForwardedFor {
  prefix: string;
  host: string;
  proto: 'http' | 'https';
  clientAddress: string;
}

/** The `Cookie` header without Den's cookies; undefined when nothing is left. */
export function withoutDenCookies(header: string | undefined): string | undefined {
  const kept = (header ?? '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair && !isDenCookie(pair.slice(0, Math.max(pair.indexOf('='), 0)).trim()));
  return kept.length ? kept.join('; ') : undefined;
}

function isDenBearer(header: string | undefined): boolean {
  return /^Bearer\s+/i.test(header ?? '') && (header ?? '').replace(/^Bearer\s+/i, '').trim().startsWith(API_TOKEN_PREFIX);
}

/** Headers for the request to the app; `upgrade` keeps Connection/Upgrade for a websocket. */
export function requestHeadersForApp(headers: IncomingHttpHeaders, fwd: ForwardedFor, opts: { upgrade: boolean }): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = new Set((typeof headers.connection === 'string' ? headers.connection : '').split(',').map((h) => h.trim().toLowerCase()));
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (name === 'cookie' || name === 'x-csrf-token' || name.startsWith('x-forwarded-') || name === 'forwarded') continue;
    if (name === 'authorization' && isDenBearer(String(value))) continue;
    out[name] = value;
  }
  const cookie = withoutDenCookies(headers.cookie);
  if (cookie) out.cookie = cookie;
  if (opts.upgrade) {
    out.connection = 'Upgrade';
    out.upgrade = headers.upgrade ?? 'websocket';
  }
  if (fwd.prefix) out['x-forwarded-prefix'] = fwd.prefix;
  out['x-forwarded-host'] = fwd.host;
  out['x-forwarded-proto'] = fwd.proto;
  out['x-forwarded-for'] = fwd.clientAddress;
  return out;
}

/**
 * One `Set-Cookie` of the app confined to the preview: its Path put under `prefix` (kept as
 * it is on an app's own host, where `prefix` is empty), its Domain removed (so a cookie never
 * reaches Den's host nor another app's); undefined (dropped) for a cookie named like Den's, or
 * under a prefix one that must live at `/`.
 */
export function confinedCookie(setCookie: string, prefix: string): string | undefined {
  const [pair = '', ...attributes] = setCookie.split(';');
  const eq = pair.indexOf('=');
  const name = (eq < 0 ? '' : pair.slice(0, eq)).trim();
  // On its own host (no prefix) an app's `__Host-` cookie lives at `/` as it should.
  if (!name || isDenCookie(name) || (prefix && /^__host-/i.test(name))) return undefined;
  let path = '/';
  const kept: string[] = [];
  for (const attribute of attributes) {
    const [key = '', ...value] = attribute.split('=');
    const k = key.trim().toLowerCase();
    if (k === 'domain') continue;
    if (k === 'path') {
      const p = value.join('=').trim();
      if (p.startsWith('/')) path = p;
      continue;
    }
    if (attribute.trim()) kept.push(attribute.trim());
  }
  const scoped = path === '/' ? `${prefix}/` : `${prefix}${path}`;
  return [pair.trim(), `Path=${scoped}`, ...kept].join('; ');
}

/** A redirect within the app's own root (`/login`) kept inside the preview, unless the app already used the prefix. */
export function confinedLocation(location: string, prefix: string): string {
  if (!prefix || !location.startsWith('/') || location.startsWith('//')) return location;
  if (location === prefix || location.startsWith(`${prefix}/`) || location.startsWith(`${prefix}?`)) return location;
  return prefix + location;
}

/** The app's response headers as the browser gets them through Den. */
export function responseHeadersFromApp(headers: IncomingHttpHeaders, prefix: string, opts: { upgrade: boolean }): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || REFUSED_FROM_APP.has(name)) continue;
    // On Den's origin an app's opener policy could match Den's pages' and let its script read a Den page it opens.
    if (prefix && name === 'cross-origin-opener-policy') continue;
    if (HOP_BY_HOP.has(name) && !(opts.upgrade && (name === 'connection' || name === 'upgrade'))) continue;
    if (name === 'set-cookie') {
      const cookies = (Array.isArray(value) ? value : [value]).map((c) => confinedCookie(c, prefix)).filter((c): c is string => c !== undefined);
      if (cookies.length) out['set-cookie'] = cookies;
      continue;
    }
    if (name === 'location' && typeof value === 'string') {
      out.location = confinedLocation(value, prefix);
      continue;
    }
    out[name] = value;
  }
  return out;
}
