// Where `den login` keeps each deployment's base URL and API token: one JSON file in
// $XDG_CONFIG_HOME/den/ (else ~/.config/den/), mode 0600 in a 0700 folder, written whole
// through a temporary file so a crash never leaves half a file. Several deployments live
// side by side as named contexts; one is current.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommandError, UsageError, type DevIo } from './io.js';

export interface Context {
  /** Base URL of `den server`, without a trailing slash. */
  url: string;
  token: string;
  /** The token's name on the server, for `den logout` to revoke it. */
  tokenName: string;
  email: string;
  /** The gateway's SSH port (its host is in each workspace's status.endpoint). */
  sshPort: number;
  /** Overrides the host of status.endpoint (a gateway reached through another name). */
  sshHost?: string;
}

export interface ContextFile {
  current?: string;
  contexts: Record<string, Context>;
}

/** A context name is a DNS-label-like word: it ends every `Host <workspace>.<context>` line. */
export const CONTEXT_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function configDir(env: DevIo['env']): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'den');
}

export function contextsPath(env: DevIo['env']): string {
  return join(configDir(env), 'cli.json');
}

/** The context name a base URL gets by default: its host's first label, with the port when one is given. */
export function defaultContextName(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const first = /^[\d.:]+$/.test(host) ? host.replace(/[.:]/g, '-') : host.split('.')[0]!;
  return [first, url.port].filter(Boolean).join('-').toLowerCase();
}

/** A base URL as a person types it: http(s), no query, no fragment; the trailing slash dropped. */
export function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`"${raw}" is not a URL (give Den's address, such as https://den.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`"${raw}" must start with https:// (or http:// for a server on this machine)`);
  if (url.search || url.hash || url.username || url.password) throw new UsageError(`"${raw}" must be Den's base address, without a query, fragment or user name`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

export async function readContexts(env: DevIo['env']): Promise<ContextFile> {
  let text: string;
  try {
    text = await readFile(contextsPath(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: {} };
    throw new CommandError(`cannot read ${contextsPath(env)}: ${(err as Error).message}`);
  }
  try {
    const file = JSON.parse(text) as ContextFile;
    if (typeof file !== 'object' || file === null || typeof file.contexts !== 'object') throw new Error('no "contexts" object');
    return file;
  } catch (err) {
    throw new CommandError(`${contextsPath(env)} is not den's configuration (${(err as Error).message}); remove it and sign in again with den login`);
  }
}

export async function writeContexts(env: DevIo['env'], file: ContextFile): Promise<void> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = contextsPath(env);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** How a command names its deployment: `--context`, else `--url`, else DEN_CONTEXT, else the current one. */
export interface ContextChoice {
  context?: string;
  url?: string;
}

export function chooseContext(file: ContextFile, choice: ContextChoice, env: DevIo['env']): { name: string; context: Context } {
  const names = Object.keys(file.contexts);
  if (choice.url) {
    const url = parseBaseUrl(choice.url).href.replace(/\/$/, '');
    const found = Object.entries(file.contexts).find(([, c]) => c.url === url);
    if (!found) throw new UsageError(`not signed in to ${url} (sign in with den login ${url})`);
    return { name: found[0], context: found[1] };
  }
  const name = choice.context || env.DEN_CONTEXT || file.current;
  if (!name) throw new UsageError('not signed in to any Den (sign in with den login <base-url>)');
  const context = file.contexts[name];
  if (!context) throw new UsageError(`no context named "${name}" (${names.length ? `known: ${names.join(', ')}` : 'none yet; sign in with den login <base-url>'})`);
  return { name, context };
}
