// Where a shell into a Workspace goes (SPEC 1.5 steps 4 and 5), for every reader that opens
// one: the SSH gateway (gateway/target.ts, with its own token and cached images) and the
// browser terminal (server/terminal/target.ts, with the person's own token). One step,
// resolveSessionTarget: read the Workspace, Running?, read its pod, the image's shell and home;
// each reader words the refusals its own way. The Workspace must be Running,
// the pod comes from status.podName (else <name>-0) and must carry den.dev/workspace=<name>;
// the shell and home come from its WorkspaceImage. Nothing here comes from client input.
import type { KubeClient, KubeObject } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import { RESOURCES } from '../kube/resources.js';
import { defaultPodName, LABELS } from '../kube/group.js';
import { WORKSPACE_CONTAINER } from '../contract/workspace.js';
import type { Workspace } from '../contract/workspace.js';
import { WORKSPACE_IMAGE_DEFAULTS, type WorkspaceImage } from '../contract/workspace-image.js';
import { isSummary, stringRecord } from '../contract/devcontainer.js';

export interface WorkspacePod extends KubeObject {
  spec?: { containers?: { name?: string }[]; nodeName?: string };
}

/** Where a shell runs: the pod and container of a Workspace, and the image's shell and home. */
export interface SessionTarget {
  namespace: string;
  workspace: string;
  pod: string;
  container?: string;
  shell: string;
  homePath: string;
  /** Where sessions start: devcontainer.json's workspaceFolder (status.devcontainer); the home when absent. */
  startDir?: string;
  /** devcontainer.json's remoteEnv, for SSH and terminal sessions. */
  remoteEnv?: [string, string][];
}

/** What the repository's devcontainer.json asks of sessions (status.devcontainer), when the workspace read one. */
export function sessionSettings(ws: Workspace): Pick<SessionTarget, 'startDir' | 'remoteEnv'> {
  const summary = ws.status?.devcontainer;
  if (!isSummary(summary) || summary.problem) return {};
  const folder = summary.workspaceFolder;
  const remoteEnv = Object.entries(stringRecord(summary.remoteEnv));
  return {
    ...(typeof folder === 'string' && folder.startsWith('/') && !/[\x00-\x1f]/.test(folder) ? { startDir: folder } : {}),
    ...(remoteEnv.length > 0 ? { remoteEnv } : {}),
  };
}

export function podNameOf(ws: Workspace): string {
  const fromStatus = ws.status?.podName;
  return typeof fromStatus === 'string' && fromStatus ? fromStatus : defaultPodName(ws.metadata?.name ?? '');
}

/** Why a Workspace cannot take sessions now, or undefined when it is Running. */
export function notRunningMessage(ws: Workspace): string | undefined {
  const phase = ws.status?.phase;
  if (phase === 'Running') return undefined;
  const name = ws.metadata?.name ?? '';
  if (phase === 'Starting' || phase === 'Pending') return `workspace ${name} is ${phase}; try again when it is Running`;
  if (phase === 'Failed') return `workspace ${name} is Failed; see its status in the web UI`;
  return `workspace ${name} is ${phase || 'not running'}; start it first`;
}

/** Why `pod` is not a target for workspace `name`, or undefined when it is. */
export function podMismatchMessage(pod: WorkspacePod, name: string): string | undefined {
  if (pod.metadata?.labels?.[LABELS.workspace] === name) return undefined;
  return `pod ${pod.metadata?.name ?? ''} does not carry the label ${LABELS.workspace}=${name}; refusing to connect`;
}

/** The container to exec into: the one named `workspace`, else the pod's only/first one. */
export function containerOf(pod: WorkspacePod): string | undefined {
  const containers = pod.spec?.containers ?? [];
  const named = containers.find((c) => c.name === WORKSPACE_CONTAINER);
  return named?.name ?? containers[0]?.name;
}

export function shellAndHome(image: WorkspaceImage | undefined): { shell: string; homePath: string } {
  const shell = image?.spec?.shell;
  const homePath = image?.spec?.homePath;
  return {
    shell: typeof shell === 'string' && shell.startsWith('/') ? shell : WORKSPACE_IMAGE_DEFAULTS.shell,
    homePath: typeof homePath === 'string' && homePath.startsWith('/') ? homePath : WORKSPACE_IMAGE_DEFAULTS.homePath,
  };
}

/** How a reader refuses a session at each step (each returns the error to throw) and finds the image. */
export interface SessionSteps {
  /** The Workspace does not exist. */
  workspaceMissing(): Error;
  /** Reading the Workspace failed otherwise. */
  workspaceUnreadable(err: unknown): Error;
  /** A check of the fresh Workspace before anything else (the gateway's: it still authorizes the key); throws to refuse. */
  checkWorkspace?(ws: Workspace): void;
  notRunning(message: string): Error;
  podMissing(podName: string): Error;
  podUnreadable(podName: string, err: unknown): Error;
  podMismatch(message: string): Error;
  /** The WorkspaceImage of that name, or undefined (its defaults apply); may throw to refuse. */
  image(name: string): Promise<WorkspaceImage | undefined> | WorkspaceImage | undefined;
}

/** Where a session goes, with the Workspace's uid (Events and minted tokens are keyed by it). */
export interface ResolvedSession extends SessionTarget {
  workspaceUid?: string;
}

/** Reads Workspace `namespace/name` and its pod with `client` and says where a shell goes, or throws what `steps` words. */
export async function resolveSessionTarget(client: KubeClient, namespace: string, name: string, steps: SessionSteps): Promise<ResolvedSession> {
  let ws: Workspace;
  try {
    ws = await client.get<Workspace>(RESOURCES.workspace, name, namespace);
  } catch (err) {
    throw isNotFound(err) ? steps.workspaceMissing() : steps.workspaceUnreadable(err);
  }
  steps.checkWorkspace?.(ws);
  const notRunning = notRunningMessage(ws);
  if (notRunning) throw steps.notRunning(notRunning);

  const podName = podNameOf(ws);
  let pod: WorkspacePod;
  try {
    pod = await client.get<WorkspacePod>(RESOURCES.pod, podName, namespace);
  } catch (err) {
    throw isNotFound(err) ? steps.podMissing(podName) : steps.podUnreadable(podName, err);
  }
  const mismatch = podMismatchMessage(pod, name);
  if (mismatch) throw steps.podMismatch(mismatch);

  const imageName = ws.spec?.imageRef?.name ?? '';
  const image = imageName ? await steps.image(imageName) : undefined;
  const uid = ws.metadata?.uid;
  return { namespace, workspace: name, pod: podName, container: containerOf(pod), ...shellAndHome(image), ...sessionSettings(ws), ...(uid ? { workspaceUid: uid } : {}) };
}
