// The `den` a laptop installs from this Den: cli/laptop.ts and the developer commands bundled
// by esbuild into one JS file (Node's own modules only, nothing from node_modules today), packed
// with a package.json (bin `den`, engines) into the tarball `npm install -g` takes. Built in this
// process on first use (`den server` builds it before it listens) and kept in memory, from the
// sources beside this module: the TypeScript in the repository, the compiled JS in the image.
import { createHash } from 'node:crypto';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { denVersion, LAPTOP_NODE } from '../../process/version.js';
import { packageTarball } from './tarball.js';

const HERE = fileURLToPath(import.meta.url);
const SOURCE_ROOT = resolve(dirname(HERE), '../..');
const ENTRY = resolve(SOURCE_ROOT, `cli/laptop${extname(HERE)}`);
/** What of Den's source the bundle may hold: the developer commands and the version. Anything else is a mistake in an import. */
const ALLOWED_SOURCES = [/^cli\/laptop\.[jt]s$/, /^cli\/dev-commands\.[jt]s$/, /^cli\/dev\/[a-z-]+\.[jt]s$/, /^process\/version\.[jt]s$/];

export interface BuiltCli {
  version: string;
  /** The gzipped npm package: package/package.json, package/den.js, package/README.md. */
  tarball: Buffer;
  /** Hex SHA-256 of the tarball: its ETag and what install.sh checks the download against. */
  sha256: string;
}

export function laptopPackageJson(version: string): string {
  const pkg = {
    name: 'den-cli',
    version,
    description: 'den: sign in to a Den and reach your workspaces (ssh, VS Code, port forwarding) from this computer',
    license: 'Apache-2.0',
    type: 'module',
    bin: { den: 'den.js' },
    engines: { node: `>=${LAPTOP_NODE}` },
  };
  return JSON.stringify(pkg, null, 2) + '\n';
}

const README = `# den

The command line of Den, installed from a Den deployment (\`<base-url>/cli/install.sh\` or
\`npm install -g <base-url>/cli/den.tgz\`). Sign in with \`den login <base-url>\`, then
\`den ls\`, \`den ssh <workspace>\`, \`den --help\`. \`den version\` compares this den with the server's.
`;

async function bundle(version: string): Promise<Buffer> {
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${LAPTOP_NODE}`,
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { __DEN_VERSION__: JSON.stringify(version) },
    banner: { js: '#!/usr/bin/env node' },
  });
  const strays = Object.keys(result.metafile.inputs)
    .map((input) => relative(SOURCE_ROOT, resolve(process.cwd(), input)).split(sep).join('/'))
    .filter((input) => !input.includes('node_modules/') && !ALLOWED_SOURCES.some((allowed) => allowed.test(input)));
  if (strays.length) throw new Error(`the laptop den would carry more of Den than its commands: ${strays.join(', ')}`);
  return Buffer.from(result.outputFiles[0]!.contents);
}

export async function buildCli(version = denVersion()): Promise<BuiltCli> {
  const tarball = packageTarball([
    { path: 'package.json', body: Buffer.from(laptopPackageJson(version)) },
    { path: 'den.js', body: await bundle(version), mode: 0o755 },
    { path: 'README.md', body: Buffer.from(README) },
  ]);
  return { version, tarball, sha256: createHash('sha256').update(tarball).digest('hex') };
}

/** The laptop den, built once per process on first use. */
export class CliPackage {
  private built?: Promise<BuiltCli>;
  constructor(private readonly version = denVersion()) {}

  load(): Promise<BuiltCli> {
    this.built ??= buildCli(this.version);
    return this.built;
  }
}
