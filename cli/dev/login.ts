// den login and den logout. The browser way: a loopback listener with a one-time state,
// then Den's /cli/login page (signed in however the person signs in), whose form posts the
// new token to the listener; the token never appears in a URL. --token-stdin for scripts.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ApiError, DenApi } from './api.js';
import { CONTEXT_OPTIONS, parse, usage } from './args.js';
import { openBrowser } from './browser.js';
import { CONTEXT_NAME, chooseContext, defaultContextName, parseBaseUrl, readContexts, writeContexts, type Context } from './contexts.js';
import { CommandError, UsageError, type DevIo } from './io.js';
import { listenForToken } from './loopback.js';

/** How long the listener waits for the browser. */
const BROWSER_WAIT_MS = 5 * 60_000;

async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').trim();
}

function portOf(raw: string | undefined): number {
  if (raw === undefined) return 22;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) throw new UsageError(`--ssh-port must be a port number (1-65535), not "${raw}"`);
  return port;
}

async function tokenFromBrowser(io: DevIo, base: string): Promise<{ token: string; name: string }> {
  const state = randomBytes(32).toString('base64url');
  const listener = await listenForToken(state);
  try {
    const url = `${base}/cli/login?port=${listener.port}&state=${state}`;
    io.stderr.write(`Opening your browser to sign in. If it does not open, visit:\n  ${url}\n`);
    (io.openBrowser ?? ((u) => openBrowser(u, io.env)))(url);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CommandError(`no sign-in arrived from the browser within ${BROWSER_WAIT_MS / 60_000} minutes`)), BROWSER_WAIT_MS);
    });
    try {
      return await Promise.race([listener.delivered, late]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    listener.close();
  }
}

export async function login(argv: string[], io: DevIo): Promise<number> {
  const options = { name: { type: 'string' }, 'token-stdin': { type: 'boolean' }, 'ssh-port': { type: 'string' }, 'ssh-host': { type: 'string' } } as const;
  const { values, positionals, help } = parse(argv, options, { min: 1, max: 1, names: "Den's base URL (den login https://den.example.com)" });
  if (help) return usage(io, 'den login <base-url> [--name <context>] [--token-stdin] [--ssh-port 22] [--ssh-host <host>]');
  const url = parseBaseUrl(positionals[0]!);
  const base = url.href.replace(/\/$/, '');
  const name = values.name ?? defaultContextName(url);
  if (!CONTEXT_NAME.test(name)) throw new UsageError(`context name "${name}" must be lower-case letters, digits and "-" (give one with --name)`);
  const sshPort = portOf(values['ssh-port']);
  let token: string;
  let tokenName = '';
  if (values['token-stdin']) {
    token = await readAll(io.stdin);
    if (!token.startsWith('svc_')) throw new UsageError('standard input does not hold a Den API token (they start with svc_)');
  } else {
    ({ token, name: tokenName } = await tokenFromBrowser(io, base));
  }
  const session = await new DenApi(base, token).request<{ email: string; token_name?: string }>('GET', '/session');
  tokenName ||= session.token_name ?? '';
  const context: Context = { url: base, token, tokenName, email: session.email, sshPort, ...(values['ssh-host'] ? { sshHost: values['ssh-host'] } : {}) };
  const file = await readContexts(io.env);
  const previous = file.contexts[name];
  if (previous && previous.token !== token) await revoke(previous);
  file.contexts[name] = context;
  file.current = name;
  await writeContexts(io.env, file);
  io.stderr.write(`signed in to ${base} as ${session.email} (context ${name})\n`);
  return 0;
}

/** Revokes a stored token on its server; one already revoked (from the profile page, say) is fine. */
async function revoke(context: Context): Promise<void> {
  try {
    await new DenApi(context.url, context.token).request('DELETE', `/tokens/${encodeURIComponent(context.tokenName)}`);
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 404)) throw err;
  }
}

export async function logout(argv: string[], io: DevIo): Promise<number> {
  const { values, help } = parse(argv, CONTEXT_OPTIONS, { min: 0, max: 0, names: '' });
  if (help) return usage(io, 'den logout  revokes the API token on the server and forgets it here');
  const file = await readContexts(io.env);
  const { name, context } = chooseContext(file, values, io.env);
  await revoke(context);
  delete file.contexts[name];
  if (file.current === name) delete file.current;
  await writeContexts(io.env, file);
  io.stderr.write(`signed out of ${context.url} (context ${name}); its token is revoked\n`);
  return 0;
}
