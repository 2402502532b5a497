// Small wordings shared by the templates: ages, phases and why a workspace is not running.
import { html, type Html } from '../html.js';

/** "5 minutes ago", "3 hours ago", "2 days ago" between two instants; "just now" under a minute. */
export function ago(then: string | undefined, now: number): string {
  if (!then) return 'never';
  const ms = now - Date.parse(then);
  if (Number.isNaN(ms)) return 'unknown';
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, unit] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface WorkspaceView {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string; annotations?: Record<string, string> };
  spec?: {
    imageRef?: { name?: string };
    running?: boolean;
    storage?: string;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    sshAuthorizedKeys?: string[];
    idleTimeout?: string;
  };
  status?: { phase?: string; endpoint?: string; podName?: string; lastActivityTime?: string; conditions?: Condition[] };
}

export const PHASES = ['Pending', 'Starting', 'Running', 'Suspended', 'Failed'] as const;

export function phaseOf(ws: WorkspaceView): string {
  const phase = ws.status?.phase;
  return phase && (PHASES as readonly string[]).includes(phase) ? phase : 'Unknown';
}

export function phaseBadge(ws: WorkspaceView): Html {
  const phase = phaseOf(ws);
  return html`<span class="badge ${phase}" data-phase="${phase}">${phase}</span>`;
}

/** Why the workspace is not simply running, in the controller's words: `Reason: message`; empty when running. */
export function reasonOf(ws: WorkspaceView): string {
  const phase = phaseOf(ws);
  if (phase === 'Running') return '';
  const conditions = ws.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready' && c.status !== 'True');
  const degraded = conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
  const why = degraded ?? ready;
  if (!why) return phase === 'Unknown' ? 'The controller has not reported on this workspace yet.' : '';
  return [why.reason, why.message].filter(Boolean).join(': ');
}

/** Start makes sense for a stopped workspace, stop for one asked to run. */
export function canStart(ws: WorkspaceView): boolean {
  return ws.spec?.running === false;
}

/** A Failed workspace asked to run is restarted instead: stopped, then started once its pod is gone. */
export function canRestart(ws: WorkspaceView): boolean {
  return ws.spec?.running !== false && phaseOf(ws) === 'Failed';
}

export function canStop(ws: WorkspaceView): boolean {
  return ws.spec?.running !== false;
}

/** Why a Failed workspace cannot start, as den server classified the controller's reason (server/pages/failure.ts). */
export interface Failure {
  kind: 'image' | 'config' | 'runtime' | 'crash' | 'other';
  /** The controller's own message, with the kubelet's words in it: shown folded. */
  detail: string;
  /** The catalog entry the workspace runs: its name and, when readable, its title. */
  entry: { name: string; title?: string };
}

/** `"Ubuntu 24.04" (ubuntu)`, or `"ubuntu"` when the title is unknown. */
export function entryLabel(entry: Failure['entry']): string {
  return entry.title && entry.title !== entry.name ? `"${entry.title}" (${entry.name})` : `"${entry.name}"`;
}

/** The one sentence a Failed workspace is summed up in. */
export function failureSentence(name: string, f: Failure): string {
  switch (f.kind) {
    case 'image':
      return `${name} cannot start: the image of the catalog entry ${entryLabel(f.entry)} cannot be downloaded.`;
    case 'config':
      return `${name} cannot start: a Secret or ConfigMap it uses is missing.`;
    case 'runtime':
      return `${name} cannot start: the container runtime refuses to run the image of ${entryLabel(f.entry)}.`;
    case 'crash':
      return `${name} keeps stopping right after it starts.`;
    case 'other':
      return `${name} cannot start.`;
  }
}

/** The summary line of a card or status: the failure's sentence, or why it is not simply running. */
export function summaryOf(ws: WorkspaceView, failure: Failure | undefined): string {
  return failure ? failureSentence(ws.metadata?.name ?? '', failure) : reasonOf(ws);
}
