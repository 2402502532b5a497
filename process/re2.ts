// RE2, the regular-expression engine of the patterns Den stores (ImageRegistry include,
// exclude and tag patterns), is a native module: loaded on first use, so a missing or broken
// build never stops `den --help` or a role that does not need it, and is said in one line.
import { createRequire } from 'node:module';
import type RE2Type from 're2';

export type RE2Constructor = typeof RE2Type;

let loaded: RE2Constructor | undefined;

/** The RE2 class; throws one line saying what to do when the native module cannot load. */
export function re2(): RE2Constructor {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('re2') as RE2Constructor;
  } catch (err) {
    // The loader's message spans lines; the whole of it, on one.
    const reason = (err as Error).message.replace(/\s*\n\s*/g, ' ');
    throw new Error(`the native module re2 cannot be loaded (${reason}); reinstall Den's dependencies for this Node.js version (npm ci)`);
  }
  return loaded;
}
