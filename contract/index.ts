// The four Den CRDs, the single source of truth of the den.dev API.
import type { CustomResourceDefinition } from './definition.js';
import { imageRegistryCrd } from './image-registry.js';
import { userSpaceCrd } from './user-space.js';
import { workspaceImageCrd } from './workspace-image.js';
import { workspaceCrd } from './workspace.js';

export type { CustomResourceDefinition } from './definition.js';
export type { JsonSchema } from './schema.js';

/** Fresh copies of every CRD, in a stable order (callers may modify them). */
export function denCrds(): CustomResourceDefinition[] {
  return [workspaceImageCrd(), imageRegistryCrd(), userSpaceCrd(), workspaceCrd()];
}
