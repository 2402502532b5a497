// What the workspace page's Details card reads besides the Workspace: where its pod runs (the
// pod's name and node) and the repository it starts from, and the parts of the status poll that
// cost a pod read (the pod and node, the listening ports), read only on the polls that ask for
// slow parts (web/scripts/live.ts) and reusing one pod read for both while it is Running.
import type { KubeClient } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { describeError } from '../../koa/errors.js';
import { cloneDirectory } from '../../contract/workspace-source.js';
import type { Workspace } from '../../contract/workspace.js';
import { podNameOf, type WorkspacePod } from '../../shell/target.js';
import { phaseOf, type WorkspaceView } from '../../web/templates/format.js';
import { portsBeforeReading, type PortsView } from '../../web/templates/workspace-apps.js';
import type { PlacementView, SourceFact } from '../../web/templates/workspace-facts.js';
import { listeningPortsOf } from '../api/apps.js';

/** A stopped workspace has no pod: said without reading anything. */
export const STOPPED: PlacementView = { note: 'none while it is stopped' };

/** Is there a pod to read: any phase but Suspended (a stopped workspace whose pod is gone). */
function hasPod(ws: WorkspaceView): boolean {
  return phaseOf(ws) !== 'Suspended';
}

/** The pod's name and node, read with the person's token; what stands in for them when there is none to read. */
export async function readPlacement(kube: KubeClient, ws: WorkspaceView, namespace: string): Promise<PlacementView> {
  if (!hasPod(ws)) return STOPPED;
  const pod = podNameOf(ws as Workspace);
  try {
    const seen = await kube.get<WorkspacePod>(RESOURCES.pod, pod, namespace);
    return { pod, ...(seen.spec?.nodeName && { node: seen.spec.nodeName }) };
  } catch (err) {
    // A fact of the card, not the page: what stops it from being read is said in its place.
    if (isNotFound(err)) return { note: 'not created yet' };
    return { note: `cannot be read: ${describeError(err).message}` };
  }
}

/**
 * The parts of a status poll that cost a pod read: the listening ports (one pods/exec too)
 * while Running, and the pod and node. Read on the polls asking for slow parts (`slow`); on
 * the others undefined (the page keeps what it shows), except what needs no read: no ports
 * before Running, no pod while stopped.
 */
export async function slowPartsOf(kube: KubeClient, ws: WorkspaceView, namespace: string, slow: boolean): Promise<{ ports?: PortsView; placement?: PlacementView }> {
  const running = phaseOf(ws) === 'Running';
  if (!hasPod(ws)) return { ports: portsBeforeReading(false), placement: STOPPED };
  if (!slow) return running ? {} : { ports: portsBeforeReading(false) };
  if (!running) return { ports: portsBeforeReading(false), placement: await readPlacement(kube, ws, namespace) };
  try {
    const { pod, node, ports } = await listeningPortsOf(kube, ws as Workspace, namespace);
    return { ports: { listening: ports }, placement: { pod, ...(node && { node }) } };
  } catch (err) {
    const { status, message } = describeError(err);
    const ports = { unread: status === 409 ? message : `The ports could not be read: ${message}. Retrying.` };
    return { ports, placement: await readPlacement(kube, ws, namespace) };
  }
}

/** The repository fact of a workspace with spec.source: where it comes from and where the clone is, in the hook's words. */
export function sourceFactOf(ws: Workspace): SourceFact | undefined {
  const git = ws.spec?.source?.git;
  if (!git?.url) return undefined;
  const directory = cloneDirectory(git);
  const cloned = ws.status?.conditions?.find((c) => c.type === 'Cloned');
  const state = cloned?.message || 'It is cloned into the home when the workspace first starts.';
  return { url: git.url, ...(git.ref && { ref: git.ref }), ...(directory && { directory }), state };
}
