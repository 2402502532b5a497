// den env and den git-credential: the person's own variables and git tokens, kept in their
// profile for every workspace of theirs (REST /profile/env, /profile/git-credentials). A value
// or token is read from stdin (or --value), never printed back.
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
       den git-credential ls [-o json]                                            the hosts you keep a token for
       den git-credential rm <host>                                               forget a host's token
git in your workspaces uses it (git push just works); <host> is github.com or git.example.com:8443.`;

export async function gitCredential(argv: string[], io: DevIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') return usage(io, GIT_USAGE);
  if (verb === 'set') {
    const { values, positionals, help } = parse(rest, { ...CONTEXT_OPTIONS, username: { type: 'string' }, protocol: { type: 'string' } }, { min: 1, max: 1, names: 'the git host' });
    if (help) return usage(io, GIT_USAGE);
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
    const list = await api.request<{ items: Json[] }>('GET', '/profile/git-credentials');
    if (output === 'json') writeJson(io, list);
    else if (list.items.length === 0) io.stderr.write('no git credentials yet (keep one with den git-credential set <host>)\n');
    else io.stdout.write(table(['HOST', 'PROTOCOL', 'USERNAME'], list.items.map((c) => [c.host, c.protocol, c.username]), colourOn(io.stdout, io.env)));
    return 0;
  }
  if (verb === 'rm') {
    const { values, positionals, help } = parse(rest, CONTEXT_OPTIONS, { min: 1, max: 1, names: 'the git host' });
    if (help) return usage(io, GIT_USAGE);
    const { api } = await connect(io, values);
    await api.request('DELETE', `/profile/git-credentials/${encodeURIComponent(positionals[0]!)}`);
    io.stderr.write(`token for ${positionals[0]} removed\n`);
    return 0;
  }
  throw new UsageError(`unknown git-credential command "${verb}" (set, ls or rm)`);
}
