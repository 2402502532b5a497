// den share: share a workspace with another person (docs/sharing.md), list who it is shared
// with, or end a share. One REST call each (`/workspaces/{name}/shares[/{person}]`); the server
// writes the share with the caller's own token, so the cluster decides what they may grant.
import type { Json } from './api.js';
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import { colourOn, outputOf, table, writeJson, UsageError, type DevIo } from './io.js';
import { connect } from './session.js';

const USAGE = `den share <workspace> [<person> [--remove]] [-o json]
  den share dev bob            lets bob use workspace dev (SSH, terminal, apps; not stop, resize or delete)
  den share dev bob --remove   ends it; bob's open sessions end within seconds
  den share dev                who dev is shared with`;

export async function share(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS, remove: { type: 'boolean' } }, { min: 1, max: 2, names: 'the workspace name' });
  if (help) return usage(io, USAGE);
  const [workspace, person] = positionals as [string, string | undefined];
  if (values.remove && !person) throw new UsageError('--remove needs the person whose share ends: den share <workspace> <person> --remove');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const path = `/workspaces/${encodeURIComponent(workspace)}/shares`;
  if (!person) {
    const list = await api.request<{ items: Json[] }>('GET', path);
    if (output === 'json') writeJson(io, list);
    else if (list.items.length === 0) io.stderr.write(`workspace ${workspace} is not shared with anyone (share it with den share ${workspace} <person>)\n`);
    else io.stdout.write(table(['PERSON', 'SINCE'], list.items.map((s) => [s.person ?? '', s.created ?? '']), colourOn(io.stdout, io.env)));
    return 0;
  }
  const personPath = `${path}/${encodeURIComponent(person)}`;
  if (values.remove) {
    await api.request('DELETE', personPath);
    // REST answers 204 without a body: -o json prints nothing.
    if (output !== 'json') io.stdout.write(`workspace ${workspace} is no longer shared with ${person}; their open sessions end within seconds\n`);
    return 0;
  }
  const granted = await api.request('PUT', personPath);
  if (output === 'json') writeJson(io, granted);
  else io.stdout.write(`workspace ${workspace} shared with ${person}: they reach it as ${workspace}.${granted.owner} (den ssh ${workspace}.${granted.owner}, or ssh after den config-ssh)\n`);
  return 0;
}
