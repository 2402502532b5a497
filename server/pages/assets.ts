// The web UI's static assets: every browser script in web/scripts/*.ts and stylesheet in
// web/styles/*.css is bundled by esbuild, in this process, the first time the assets are
// asked for (`den server` does it before it listens), and kept in memory. Each is served
// as /assets/<name>.<contenthash>.<ext> and may be cached forever: a change is a new name.
// Nothing comes from a CDN; packages (xterm.js) are bundled from node_modules. Images in
// web/images/ (the favicon) are served as they are, under a name with their hash too.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';
import * as esbuild from 'esbuild';

/** The source folder: beside this module's folder, both in the repository and in the compiled image (build/web). */
export const WEB_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../web');
export const ASSET_PREFIX = '/assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface Asset {
  /** Path under which it is served, `/assets/app.3KX2WQ7M.js`. */
  url: string;
  type: string;
  body: Buffer;
}

/** The built assets: `url('app.js')` is what a page links to; `get(path)` what the server sends. */
export class BuiltAssets {
  constructor(
    private readonly byName: ReadonlyMap<string, Asset>,
    private readonly byUrl: ReadonlyMap<string, Asset>,
  ) {}

  /** The hashed URL of an entry's output, by logical name: `app.js`, `den.css`, `terminal.css`. */
  url(name: string): string {
    const asset = this.byName.get(name);
    if (!asset) throw new Error(`no web asset named ${name} (known: ${[...this.byName.keys()].join(', ')})`);
    return asset.url;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(path: string): Asset | undefined {
    return this.byUrl.get(path);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }
}

async function entryPoints(root: string): Promise<string[]> {
  const list = async (dir: string, ext: string) =>
    (await readdir(join(root, dir)).catch(() => [] as string[])).filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts')).map((f) => join(root, dir, f));
  return [...(await list('scripts', '.ts')), ...(await list('styles', '.css'))];
}

/** web/images/*: served as they are, named by the same kind of hash as esbuild's outputs. */
async function images(root: string): Promise<{ name: string; asset: Asset }[]> {
  const dir = join(root, 'images');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => Object.hasOwn(CONTENT_TYPES, extname(f)));
  return Promise.all(
    files.map(async (name) => {
      const body = await readFile(join(dir, name));
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 8).toUpperCase();
      const ext = extname(name);
      return { name, asset: { url: `${ASSET_PREFIX}${name.slice(0, -ext.length)}.${hash}${ext}`, type: CONTENT_TYPES[ext]!, body } };
    }),
  );
}

/** Bundles every entry of `root` (default web/) with esbuild; throws with esbuild's messages when a source is broken. */
export async function buildAssets(root = WEB_ROOT): Promise<BuiltAssets> {
  const entries = await entryPoints(root);
  if (entries.length === 0) throw new Error(`no web assets found under ${root}`);
  const result = await esbuild.build({
    entryPoints: entries,
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    outdir: 'out',
    entryNames: '[name].[hash]',
    assetNames: '[name].[hash]',
    publicPath: ASSET_PREFIX,
    loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file' },
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    tsconfig: join(root, 'scripts/tsconfig.json'),
  });
  const byUrl = new Map<string, Asset>();
  const byPath = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const base = file.path.slice(file.path.lastIndexOf('/') + 1);
    const asset = { url: ASSET_PREFIX + base, type: CONTENT_TYPES[extname(base)] ?? 'application/octet-stream', body: Buffer.from(file.contents) };
    byUrl.set(asset.url, asset);
    byPath.set(resolve(root, 'out', base), asset);
  }
  const byName = new Map<string, Asset>();
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const logical = (p: string) => {
      const base = p.slice(p.lastIndexOf('/') + 1);
      const ext = extname(base);
      return base.slice(0, base.length - ext.length).replace(/\.[A-Z0-9]+$/, '') + ext;
    };
    const asset = byPath.get(resolve(root, out));
    if (asset) byName.set(logical(out), asset);
    if (meta.cssBundle) {
      const css = byPath.get(resolve(root, meta.cssBundle));
      if (css) byName.set(logical(meta.cssBundle), css);
    }
  }
  for (const { name, asset } of await images(root)) {
    byName.set(name, asset);
    byUrl.set(asset.url, asset);
  }
  return new BuiltAssets(byName, byUrl);
}

/** Builds on first use and keeps the result; concurrent first uses share one build. */
export class AssetStore {
  private built?: Promise<BuiltAssets>;
  constructor(private readonly root = WEB_ROOT) {}

  load(): Promise<BuiltAssets> {
    this.built ??= buildAssets(this.root);
    return this.built;
  }
}

/** Where browsers and feed readers look for an icon without reading the page. */
export const FAVICON_PATH = '/favicon.ico';

/**
 * GET/HEAD /assets/<name>.<hash>.<ext> from memory, cacheable forever; anything else under
 * /assets/ is a 404. /favicon.ico redirects to the favicon's current asset.
 */
export function serveAssets(store: AssetStore) {
  return async function assets(ctx: Context, next: Next): Promise<void> {
    if (ctx.path === FAVICON_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.redirect((await store.load()).url('favicon.svg'));
      return;
    }
    if (!ctx.path.startsWith(ASSET_PREFIX)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.type = 'text/plain';
      ctx.body = 'method not allowed';
      return;
    }
    const asset = (await store.load()).get(ctx.path);
    if (!asset) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = `no asset ${ctx.path}`;
      return;
    }
    ctx.set('Cache-Control', IMMUTABLE);
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
