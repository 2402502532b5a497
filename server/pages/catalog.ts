// /catalog and /workspace-images/{name}/icon. The entries are REST's `GET /workspace-images`
// (what the person may `use`, read with their token); an icon is a redirect to its http(s)
// URL or the decoded image of a data: URL of an allowed type, never fetched by the server.
import { isWithdrawn, type WorkspaceImageSpec } from '../../contract/workspace-image.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { catalogPage, type CatalogEntry, type CatalogFilter } from '../../web/templates/catalog.js';
import { listUsableImages } from '../api/catalog.js';
import { HttpError } from '../../koa/errors.js';
import { viewerOf } from './middleware.js';
import { sendPage } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

/** An entry as the catalog shows it: past its `deprecateAt` it counts as deprecated (SPEC 2.2). */
export function catalogEntry(obj: KubeObject, now: number): CatalogEntry {
  const spec = (obj.spec ?? {}) as WorkspaceImageSpec;
  const at = spec.deprecateAt ? Date.parse(spec.deprecateAt) : NaN;
  const pastDeadline = !Number.isNaN(at) && at <= now;
  return {
    name: obj.metadata?.name ?? '',
    displayName: spec.displayName || obj.metadata?.name || '',
    description: spec.description ?? '',
    image: spec.image ?? '',
    tags: (spec.tags ?? []).filter((t) => typeof t === 'string'),
    maintainer: spec.maintainer ?? '',
    hasIcon: Boolean(spec.icon),
    deprecated: isWithdrawn(spec, now),
    deprecateAt: !Number.isNaN(at) && !pastDeadline ? new Date(at).toISOString() : undefined,
  };
}

export function matches(entry: CatalogEntry, filter: CatalogFilter): boolean {
  if (entry.deprecated && !filter.deprecated) return false;
  if (filter.tag && !entry.tags.includes(filter.tag)) return false;
  const q = filter.q.trim().toLowerCase();
  if (!q) return true;
  return [entry.name, entry.displayName, entry.description, entry.image, ...entry.tags].some((s) => s.toLowerCase().includes(q));
}

function filterOf(ctx: PageContext): CatalogFilter {
  const one = (v: unknown) => (typeof v === 'string' ? v : '');
  return { q: one(ctx.query.q).slice(0, 200), tag: one(ctx.query.tag).slice(0, 100), deprecated: one(ctx.query.deprecated) === '1' };
}

async function catalog(ctx: PageContext, deps: PageDeps): Promise<void> {
  const now = deps.now();
  const usable = (await listUsableImages(ctx.state.kube, deps.resources)).map((o) => catalogEntry(o, now));
  usable.sort((a, b) => a.displayName.localeCompare(b.displayName));
  const filter = filterOf(ctx);
  const entries = usable.filter((e) => matches(e, filter));
  const tags = [...new Set(usable.flatMap((e) => e.tags))].sort();
  sendPage(ctx, catalogPage(ctx.state.assets, viewerOf(ctx)!, { entries, tags, filter, hidden: usable.length - entries.length }));
}

/** Raster types only: an SVG could carry script, and anything else is not an icon. */
export const ICON_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MAX_ICON_BYTES = 256 * 1024;

export type IconAnswer = { redirect: string } | { type: string; body: Buffer };

/** What `spec.icon` is served as; undefined for anything not an http(s) URL or an allowed data: URL. */
export function iconAnswer(icon: string | undefined): IconAnswer | undefined {
  if (!icon) return undefined;
  if (/^https?:\/\//i.test(icon)) {
    try {
      const url = new URL(icon);
      return url.protocol === 'http:' || url.protocol === 'https:' ? { redirect: url.href } : undefined;
    } catch {
      return undefined;
    }
  }
  const m = /^data:([a-z]+\/[a-z0-9.+-]+)(;base64)?,(.*)$/is.exec(icon);
  if (!m) return undefined;
  const type = m[1]!.toLowerCase();
  if (!ICON_TYPES.has(type)) return undefined;
  let body: Buffer;
  try {
    body = m[2] ? Buffer.from(m[3]!, 'base64') : Buffer.from(decodeURIComponent(m[3]!), 'latin1');
  } catch {
    return undefined;
  }
  if (body.length === 0 || body.length > MAX_ICON_BYTES) return undefined;
  return { type, body };
}

async function icon(ctx: PageContext): Promise<void> {
  const name = ctx.params.name!;
  const obj = await ctx.state.kube.get(RESOURCES.workspaceImage, name);
  const answer = iconAnswer(((obj.spec ?? {}) as WorkspaceImageSpec).icon);
  if (!answer) throw new HttpError(404, `catalog entry ${name} has no usable icon (an http(s) URL or a data: URL of type ${[...ICON_TYPES].join(', ')})`);
  ctx.set('Cache-Control', 'private, max-age=300');
  if ('redirect' in answer) {
    ctx.redirect(answer.redirect);
    return;
  }
  ctx.set('Content-Security-Policy', "default-src 'none'");
  ctx.type = answer.type;
  ctx.body = answer.body;
}

export function mountCatalogPages(router: PageRouter, deps: PageDeps): void {
  router.get('/catalog', (ctx) => catalog(ctx, deps));
  router.get('/workspace-images/:name/icon', icon);
}
