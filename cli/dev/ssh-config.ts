// The block `den config-ssh` owns in an OpenSSH config file, as pure functions: rendered from
// the workspaces, and put in place of the previous block of the same deployment, leaving
// every byte outside it as it was (as `coder config-ssh` does).
import type { Json } from './api.js';

export interface SshHost {
  alias: string;
  hostName: string;
  port: number;
  user: string;
}

export function beginMarker(context: string): string {
  return `# ------------ BEGIN den config-ssh ${context} ------------`;
}

export function endMarker(context: string): string {
  return `# ------------ END den config-ssh ${context} ------------`;
}

/** One Host per workspace: `<workspace>.<context>` through the gateway, the workspace name as the SSH user (SPEC 1.5). */
export function sshHosts(workspaces: Json[], context: string, gateway: { host: string; port: number; override?: string }): SshHost[] {
  return workspaces
    .filter((w) => typeof w.metadata?.name === 'string')
    .map((w) => {
      const name = w.metadata.name as string;
      const endpoint = typeof w.status?.endpoint === 'string' ? w.status.endpoint : '';
      const host = gateway.override || endpoint.slice(endpoint.lastIndexOf('@') + 1) || gateway.host;
      return { alias: `${name}.${context}`, hostName: host, port: gateway.port, user: name };
    })
    .sort((a, b) => a.alias.localeCompare(b.alias));
}

/**
 * One Host per workspace shared with the caller (GET /shared-workspaces): `<workspace>.<owner>.<context>`,
 * the SSH user `<workspace>.<owner>` that den gateway reads as the owner's workspace, the caller's own key.
 */
export function sharedSshHosts(shared: Json[], context: string, gateway: { host: string; port: number; override?: string }): SshHost[] {
  // The same Host lines as one's own, with the SSH user `<workspace>.<owner>` as the name.
  const asOwn = shared.filter((s) => typeof s.ssh_user === 'string').map((s) => ({ metadata: { name: s.ssh_user }, status: s.workspace?.status }));
  return sshHosts(asOwn, context, gateway);
}

/** Quotes a path for ssh_config when it holds a space. */
function configWord(value: string): string {
  return /\s/.test(value) ? `"${value}"` : value;
}

export function renderBlock(context: string, baseUrl: string, hosts: SshHost[], identityFile: string): string {
  const lines = [beginMarker(context), `# Written by den config-ssh for ${baseUrl}; run it again to update. Changes made inside this block are lost.`];
  for (const h of hosts) {
    lines.push(`Host ${h.alias}`, `  HostName ${h.hostName}`, `  Port ${h.port}`, `  User ${h.user}`, `  IdentityFile ${configWord(identityFile)}`, '  IdentitiesOnly yes');
  }
  lines.push(endMarker(context));
  return lines.join('\n') + '\n';
}

export class BlockError extends Error {
  override readonly name = 'BlockError';
}

/**
 * `text` with the deployment's block replaced by `block`, or `block` appended (after a blank
 * line) when there is none yet. A begin without its end, or two blocks, is refused rather
 * than guessed at.
 */
export function placeBlock(text: string, context: string, block: string): string {
  const begin = beginMarker(context);
  const end = endMarker(context);
  const lines = text.split('\n');
  const starts = lines.flatMap((l, i) => (l.trimEnd() === begin ? [i] : []));
  const ends = lines.flatMap((l, i) => (l.trimEnd() === end ? [i] : []));
  if (starts.length === 0 && ends.length === 0) {
    if (text === '') return block;
    return text + (text.endsWith('\n') ? '' : '\n') + '\n' + block;
  }
  if (starts.length !== 1 || ends.length !== 1 || ends[0]! < starts[0]!) {
    throw new BlockError(`the file holds ${starts.length} begin and ${ends.length} end lines of den's block for ${context}; fix them by hand (one "${begin}" before one "${end}")`);
  }
  const before = lines.slice(0, starts[0]).join('\n');
  const after = lines.slice(ends[0]! + 1).join('\n');
  return (starts[0]! > 0 ? before + '\n' : '') + block + after;
}

/** A line diff of two texts for --dry-run: the lines that change, with `-`/`+`, around their common start and end. */
export function lineDiff(before: string, after: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = [`@@ line ${head + 1} @@`];
  for (const l of a.slice(head, a.length - tail)) out.push(`-${l}`);
  for (const l of b.slice(head, b.length - tail)) out.push(`+${l}`);
  return out.join('\n') + '\n';
}
