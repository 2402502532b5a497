// den ls, create, start, stop, delete, logs, images: one REST call each, a table on a
// terminal or the REST answer exactly with -o json.
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import { ApiError, type DenApi, type Json } from './api.js';
import { colourOn, outputOf, table, writeJson, UsageError, type DevIo } from './io.js';
import { findKeyPair } from './keys.js';
import { connect } from './session.js';

function age(created: string | undefined, now: number): string {
  if (!created) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** The table `den ls` prints for a WorkspaceList. */
export function workspaceRows(items: Json[], now: number): string[][] {
  return items.map((w) => [
    w.metadata?.name ?? '',
    w.status?.phase ?? 'Pending',
    w.spec?.running === false ? 'no' : 'yes',
    w.spec?.imageRef?.name ?? '',
    w.spec?.resources?.limits?.cpu ?? '',
    w.spec?.resources?.limits?.memory ?? '',
    w.spec?.storage ?? '',
    w.status?.endpoint ?? '',
    age(w.metadata?.creationTimestamp, now),
  ]);
}

export const WORKSPACE_HEADER = ['NAME', 'PHASE', 'RUNNING', 'IMAGE', 'CPU', 'MEMORY', 'STORAGE', 'SSH', 'AGE'];

/** The table of `den ls`; an administrator's list spans namespaces, and then it says whose each one is. */
export function workspaceTable(items: Json[], now: number, colour: boolean): string {
  const rows = workspaceRows(items, now);
  if (new Set(items.map((w) => w.metadata?.namespace)).size <= 1) return table(WORKSPACE_HEADER, rows, colour);
  return table(['NAMESPACE', ...WORKSPACE_HEADER], rows.map((r, i) => [items[i]!.metadata?.namespace ?? '', ...r]), colour);
}

/** GET /shared-workspaces; a server from before sharing (404) has none to list. */
export async function sharedWithMe(api: DenApi): Promise<{ items: Json[] }> {
  try {
    return await api.request<{ items: Json[] }>('GET', '/shared-workspaces');
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { items: [] };
    throw err;
  }
}

/** The table of the workspaces others shared with the caller (GET /shared-workspaces). */
function sharedTable(items: Json[], now: number, colour: boolean): string {
  const rows = items.map((s) => {
    const [row] = workspaceRows([s.workspace ?? {}], now);
    return [s.ssh_user ?? '', s.owner ?? '', ...row!.slice(1, 4), age(s.workspace?.metadata?.creationTimestamp, now)];
  });
  return table(['SHARED WITH YOU', 'OWNER', 'PHASE', 'RUNNING', 'IMAGE', 'AGE'], rows, colour);
}

export async function ls(argv: string[], io: DevIo): Promise<number> {
  const { values, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS, shared: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (help) return usage(io, 'den ls [--shared] [-o json]  the workspaces you can see, then those others shared with you (--shared: only those)');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const colour = colourOn(io.stdout, io.env);
  if (values.shared) {
    const shared = await api.request<{ items: Json[] }>('GET', '/shared-workspaces');
    if (output === 'json') writeJson(io, shared);
    else if (shared.items.length === 0) io.stderr.write('nobody has shared a workspace with you\n');
    else io.stdout.write(sharedTable(shared.items, Date.now(), colour));
    return 0;
  }
  const [list, shared] = await Promise.all([api.request<{ items: Json[] }>('GET', '/workspaces'), sharedWithMe(api)]);
  if (output === 'json') writeJson(io, list);
  else if (list.items.length === 0) io.stderr.write('no workspaces yet (create one with den create <name> --image <entry>)\n');
  else io.stdout.write(workspaceTable(list.items, Date.now(), colour));
  if (output !== 'json' && shared.items.length > 0) io.stdout.write(`${list.items.length > 0 ? '\n' : ''}${sharedTable(shared.items, Date.now(), colour)}`);
  return 0;
}

/** `--env NAME=value`, repeated: the workspace's own variables (REST checks the names); the last of a name wins. */
function envOf(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--env takes NAME=value (got "${pair}")`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

export async function create(argv: string[], io: DevIo): Promise<number> {
  const options = {
    ...CONTEXT_OPTIONS,
    ...OUTPUT_OPTIONS,
    image: { type: 'string' },
    cpu: { type: 'string' },
    memory: { type: 'string' },
    gpu: { type: 'string' },
    storage: { type: 'string' },
    identity: { type: 'string', short: 'i' },
    repo: { type: 'string' },
    ref: { type: 'string' },
    'repo-path': { type: 'string' },
    env: { type: 'string', multiple: true },
    devcontainer: { type: 'string' },
  } as const;
  const { values, positionals, help } = parse(argv, options, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, 'den create <name> --image <entry> [--cpu 2] [--memory 4Gi] [--gpu 1] [--storage 10Gi] [--repo https://host/owner/repo.git|git@host:owner/repo.git [--ref <branch|tag|commit>] [--repo-path <folder in the home>] [--devcontainer <name|path.json>]] [--env NAME=value ...] [--identity ~/.ssh/id_ed25519] [-o json]');
  if (!values.image) throw new UsageError('--image is required (see den images)');
  if (!values.repo && (values.ref !== undefined || values['repo-path'] !== undefined || values.devcontainer !== undefined)) throw new UsageError('--ref, --repo-path and --devcontainer go with --repo (the repository to clone into the home)');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const { publicKey } = await findKeyPair(io.env, values.identity);
  const body: Json = { name: positionals[0], image: values.image, storage: values.storage ?? '10Gi', ssh_public_key: publicKey };
  for (const k of ['cpu', 'memory', 'gpu'] as const) if (values[k] !== undefined) body[k] = values[k];
  if (values.repo) {
    const git: Json = { url: values.repo };
    if (values.ref !== undefined) git.ref = values.ref;
    if (values['repo-path'] !== undefined) git.path = values['repo-path'];
    body.source = { git, ...(values.devcontainer !== undefined ? { devcontainer: values.devcontainer } : {}) };
  }
  if (values.env?.length) body.env = envOf(values.env);
  const created = await api.request('POST', '/workspaces', { body });
  if (output === 'json') writeJson(io, created);
  else io.stdout.write(`workspace ${created.metadata.name} created\n`);
  return 0;
}

function action(verb: 'start' | 'stop', done: string) {
  return async (argv: string[], io: DevIo): Promise<number> => {
    const { values, positionals, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 1, max: 1, names: 'the workspace name' });
    if (help) return usage(io, `den ${verb} <name> [-o json]`);
    const output = outputOf(values.output);
    const { api } = await connect(io, values);
    const answer = await api.request('POST', `/workspaces/${encodeURIComponent(positionals[0]!)}/${verb}`);
    if (output === 'json') writeJson(io, answer);
    else io.stdout.write(`workspace ${positionals[0]} ${done}\n`);
    return 0;
  };
}

export const start = action('start', 'starting');
export const stop = action('stop', 'stopping');

export async function remove(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals, help } = parse(argv, { ...CONTEXT_OPTIONS, 'keep-home': { type: 'boolean' } }, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, 'den delete <name> [--keep-home]  deletes the workspace and, unless --keep-home, its home volume');
  const { api } = await connect(io, values);
  await api.request('DELETE', `/workspaces/${encodeURIComponent(positionals[0]!)}`, { query: values['keep-home'] ? { delete_volume: 'false' } : {} });
  io.stdout.write(`workspace ${positionals[0]} deleted${values['keep-home'] ? ' (home volume kept)' : ''}\n`);
  return 0;
}

export async function logs(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS, tail: { type: 'string' } }, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, 'den logs <name> [--tail 200] [-o json]');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const answer = await api.request('GET', `/workspaces/${encodeURIComponent(positionals[0]!)}/logs`, { query: values.tail ? { tail: values.tail } : {} });
  if (output === 'json') writeJson(io, answer);
  else io.stdout.write(answer.lines.endsWith('\n') || !answer.lines ? answer.lines : `${answer.lines}\n`);
  return 0;
}

export async function images(argv: string[], io: DevIo): Promise<number> {
  const { values, help } = parse(argv, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 0, max: 0, names: '' });
  if (help) return usage(io, 'den images [-o json]  the catalog entries you may use');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const list = await api.request<{ items: Json[] }>('GET', '/workspace-images');
  if (output === 'json') writeJson(io, list);
  else {
    const rows = list.items.map((i) => [i.metadata?.name ?? '', i.spec?.displayName ?? '', i.spec?.image ?? '', i.spec?.deprecated ? 'yes' : '']);
    io.stdout.write(table(['NAME', 'TITLE', 'IMAGE', 'DEPRECATED'], rows, colourOn(io.stdout, io.env)));
  }
  return 0;
}
