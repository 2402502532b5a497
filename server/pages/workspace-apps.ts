// What the workspace page's Apps and ports card needs from the cluster: the apps the workspace's
// catalog entry declares (spec.apps), read with the person's token. Which of them listen is
// read by the card's script from REST (GET /api/v1/workspaces/<name>/apps) while the page is open.
import type { KubeClient } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import type { WorkspaceImage } from '../../infra/crds/workspace-image.js';
import { declaredApps, type DeclaredApp } from '../../infra/crds/workspace-image-rules.js';

/** The valid apps of entry `imageName`; none when it is withdrawn or names nothing. */
export async function declaredAppsOf(kube: KubeClient, imageName: string | undefined): Promise<DeclaredApp[]> {
  if (!imageName) return [];
  try {
    const image = await kube.get<WorkspaceImage>(RESOURCES.workspaceImage, imageName);
    return declaredApps(image.spec?.apps);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
