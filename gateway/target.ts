// Where an authenticated SSH session goes (SPEC 1.5 steps 4 and 5): the Workspace is
// re-fetched and must be Running, the pod comes from status.podName (else <name>-0) and
// must carry den.dev/workspace=<name>. Nothing here comes from client input except the
// username, which only selects among Workspaces whose keys the client proved it holds.
import type { KubeClient, KubeObject } from '../kube/client.js';
import { isNotFound, KubeApiError } from '../kube/errors.js';
import { defaultPodName, LABELS } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';
import { WORKSPACE_CONTAINER } from '../infra/children/workspace/props.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../infra/crds/workspace-image.js';
import { findAuthorizedKey, type OfferedKey } from './keys.js';
import type { Workspace, WorkspaceImage } from './workspaces.js';

export interface SessionTarget {
  namespace: string;
  workspace: string;
  pod: string;
  container?: string;
  shell: string;
  homePath: string;
}

/**
 * The session is refused. `message` is shown to the person (on the SSH banner); it is
 * only ever set after the client proved it holds an authorized key, so it reveals nothing
 * to someone probing for workspace names. Without a message the refusal is the generic one.
 */
export class SessionRefused extends Error {
  override readonly name = 'SessionRefused';
  constructor(readonly userMessage: string | undefined, logMessage: string) {
    super(logMessage);
  }
}

interface Pod extends KubeObject {
  spec?: { containers?: { name?: string }[] };
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
export function podMismatchMessage(pod: Pod, name: string): string | undefined {
  if (pod.metadata?.labels?.[LABELS.workspace] === name) return undefined;
  return `pod ${pod.metadata?.name ?? ''} does not carry the label ${LABELS.workspace}=${name}; refusing to connect`;
}

/** The container to exec into: the one named `workspace`, else the pod's only/first one. */
export function containerOf(pod: Pod): string | undefined {
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

export interface ResolveDeps {
  client: KubeClient;
  /** The cached WorkspaceImage of that name (cluster-scoped). */
  image: (name: string) => WorkspaceImage | undefined;
}

function unavailable(what: string, err: unknown): SessionRefused {
  const detail = err instanceof KubeApiError ? `HTTP ${err.status}: ${err.message}` : (err as Error).message;
  return new SessionRefused('den gateway cannot reach the cluster API right now; try again shortly', `${what}: ${detail}`);
}

/** Re-fetches the Workspace and its pod and says where the session goes, or throws SessionRefused. */
export async function resolveTarget(deps: ResolveDeps, cached: Workspace, offered: OfferedKey): Promise<SessionTarget> {
  const name = cached.metadata?.name ?? '';
  const namespace = cached.metadata?.namespace ?? '';
  let ws: Workspace;
  try {
    ws = await deps.client.get<Workspace>(RESOURCES.workspace, name, namespace);
  } catch (err) {
    if (isNotFound(err)) throw new SessionRefused(undefined, `workspace ${namespace}/${name} vanished after the cache matched it`);
    throw unavailable(`get workspace ${namespace}/${name}`, err);
  }
  // The cache may lag behind a key removal: the fresh object decides.
  if (!findAuthorizedKey(offered, ws.spec?.sshAuthorizedKeys)) {
    throw new SessionRefused(undefined, `workspace ${namespace}/${name} no longer authorizes the offered key`);
  }
  const notRunning = notRunningMessage(ws);
  if (notRunning) throw new SessionRefused(notRunning, `${namespace}/${name}: ${notRunning}`);

  const podName = podNameOf(ws);
  let pod: Pod;
  try {
    pod = await deps.client.get<Pod>(RESOURCES.pod, podName, namespace);
  } catch (err) {
    if (isNotFound(err)) {
      const msg = `workspace ${name} has no pod ${podName} yet; try again shortly`;
      throw new SessionRefused(msg, `${namespace}/${name}: ${msg}`);
    }
    throw unavailable(`get pod ${namespace}/${podName}`, err);
  }
  const mismatch = podMismatchMessage(pod, name);
  if (mismatch) throw new SessionRefused(mismatch, `${namespace}/${name}: ${mismatch}`);

  const imageName = ws.spec?.imageRef?.name ?? '';
  return {
    namespace,
    workspace: name,
    pod: podName,
    container: containerOf(pod),
    ...shellAndHome(imageName ? deps.image(imageName) : undefined),
  };
}
