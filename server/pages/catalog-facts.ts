// What the workspace pages show of catalog entries, read with the person's own token: one
// entry alone for a live poll, the few the dashboard's cards show, or the whole catalog.
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS, type WorkspaceImage } from '../../contract/workspace-image.js';
import { declaredApps, type DeclaredApp } from '../../contract/workspace-image-rules.js';
import { phaseOf, type WorkspaceView } from '../../web/templates/format.js';

/**
 * What the pages show of a catalog entry: its home path (VS Code links), its title (a failure
 * names it; absent when the entry has no display name or is gone), whether it is withdrawn,
 * and its valid declared apps (the Apps and ports card). An entry gone or hidden from the
 * person reads as the defaults.
 */
export interface CatalogFacts {
  homePath: string;
  title?: string;
  deprecated: boolean;
  apps: DeclaredApp[];
}

export function catalogFacts(entry: WorkspaceImage | undefined): CatalogFacts {
  return {
    homePath: entry?.spec?.homePath || WORKSPACE_IMAGE_DEFAULTS.homePath,
    title: entry?.spec?.displayName || undefined,
    deprecated: entry?.spec?.deprecated === true,
    apps: declaredApps(entry?.spec?.apps),
  };
}

/** One catalog entry, read alone (the 3 s live polls ask for one, not the whole catalog). */
export async function catalogEntryOf(kube: KubeClient, name: string): Promise<CatalogFacts> {
  if (!name) return catalogFacts(undefined);
  try {
    return catalogFacts(await kube.get<WorkspaceImage>(RESOURCES.workspaceImage, name));
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return catalogFacts(undefined);
    throw err;
  }
}

/** Every catalog entry the person can read, by name, in one LIST. */
export async function catalogFactsOf(kube: KubeClient): Promise<Map<string, CatalogFacts>> {
  const { items } = await kube.list<WorkspaceImage>(RESOURCES.workspaceImage);
  return new Map(items.map((i) => [i.metadata?.name ?? '', catalogFacts(i)]));
}

/** A workspace's page or card shows its entry (the VS Code link's home path, the title a failure names) only when Running or Failed. */
export function showsEntry(ws: WorkspaceView): boolean {
  const phase = phaseOf(ws);
  return phase === 'Running' || phase === 'Failed';
}

/** Beyond this many different entries the cards read the whole catalog at once. */
const ENTRY_READS_AT_MOST = 4;

/**
 * The catalog entries the cards show, by name: one read each, as entries carry icons and a
 * catalog can be large (the dashboard asks every 3 s); the whole catalog when many are shown.
 */
export async function entriesShownBy(kube: KubeClient, workspaces: WorkspaceView[]): Promise<Map<string, CatalogFacts>> {
  const names = [...new Set(workspaces.filter(showsEntry).map((ws) => ws.spec?.imageRef?.name ?? ''))].filter(Boolean);
  if (names.length > ENTRY_READS_AT_MOST) return catalogFactsOf(kube);
  return new Map(await Promise.all(names.map(async (name) => [name, await catalogEntryOf(kube, name)] as const)));
}
