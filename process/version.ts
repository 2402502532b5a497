// Den's version: package.json's `version`, the one number the server, the image and the CLI
// tarball it serves all carry. The laptop bundle (server/cli/bundle.ts) has it written in at
// build time, since nothing beside the bundle is Den's package.json.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __DEN_VERSION__: string | undefined;

/** The oldest Node the laptop's den runs on: its esbuild target, its engines, what install.sh and the den itself check. */
export const LAPTOP_NODE = 22;

let found: string | undefined;

/** The version of this Den: written into the bundle, else read from the nearest package.json named "den" above this module. */
export function denVersion(): string {
  if (typeof __DEN_VERSION__ === 'string') return __DEN_VERSION__;
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'den' && typeof pkg.version === 'string') return (found = pkg.version);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of den above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
