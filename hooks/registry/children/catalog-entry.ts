// One WorkspaceImage an ImageRegistry syncs into the catalog. Only the fields the sync owns are
// set: description, icon, deprecated and the rest stay whatever an administrator made them,
// since the loop applies this under its own field manager and never sends them.
import { API_VERSION, KINDS } from '../../../kube/group.js';

export interface CatalogEntryProps {
  name: string;
  /** Full pullable reference, `<repository uri>:<tag>`. */
  image: string;
  displayName: string;
  tags: string[];
  labels: Record<string, string>;
  imagePullSecret?: string;
}

export function renderCatalogEntry(props: CatalogEntryProps): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: KINDS.workspaceImage,
    metadata: { name: props.name, labels: props.labels },
    spec: {
      displayName: props.displayName,
      image: props.image,
      tags: props.tags,
      ...(props.imagePullSecret ? { imagePullSecretRef: { name: props.imagePullSecret } } : {}),
    },
  };
}
