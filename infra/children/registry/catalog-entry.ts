// One WorkspaceImage an ImageRegistry syncs into the catalog. Only the fields the sync owns are
// set: description, icon, deprecated and the rest stay whatever an administrator made them,
// since the loop applies this under its own field manager and never sends them.
import { WorkspaceImage } from '../../../imports/den.dev.js';

export interface CatalogEntryProps {
  name: string;
  registry: string;
  /** Full pullable reference, `<repository uri>:<tag>`. */
  image: string;
  displayName: string;
  tags: string[];
  labels: Record<string, string>;
  imagePullSecret?: string;
}

export function renderCatalogEntry(props: CatalogEntryProps): Record<string, unknown> {
  return WorkspaceImage.manifest({
    metadata: { name: props.name, labels: props.labels },
    spec: {
      displayName: props.displayName,
      image: props.image,
      tags: props.tags,
      ...(props.imagePullSecret ? { imagePullSecretRef: { name: props.imagePullSecret } } : {}),
    },
  }) as Record<string, unknown>;
}
