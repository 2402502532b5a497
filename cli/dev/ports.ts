// den port share: who may open a port of a workspace through its host-based preview
// (REST PUT /workspaces/{name}/ports/{port}/share; the server checks the level and the people
// with the one set of rules, contract/port-share.ts, and says what is wrong).
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import { outputOf, UsageError, writeJson, type DevIo } from './io.js';
import { connect } from './session.js';

const PORT_USAGE = `den port share <workspace> <port> --level owner|authenticated|people|public [--people bob,carol] [-o json]
  owner: only you (the default); authenticated: every signed-in person of this Den;
  people: the Den users named in --people; public: anyone, no sign-in (only where the administrator allows it).
A shared port opens at its host-based address; the path-based one (/w/<workspace>/ports/<port>/) serves only you.`;

/** What the answer's level means, as the line after a change says it. */
const SAID: Record<string, string> = {
  owner: 'only you can open it',
  authenticated: 'every signed-in person of this Den can open it',
  public: 'anyone with the address can open it, signed in or not',
};

export async function port(argv: string[], io: DevIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') return usage(io, PORT_USAGE);
  if (verb !== 'share') throw new UsageError(`unknown port command "${verb}" (share)`);
  const { values, positionals, help } = parse(rest, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS, level: { type: 'string' }, people: { type: 'string' } }, { min: 2, max: 2, names: 'the workspace name and the port' });
  if (help) return usage(io, PORT_USAGE);
  if (!values.level) throw new UsageError('--level is required: owner, authenticated, people or public');
  const output = outputOf(values.output);
  const body = { level: values.level, ...(values.people !== undefined ? { people: values.people.split(/[\s,]+/).filter(Boolean) } : {}) };
  const { api } = await connect(io, values);
  const [workspace, portText] = positionals as [string, string];
  const shared = await api.request('PUT', `/workspaces/${encodeURIComponent(workspace)}/ports/${encodeURIComponent(portText)}/share`, { body });
  if (output === 'json') writeJson(io, shared);
  else {
    const who = shared.level === 'people' ? `${(shared.people as string[]).join(', ')} can open it` : (SAID[shared.level] ?? shared.level);
    io.stdout.write(`port ${shared.port} of ${shared.workspace}: ${who}${shared.level !== 'owner' && shared.app_url ? ` at ${shared.app_url}` : ''}\n`);
  }
  return 0;
}
