// The ImageRegistry hook (SPEC 1.6, 2.3, 3.3): from the registry, its last listing and the
// WorkspaceImages it owns now, the entries it should own, its status, and when to run again.
// Pure; the listing is fetched by the loop as `related` (hooks/registry/listings.ts).
import { KINDS, LABELS } from '../../kube/group.js';
import type { KubeObject } from '../../kube/client.js';
import { renderCatalogEntry } from './children/catalog-entry.js';
import { kubeTime, withTransitionTimes, type ConditionInput } from '../loop/conditions.js';
import type { HookInput, HookOutput } from '../loop/types.js';
import { entryName } from './names.js';
import { RegistryError, type SyncFailureReason } from './provider.js';
import { compileSyncPatterns, selectImages, type SelectedImage } from './select.js';
import type { ImageRegistry, RegistryListing } from './types.js';

/** The last listing for the registry's current spec and force-sync value, and when the next is due. */
export type ListingView =
  | { state: 'listed'; listing: RegistryListing; at: Date; dueAt: Date }
  | { state: 'failed'; reason: SyncFailureReason; message: string; at: Date; dueAt: Date };

export interface RegistryRelated {
  listing: ListingView;
}

export type RegistryHookConfig = Record<string, never>;

type ConditionType = 'Ready' | 'Degraded';

interface PreviousStatus {
  images?: unknown;
  lastSyncTime?: unknown;
  conditions?: unknown;
}

/** The WorkspaceImages this registry controls now, in whichever API version they were observed. */
function observedEntries(input: HookInput<RegistryHookConfig, RegistryRelated>): KubeObject[] {
  return Object.entries(input.children)
    .filter(([key]) => key.startsWith(`${KINDS.workspaceImage}.`))
    .flatMap(([, byName]) => Object.values(byName));
}

/** Searchable words of an entry: the repository's path segments and the tag. */
function searchTags(image: SelectedImage): string[] {
  return [...new Set([...image.repository.split('/').filter(Boolean), image.tag])];
}

function desiredEntry(registry: ImageRegistry, image: SelectedImage): KubeObject {
  const name = registry.metadata?.name ?? '';
  return renderCatalogEntry({
    name: entryName(name, image.repository, image.tag),
    image: image.reference,
    displayName: `${image.repository}:${image.tag}`,
    tags: searchTags(image),
    labels: { [LABELS.imageRegistry]: name },
    imagePullSecret: registry.spec?.imagePullSecretRef?.name || undefined,
  }) as KubeObject;
}

function previousOf(parent: KubeObject): PreviousStatus {
  return (parent.status ?? {}) as PreviousStatus;
}

/** images and lastSyncTime as they were: a failed sync never moves them (SPEC 1.6). */
function keptCounters(previous: PreviousStatus): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (typeof previous.images === 'number') kept.images = previous.images;
  if (typeof previous.lastSyncTime === 'string') kept.lastSyncTime = previous.lastSyncTime;
  return kept;
}

function status(parent: KubeObject, now: Date, counters: Record<string, unknown>, conditions: ConditionInput<ConditionType>[]): Record<string, unknown> {
  return { ...counters, conditions: withTransitionTimes(conditions, previousOf(parent).conditions, now, parent.metadata?.generation) };
}

function failed(reason: string, message: string): ConditionInput<ConditionType>[] {
  return [
    { type: 'Ready', status: 'False', reason, message },
    { type: 'Degraded', status: 'True', reason, message },
  ];
}

export function syncImageRegistry(input: HookInput<RegistryHookConfig, RegistryRelated>): HookOutput {
  const parent = input.parent as ImageRegistry;
  const observed = observedEntries(input);
  const previous = previousOf(parent);
  const view = input.related.listing;
  // The loop runs this registry again when its next listing is due, even if nothing else changes.
  const resyncAfterMs = Math.max(1, view.dueAt.getTime() - input.now.getTime());

  // Status from what was observed: when the listing failed, every owned entry stays exactly as
  // it is (returned as observed: neither applied nor pruned).
  if (view.state === 'failed') {
    return { status: status(parent, input.now, keptCounters(previous), failed(view.reason, view.message)), children: observed, resyncAfterMs };
  }

  // The decision: the selected images, and what becomes of owned entries no longer selected.
  let selected: SelectedImage[];
  try {
    selected = selectImages(view.listing, parent.spec ?? {}, compileSyncPatterns(parent.spec ?? {}));
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    return { status: status(parent, input.now, keptCounters(previous), failed(err.reason, err.message)), children: observed, resyncAfterMs };
  }
  const desired = selected.map((image) => desiredEntry(parent, image));
  const wanted = new Set(desired.map((d) => d.metadata?.name));
  const gone = observed.filter((o) => !wanted.has(o.metadata?.name));
  const kept = parent.spec?.sync?.prune ? [] : gone;

  // The children, and the status the sync leaves behind.
  const lastSyncTime = kubeTime(view.at);
  if (input.errors?.length) {
    const message = `listed, but ${input.errors.length} entr${input.errors.length === 1 ? 'y' : 'ies'} could not be written: ${input.errors.map((e) => `${e.child}: ${e.message}`).join('; ')}`;
    return { status: status(parent, input.now, { images: observed.length, lastSyncTime }, failed('EntriesNotWritten', message)), children: [...desired, ...kept], resyncAfterMs };
  }
  const repositories = new Set(selected.map((s) => s.repository)).size;
  const images = desired.length + kept.length;
  const message = `${images} catalog entr${images === 1 ? 'y' : 'ies'} from ${repositories} repositor${repositories === 1 ? 'y' : 'ies'}${kept.length ? ` (${kept.length} kept whose image is gone; prune is off)` : ''}`;
  return {
    status: status(parent, input.now, { images, lastSyncTime }, [
      { type: 'Ready', status: 'True', reason: 'Synced', message },
      { type: 'Degraded', status: 'False', reason: 'Synced', message },
    ]),
    children: [...desired, ...kept],
    resyncAfterMs,
  };
}
