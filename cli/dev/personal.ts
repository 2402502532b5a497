// den env and den git-credential: the person's own variables and git tokens, kept in their
// profile for every workspace of theirs (REST /profile/env, /profile/git-credentials). A value
// or token is read from stdin (or --value), never printed back.
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import type { Json } from './api.js';
import { colourOn, outputOf, table, UsageError, writeJson, type DevIo } from './io.js';
import { connect } from './session.js';

/** stdin up to its end, one trailing line break dropped (what `echo` and a typed line add). */
async function readValue(stdin: Readable & { isTTY?: boolean }, io: DevIo, what: string): Promise<string> {
  if (stdin.isTTY) io.stderr.write(`type the ${what}, then press Ctrl-D\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const ENV_USAGE = `den env set <NAME> [--secret] [--value <value>]   keep a variable for every workspace (value from stdin unless --value)
       den env ls [-o json]                            your variables: names, and values of those not secret
       den env rm <NAME>                               forget a variable
A workspace gets them at its next start; its own spec.env wins over them.`;

export async function env(argv: string[], io: DevIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') return usage(io, ENV_USAGE);
  if (verb === 'set') {
    const { values, positionals, help } = parse(rest, { ...CONTEXT_OPTIONS, secret: { type: 'boolean' }, value: { type: 'string' } }, { min: 1, max: 1, names: 'the variable name' });
    if (help) return usage(io, ENV_USAGE);
    const value = values.value ?? (await readValue(io.stdin, io, 'value'));
    const { api } = await connect(io, values);
    const saved = await api.request('PUT', `/profile/env/${encodeURIComponent(positionals[0]!)}`, { body: { value, secret: Boolean(values.secret) } });
    io.stderr.write(`${saved.name} saved${saved.secret ? ' as a secret: its value is not shown again' : ''}; workspaces get it at their next start\n`);
    return 0;
  }
  if (verb === 'ls') {
    const { values, help } = parse(rest, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 0, max: 0, names: '' });
    if (help) return usage(io, ENV_USAGE);
    const output = outputOf(values.output);
    const { api } = await connect(io, values);
    const list = await api.request<{ items: Json[] }>('GET', '/profile/env');
    if (output === 'json') writeJson(io, list);
    else if (list.items.length === 0) io.stderr.write('no variables yet (keep one with den env set <NAME>)\n');
    else io.stdout.write(table(['NAME', 'SECRET', 'VALUE'], list.items.map((v) => [v.name, v.secret ? 'yes' : 'no', v.secret ? '(hidden)' : v.value]), colourOn(io.stdout, io.env)));
    return 0;
  }
  if (verb === 'rm') {
    const { values, positionals, help } = parse(rest, CONTEXT_OPTIONS, { min: 1, max: 1, names: 'the variable name' });
    if (help) return usage(io, ENV_USAGE);
    const { api } = await connect(io, values);
    await api.request('DELETE', `/profile/env/${encodeURIComponent(positionals[0]!)}`);
    io.stderr.write(`${positionals[0]} removed; workspaces lose it at their next start\n`);
    return 0;
  }
  throw new UsageError(`unknown env command "${verb}" (set, ls or rm)`);
}

const GIT_USAGE = `den git-credential set <host> [--username <name>] [--protocol https|http]   keep a token for a git host (from stdin)
       den git-credential set <host> --ssh-key-file <file> --known-host '<line>'  keep an SSH key for cloning the host's SSH addresses
       den git-credential ls [-o json]                                            the hosts you keep a token or an SSH key for
       den git-credential rm <host> [--ssh-key]                                   forget a host's token (or its SSH key)
git in your workspaces uses the token (git push just works); <host> is github.com or git.example.com:8443.
The SSH key (without a passphrase) clones a workspace's git@host:owner/repo address; --known-host is one line
of ssh-keyscan <host> (ssh-keyscan -p <port> <host> for git.example.com:<port>): Den connects only to a host
showing that key. Neither is shown again.`;

/** `den git-credential set <host> --ssh-key-file … --known-host …`. */
async function setSshKey(host: string, values: { 'ssh-key-file'?: string; 'known-host'?: string }, io: DevIo, api: Awaited<ReturnType<typeof connect>>['api']): Promise<number> {
  const privateKey = await readFile(values['ssh-key-file']!, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read --ssh-key-file ${values['ssh-key-file']}: ${err.code ?? err.message}`);
  });
  const saved = await api.request('PUT', `/profile/git-credentials/${encodeURIComponent(host)}/ssh-key`, { body: { ssh_private_key: privateKey, ssh_known_host: values['known-host']! } });
  io.stderr.write(`SSH key for ${saved.host} saved; add its public half to ${saved.host} if it is not there yet:\n`);
  io.stdout.write(`${saved.public_key}\n`);
  io.stderr.write(`Den clones ${saved.host}'s SSH addresses only from a host showing the key ${saved.host_key_fingerprint}\n`);
  return 0;
}

export async function gitCredential(argv: string[], io: DevIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') return usage(io, GIT_USAGE);
  if (verb === 'set') {
    const { values, positionals, help } = parse(rest, { ...CONTEXT_OPTIONS, username: { type: 'string' }, protocol: { type: 'string' }, 'ssh-key-file': { type: 'string' }, 'known-host': { type: 'string' } }, { min: 1, max: 1, names: 'the git host' });
    if (help) return usage(io, GIT_USAGE);
    if (values['ssh-key-file'] !== undefined || values['known-host'] !== undefined) {
      if (values['ssh-key-file'] === undefined || values['known-host'] === undefined) {
        throw new UsageError(`--ssh-key-file and --known-host go together: give the key file and one line of ssh-keyscan ${positionals[0]!.replace(/^(.*):(\d+)$/, '-p $2 $1')}`);
      }
      if (values.username !== undefined || values.protocol !== undefined) throw new UsageError('--username and --protocol are for a token, not an SSH key');
      return setSshKey(positionals[0]!, values, io, (await connect(io, values)).api);
    }
    const token = (await readValue(io.stdin, io, 'token')).trim();
    if (!token) throw new UsageError('no token on stdin: pipe it in, e.g. den git-credential set github.com < token.txt');
    const { api } = await connect(io, values);
    const body: Json = { token };
    if (values.username !== undefined) body.username = values.username;
    if (values.protocol !== undefined) body.protocol = values.protocol;
    const saved = await api.request('PUT', `/profile/git-credentials/${encodeURIComponent(positionals[0]!)}`, { body });
    io.stderr.write(`token for ${saved.protocol}://${saved.host} saved (username ${saved.username}); git in your workspaces uses it\n`);
    return 0;
  }
  if (verb === 'ls') {
    const { values, help } = parse(rest, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 0, max: 0, names: '' });
    if (help) return usage(io, GIT_USAGE);
    const output = outputOf(values.output);
    const { api } = await connect(io, values);
    const list = await api.request<{ items: Json[]; ssh_keys?: Json[] }>('GET', '/profile/git-credentials');
    const sshKeys = list.ssh_keys ?? [];
    if (output === 'json') writeJson(io, list);
    else if (list.items.length === 0 && sshKeys.length === 0) io.stderr.write('no git credentials yet (keep one with den git-credential set <host>)\n');
    else {
      if (list.items.length > 0) io.stdout.write(table(['HOST', 'PROTOCOL', 'USERNAME'], list.items.map((c) => [c.host, c.protocol, c.username]), colourOn(io.stdout, io.env)));
      if (list.items.length > 0 && sshKeys.length > 0) io.stdout.write('\n');
      if (sshKeys.length > 0) io.stdout.write(table(['HOST', 'SSH KEY', 'HOST KEY'], sshKeys.map((k) => [k.host, k.public_key, k.host_key_fingerprint]), colourOn(io.stdout, io.env)));
    }
    return 0;
  }
  if (verb === 'rm') {
    const { values, positionals, help } = parse(rest, { ...CONTEXT_OPTIONS, 'ssh-key': { type: 'boolean' } }, { min: 1, max: 1, names: 'the git host' });
    if (help) return usage(io, GIT_USAGE);
    const { api } = await connect(io, values);
    await api.request('DELETE', `/profile/git-credentials/${encodeURIComponent(positionals[0]!)}${values['ssh-key'] ? '/ssh-key' : ''}`);
    io.stderr.write(`${values['ssh-key'] ? 'SSH key' : 'token'} for ${positionals[0]} removed\n`);
    return 0;
  }
  throw new UsageError(`unknown git-credential command "${verb}" (set, ls or rm)`);
}
