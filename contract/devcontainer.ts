// What the clone step read of a repository's devcontainer.json (issue 34 part 2), carried to the
// Workspace hook in the clone init container's termination message and kept in the Workspace's
// `status.devcontainer` (docs/workspace-source.md "devcontainer.json"). The clone step writes it
// (source/devcontainer.ts), the hook renders the pod from it (hooks/workspace/devcontainer.ts),
// the session target and the apps API read it. Every reader checks what it reads.
import { APP_LIMITS, type DeclaredApp } from './workspace-image-rules.js';

/** One app from `forwardPorts`, labelled by `portsAttributes`. */
export interface DevcontainerPort {
  port: number;
  label?: string;
}

export interface DevcontainerSummary {
  /** The file read, relative to the home (`api/.devcontainer/devcontainer.json`). */
  file: string;
  /** Why nothing of it applies (unreadable, not found, too large); the other fields are then absent. */
  problem?: string;
  image?: string;
  containerEnv?: Record<string, string>;
  remoteEnv?: Record<string, string>;
  containerUser?: string;
  remoteUser?: string;
  /** Where sessions and lifecycle commands start: an absolute path inside the home. */
  workspaceFolder?: string;
  /** Shell scripts (a command array or an object of commands already turned into one). */
  onCreateCommand?: string;
  postCreateCommand?: string;
  postStartCommand?: string;
  ports?: DevcontainerPort[];
  /** customizations.vscode.extensions. */
  extensions?: string[];
  hostRequirements?: { cpus?: number; memory?: string; storage?: string };
  /** Settings (or parts of one, `remoteEnv.PATH`) Den did not apply, each with why. */
  notApplied?: { setting: string; why: string }[];
}

/** What the clone step reports in its termination message: its sentence and what it read. */
export interface CloneReport {
  message: string;
  devcontainer?: DevcontainerSummary;
  dotfiles?: DotfilesReport;
}

/** The person's dotfiles repository as the clone step left it in ~/.dotfiles (part 3). */
export interface DotfilesReport {
  url: string;
  /** Cloned on this start (the install script is still to run), or on an earlier one. */
  fresh: boolean;
  /** The install script it found (`install.sh`, ...), or absent: its dot files are linked. */
  script?: string;
  /** The clone failed: what happened. */
  problem?: string;
}

/** The kubelet keeps at most 4096 bytes of a termination message; the report must fit under this. */
export const CLONE_REPORT_LIMIT = 4000;

/** Where Den keeps the lifecycle commands' output, relative to the home. */
export const LIFECYCLE_LOG_DIR = '.den/logs';
/** Written after onCreateCommand and postCreateCommand ran (or failed): a later start runs neither again. */
export const LIFECYCLE_MARKER = '.den/lifecycle-created.json';
/** Written after the dotfiles' install script ran or its dot files were linked. */
export const DOTFILES_MARKER = '.den/dotfiles-installed.json';
/** The name of the init container that runs the once-only commands in the workspace image. */
export const LIFECYCLE_CONTAINER = 'lifecycle';

/** A user name Den checks in the image's /etc/passwd (POSIX portable names). */
export const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

/** Reads a CloneReport from a termination message: JSON from this version, plain words from an older clone step or a crash. */
export function parseCloneReport(text: string): CloneReport {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Partial<CloneReport>;
      if (typeof parsed.message === 'string') {
        return {
          message: parsed.message,
          ...(isSummary(parsed.devcontainer) ? { devcontainer: parsed.devcontainer } : {}),
          ...(isDotfiles(parsed.dotfiles) ? { dotfiles: parsed.dotfiles } : {}),
        };
      }
    } catch {
      // Words that happen to start with a brace.
    }
  }
  return { message: text };
}

export function isSummary(value: unknown): value is DevcontainerSummary {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { file?: unknown }).file === 'string';
}

export function isDotfiles(value: unknown): value is DotfilesReport {
  return typeof value === 'object' && value !== null && typeof (value as { url?: unknown }).url === 'string';
}

/** A map of strings from status, or {} for anything else. */
export function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** On the workspace pod's template: a digest of what devcontainer.json and the dotfiles changed in it. */
export const DEVCONTAINER_APPLIED_ANNOTATION = 'den.dev/devcontainer-applied';

/**
 * The workspace's apps: its catalog entry's (spec.apps), then devcontainer.json's forwardPorts
 * labelled by portsAttributes (a port or name the entry already has is not repeated).
 */
export function workspaceApps(entryApps: readonly DeclaredApp[], devcontainer: unknown): DeclaredApp[] {
  if (!isSummary(devcontainer) || devcontainer.problem || !Array.isArray(devcontainer.ports)) return [...entryApps];
  const apps = [...entryApps];
  for (const { port, label } of devcontainer.ports) {
    if (!Number.isInteger(port) || port < APP_LIMITS.portMin || port > APP_LIMITS.portMax || apps.length >= APP_LIMITS.maxApps) continue;
    const name = typeof label === 'string' && label.trim() !== '' && !/[\x00-\x1f\x7f]/.test(label) ? label.trim().slice(0, APP_LIMITS.nameMaxLength) : `Port ${port}`;
    if (apps.some((a) => a.port === port || a.name === name)) continue;
    apps.push({ name, port });
  }
  return apps;
}
