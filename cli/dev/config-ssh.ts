// den config-ssh: one `Host <workspace>.<context>` per workspace (and `<workspace>.<owner>.<context>`
// per workspace shared with the person) in a delimited block of
// ~/.ssh/config (or --file), so plain ssh, scp, rsync, git and editors reach the workspaces
// through the gateway. Offers to save the person's public key in their UserSpace when none
// of their saved keys is it.
import { createInterface } from 'node:readline/promises';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DenApi, Json } from './api.js';
import { CONTEXT_OPTIONS, parse, usage } from './args.js';
import { CommandError, type DevIo } from './io.js';
import { findKeyPair, homeOf, sameKey } from './keys.js';
import { connect } from './session.js';
import { sharedWithMe } from './workspaces.js';
import { BlockError, lineDiff, placeBlock, renderBlock, sharedSshHosts, sshHosts } from './ssh-config.js';

async function readIfThere(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new CommandError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** Writes through a temporary file beside it, keeping the file's mode (0600 for a new one). */
async function replaceFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.den-${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

async function ask(io: DevIo, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^(y|yes|)$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function configSsh(argv: string[], io: DevIo): Promise<number> {
  const options = { ...CONTEXT_OPTIONS, file: { type: 'string' }, 'dry-run': { type: 'boolean' }, identity: { type: 'string', short: 'i' }, 'add-key': { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } } as const;
  const { values, help } = parse(argv, options, { min: 0, max: 0, names: '' });
  if (help) return usage(io, 'den config-ssh [--file ~/.ssh/config] [--dry-run] [--identity <private key>] [--add-key]');
  const { name, context, api } = await connect(io, values);
  const keyPair = await findKeyPair(io.env, values.identity);
  const path = values.file ?? join(homeOf(io.env), '.ssh', 'config');
  const [session, list, saved, shared] = await Promise.all([
    api.request<{ namespace: string }>('GET', '/session'),
    api.request<{ items: Json[] }>('GET', '/workspaces'),
    api.request<{ items: string[] }>('GET', '/profile/ssh-keys'),
    sharedWithMe(api),
  ]);
  // An administrator lists every namespace; the block holds the person's own workspaces.
  const own = list.items.filter((w) => w.metadata?.namespace === session.namespace);
  const gateway = { host: new URL(context.url).hostname, port: context.sshPort, override: context.sshHost };
  // Then those others shared with the person: reached with the person's own profile keys (docs/sharing.md).
  const hosts = [...sshHosts(own, name, gateway), ...sharedSshHosts(shared.items, name, gateway)];
  const before = await readIfThere(path);
  let after: string;
  try {
    after = placeBlock(before, name, renderBlock(name, context.url, hosts, keyPair.identityFile));
  } catch (err) {
    if (err instanceof BlockError) throw new CommandError(`${path}: ${err.message}`);
    throw err;
  }
  if (values['dry-run']) {
    io.stdout.write(lineDiff(before, after));
    io.stderr.write(before === after ? `${path} is up to date; nothing would change\n` : `dry run: ${path} was not changed\n`);
  } else if (before === after) {
    io.stderr.write(`${path} is up to date (${hosts.length} workspace${hosts.length === 1 ? '' : 's'})\n`);
  } else {
    await replaceFile(path, after);
    io.stderr.write(`wrote ${hosts.length} host${hosts.length === 1 ? '' : 's'} to ${path}: ${hosts.map((h) => h.alias).join(', ') || '(none)'}\n`);
  }
  for (const w of own) {
    const keys: string[] = w.spec?.sshAuthorizedKeys ?? [];
    if (!keys.some((k) => sameKey(k, keyPair.publicKey))) io.stderr.write(`note: workspace ${w.metadata.name} does not accept ${keyPair.identityFile}; it was created with another key\n`);
  }
  if (!saved.items.some((k) => sameKey(k, keyPair.publicKey)) && !values['dry-run']) await offerKey(io, api, keyPair.publicKey, keyPair.identityFile, values['add-key'] || values.yes);
  return 0;
}

async function offerKey(io: DevIo, api: DenApi, publicKey: string, identityFile: string, yes: boolean | undefined): Promise<void> {
  const add = yes || (io.stdin.isTTY && (await ask(io, `Your profile has no copy of ${identityFile}.pub; new workspaces get your profile's keys. Add it? [Y/n] `)));
  if (!add) {
    io.stderr.write(`your profile has none of ${identityFile}.pub; add it with den config-ssh --add-key\n`);
    return;
  }
  await api.request('POST', '/profile/ssh-keys', { body: { key: publicKey } });
  io.stderr.write(`added ${identityFile}.pub to your profile\n`);
}
