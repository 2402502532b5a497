// Applying what the clone step read of devcontainer.json (status.devcontainer) and the person's
// dotfiles (status.dotfiles) to the workspace's pod (issue 34 parts 2 and 3): pure, from the
// decided props, the catalog's offer and the summaries to new props and the `Devcontainer` condition's
// words. The catalog stays the administrators' gate: an image is used only when an entry offers it.
import { createHash } from 'node:crypto';
import { envNameProblem } from '../../contract/personal.js';
import { isWithdrawn } from '../../contract/workspace-image.js';
import type { DevcontainerSummary, DotfilesReport } from '../../contract/devcontainer.js';
import { compareQuantities, tryParseQuantity, type Quantity } from '../../kube/quantity.js';
import type { WorkspaceChildrenProps } from './children/props.js';
import type { ConditionInput, Workspace, WorkspaceImage } from './types.js';

export const DEVCONTAINER_REASONS = { applied: 'Applied', partly: 'PartlyApplied', none: 'NotApplied' } as const;

/** Longest message kept in the condition. */
const MESSAGE_LIMIT = 3000;

export interface Applied {
  props: WorkspaceChildrenProps;
  /** The `Devcontainer` condition; absent without a devcontainer.json. */
  condition?: ConditionInput;
}

/** An entry a person may create workspaces from: not withdrawn. */
function usable(entry: WorkspaceImage, now: Date): boolean {
  return !isWithdrawn(entry.spec, now.getTime());
}

/** The image decision: the entry's own, another usable entry's that offers exactly that image, or the entry's with why. */
function chooseImage(props: WorkspaceChildrenProps, wanted: string, entryName: string, offeredBy: (image: string) => readonly WorkspaceImage[], now: Date): { props: WorkspaceChildrenProps; words: string; applied: boolean } {
  if (wanted === props.image) return { props, words: `image ${wanted}: the workspace's catalog entry "${entryName}" runs it.`, applied: true };
  const offering = offeredBy(wanted)
    .filter((e) => usable(e, now))
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[0];
  if (!offering) {
    return {
      props,
      words: `image ${wanted}: no catalog entry offers it, so the workspace keeps its entry "${entryName}" (${props.image}); ask an administrator to add the image to the catalog.`,
      applied: false,
    };
  }
  const spec = offering.spec ?? {};
  return {
    props: { ...props, image: wanted, imagePullPolicy: spec.imagePullPolicy ?? props.imagePullPolicy, imagePullSecret: spec.imagePullSecretRef?.name || undefined },
    words: `image ${wanted}: offered by catalog entry "${offering.metadata?.name ?? ''}", so the workspace runs it (with the home, user and shell of its entry "${entryName}").`,
    applied: true,
  };
}

/** devcontainer.json's sizes: `8gb`, `512mb`, `1tb` (decimal, as containers.dev reads them). */
export function devcontainerSize(text: string): Quantity | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(tb|gb|mb|kb|b)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = { tb: 'T', gb: 'G', mb: 'M', kb: 'k', b: '' }[(match[2] ?? 'b').toLowerCase() as 'tb'] ?? '';
  return tryParseQuantity(`${match[1]}${unit}`);
}

/** hostRequirements against the workspace's request: advice where it asks for less. */
function requirementWords(summary: DevcontainerSummary, workspace: Workspace): string[] {
  const wanted = summary.hostRequirements;
  if (!wanted) return [];
  const resources = workspace.spec?.resources;
  /** The workspace's CPU or memory as it wrote it: its limit, else its request. */
  const raw = (name: 'cpu' | 'memory') => resources?.limits?.[name] ?? resources?.requests?.[name];
  const has = (name: 'cpu' | 'memory') => tryParseQuantity(raw(name));
  const checks: [string, Quantity | undefined, Quantity | undefined, string, string][] = [
    ['cpus', wanted.cpus === undefined ? undefined : tryParseQuantity(String(wanted.cpus)), has('cpu'), String(wanted.cpus), 'CPU'],
    ['memory', wanted.memory === undefined ? undefined : devcontainerSize(wanted.memory), has('memory'), wanted.memory ?? '', 'memory'],
    ['storage', wanted.storage === undefined ? undefined : devcontainerSize(wanted.storage), tryParseQuantity(workspace.spec?.storage), wanted.storage ?? '', 'storage'],
  ];
  const short: string[] = [];
  const met: string[] = [];
  for (const [setting, want, got, shown, what] of checks) {
    if (want === undefined) continue;
    if (got === undefined) short.push(`${setting} ${shown} (the workspace sets no ${what} limit, so it gets what the namespace's defaults give)`);
    else if (compareQuantities(got, want) < 0) short.push(`${setting} ${shown} (the workspace has ${String(setting === 'storage' ? workspace.spec?.storage : raw(setting === 'cpus' ? 'cpu' : 'memory'))})`);
    else met.push(setting);
  }
  if (short.length === 0) return met.length > 0 ? [`hostRequirements met (${met.join(', ')}).`] : [];
  const storage = short.some((s) => s.startsWith('storage')) ? ' Storage cannot grow after creation: create a new workspace with more.' : '';
  return [`hostRequirements asks for more than this workspace has: ${short.join('; ')}. Change its size (den change, or the workspace page's Change form) so the repository's tools have room.${storage}`];
}

function listed(values: readonly string[]): string {
  return values.join(', ');
}

/**
 * The props with devcontainer.json and the dotfiles applied, and the words the condition says. A
 * summary with a problem applies nothing of the file; the dotfiles still install.
 */
export function applyDevcontainer(
  base: WorkspaceChildrenProps,
  summary: DevcontainerSummary | undefined,
  dotfiles: DotfilesReport | undefined,
  /** `offering`: the catalog entries whose spec.image is the image given (asked only for another image than the entry's). */
  context: { workspace: Workspace; entry: string; offering: (image: string) => readonly WorkspaceImage[]; now: Date },
): Applied {
  let props = base;
  const dotfilesStep = dotfiles && !dotfiles.problem ? (dotfiles.script ? `script:${dotfiles.script}` : 'link') : undefined;
  if (!summary || summary.problem) {
    if (dotfilesStep) props = { ...props, lifecycle: { folder: props.homePath, users: [], dotfiles: dotfilesStep } };
    if (!summary) return { props: stamped(props, base) };
    return {
      props: stamped(props, base),
      condition: { type: 'Devcontainer', status: 'False', reason: DEVCONTAINER_REASONS.none, message: `~/${summary.file}: ${summary.problem}; Den applies none of it.` },
    };
  }
  const words: string[] = [];
  const notApplied = [...(summary.notApplied ?? [])];
  if (summary.image) {
    const chosen = chooseImage(props, summary.image, context.entry, context.offering, context.now);
    props = chosen.props;
    words.push(chosen.words);
    if (!chosen.applied) notApplied.push({ setting: 'image', why: 'no catalog entry offers it' });
  }
  const env = Object.entries(summary.containerEnv ?? {}).filter(([name]) => {
    const problem = envNameProblem(name);
    if (problem) notApplied.push({ setting: `containerEnv.${name}`, why: 'Den sets this variable itself' });
    return !problem;
  });
  const own = new Set(props.env.map((e) => e.name));
  if (env.length > 0) {
    props = { ...props, env: [...env.filter(([name]) => !own.has(name)).map(([name, value]) => ({ name, value })), ...props.env] };
    const overridden = env.filter(([name]) => own.has(name)).map(([name]) => name);
    words.push(`containerEnv: ${listed(env.map(([n]) => n))} set in the workspace container${overridden.length > 0 ? ` (the workspace's own spec.env wins for ${listed(overridden)})` : ''}.`);
  }
  const remote = Object.keys(summary.remoteEnv ?? {});
  if (remote.length > 0) words.push(`remoteEnv: ${listed(remote)} set in SSH and terminal sessions.`);
  const users = (['containerUser', 'remoteUser'] as const).filter((k) => summary[k]).map((k) => `${k}=${summary[k]}`);
  if (users.length > 0) words.push(`${listed(users)}: checked against the image's users when the workspace starts (see the Lifecycle condition).`);
  const folder = summary.workspaceFolder ?? props.homePath;
  if (summary.workspaceFolder) words.push(`SSH shells and the terminal start in ${summary.workspaceFolder}.`);
  const once = [summary.onCreateCommand ? 'onCreateCommand' : '', summary.postCreateCommand ? 'postCreateCommand' : ''].filter(Boolean);
  if (once.length > 0) words.push(`${listed(once)}: run once, on the first start after the clone, in the workspace image.`);
  if (summary.postStartCommand) words.push('postStartCommand: run on every start, in the background.');
  if (once.length > 0 || users.length > 0 || dotfilesStep) {
    props = {
      ...props,
      lifecycle: {
        folder,
        users,
        ...(summary.onCreateCommand ? { onCreate: summary.onCreateCommand } : {}),
        ...(summary.postCreateCommand ? { postCreate: summary.postCreateCommand } : {}),
        ...(dotfilesStep ? { dotfiles: dotfilesStep } : {}),
      },
    };
  }
  if (summary.postStartCommand) props = { ...props, postStart: { folder, command: summary.postStartCommand } };
  if (summary.ports) words.push(`forwardPorts: ${listed(summary.ports.map((p) => (p.label ? `${p.port} (${p.label})` : String(p.port))))} are the workspace's apps.`);
  if (summary.extensions) words.push(`VS Code extensions the repository recommends: ${listed(summary.extensions)} (on the workspace page).`);
  words.push(...requirementWords(summary, context.workspace));
  if (notApplied.length > 0) words.push(`Not applied: ${notApplied.map((n) => `${n.setting} (${n.why})`).join('; ')}.`);
  const message = `From ~/${summary.file}: ${words.join(' ')}`;
  return {
    props: stamped(props, base),
    condition: {
      type: 'Devcontainer',
      status: 'True',
      reason: notApplied.length > 0 ? DEVCONTAINER_REASONS.partly : DEVCONTAINER_REASONS.applied,
      message: message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message,
    },
  };
}

/**
 * Marks the pod template with a digest of what changed it, so the hook can tell a pod started
 * before devcontainer.json was applied (hooks/workspace/lifecycle-status.ts) from one after.
 */
function stamped(props: WorkspaceChildrenProps, base: WorkspaceChildrenProps): WorkspaceChildrenProps {
  const applied = { image: props.image, env: props.env, lifecycle: props.lifecycle, postStart: props.postStart };
  const before = { image: base.image, env: base.env, lifecycle: base.lifecycle, postStart: base.postStart };
  if (JSON.stringify(applied) === JSON.stringify(before)) return props;
  return { ...props, appliedDigest: createHash('sha256').update(JSON.stringify(applied)).digest('hex').slice(0, 16) };
}
