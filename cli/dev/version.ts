// den version: this den's version and the version of the Den it talks to (`GET /api/v1/version`,
// answered without signing in), with a warning when they differ and how to get the matching den.
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import { chooseContext, parseBaseUrl, readContexts } from './contexts.js';
import { CommandError, outputOf, writeJson, type DevIo } from './io.js';

/** The base URL to ask: `--url` as given (no sign-in needed), else the chosen context's; none when not signed in anywhere. */
async function serverUrl(io: DevIo, values: { context?: string; url?: string }): Promise<string | undefined> {
  if (values.url) return parseBaseUrl(values.url).href.replace(/\/$/, '');
  const file = await readContexts(io.env);
  if (!values.context && !io.env.DEN_CONTEXT && !file.current) return undefined;
  return chooseContext(file, values, io.env).context.url;
}

async function serverVersion(base: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/version`, { headers: { Accept: 'application/json' }, redirect: 'error' });
  } catch (err) {
    const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
    throw new CommandError(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const body = (await res.json().catch(() => undefined)) as { version?: unknown } | undefined;
  if (!res.ok || typeof body?.version !== 'string') throw new CommandError(`${base} did not say its version (it answered ${res.status}); is it a Den?`);
  return body.version;
}

export async function version(argv: string[], io: DevIo): Promise<number> {
  const { values, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 0, max: 0, names: '' });
  if (help) return usage(io, 'den version [-o json]  prints this den\'s version and the server\'s');
  const output = outputOf(values.output);
  const client = io.version;
  if (!client) throw new CommandError('this den was started without its version: run it as den, not through cli/dev');
  const base = await serverUrl(io, values);
  if (!base) {
    if (output === 'json') writeJson(io, { client: { version: client } });
    else io.stdout.write(`den     ${client}\n`);
    io.stderr.write('den version: not signed in to any Den, so no server version (ask one with den version --url <base-url>)\n');
    return 0;
  }
  const server = await serverVersion(base);
  if (output === 'json') writeJson(io, { client: { version: client }, server: { url: base, version: server } });
  else io.stdout.write(`den     ${client}\nserver  ${server} (${base})\n`);
  if (server !== client) {
    io.stderr.write(`den version: warning: this den is ${client} but ${base} runs ${server}; install the matching den with: curl -fsSL ${base}/cli/install.sh | sh\n`);
  }
  return 0;
}
