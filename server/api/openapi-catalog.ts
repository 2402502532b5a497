// The OpenAPI description of the catalog (SPEC 4.3): WorkspaceImages and ImageRegistries.
import { KINDS } from '../../kube/group.js';
import { requestBodySchema } from './openapi-requests.js';
import { createImageRegistryRequest, createWorkspaceImageRequest, patchImageRegistryRequest, patchWorkspaceImageRequest } from './schemas.js';
import { body, clusterObject, errors, json, listOf, nameParam, noContent, op, type Operation, type Schema } from './openapi-shapes.js';

const IMAGE_PROSE = {
  image: 'Container image reference.',
  display_name: 'Catalog title; the name when omitted on create.',
  description: 'Longer text. On PATCH an empty string removes it.',
  icon: 'Icon URL. On PATCH an empty string removes it.',
  tags: 'Catalog filter tags.',
  deprecated: 'Hidden from the catalog unless asked for.',
  apps: 'Apps a workspace of this entry serves (WorkspaceImage spec.apps): each {name, port, path?, icon?}; names unique, at most 16, a port 1-65535, a path starting with /, an https: or data:image/ icon. On PATCH the list replaces the stored one.',
};

const REGISTRY_PROSE = {
  region: 'Region.',
  registry_id: "Account id; empty resolves to the credentials' own account.",
  role_arn: 'Role assumed before listing. On PATCH an empty string removes it.',
  interval_seconds: 'Seconds between listings.',
  include: 'RE2 patterns against the repository name.',
  exclude: 'RE2 patterns; wins over include.',
  tag_mode: 'latest or pattern.',
  tag_patterns: 'RE2 tag patterns for mode pattern.',
  tag_limit: 'Newest matching tags per repository.',
  prune: 'Delete a synced entry once its remote image is gone.',
  image_pull_secret: 'Secret (RFC 1123 subdomain) replicated into every user namespace. On PATCH an empty string removes it.',
};

/** The component schemas of the catalog: WorkspaceImages and ImageRegistries. */
export function catalogSchemas(): Record<string, Schema> {
  return {
    WorkspaceImage: clusterObject(KINDS.workspaceImage),
    ImageRegistry: clusterObject(KINDS.imageRegistry),
    WorkspaceImageList: listOf('WorkspaceImage'),
    ImageRegistryList: listOf('ImageRegistry'),
    WorkspaceImageRequest: requestBodySchema('WorkspaceImageRequest', createWorkspaceImageRequest, { name: 'Entry name.', ...IMAGE_PROSE }, 'A new catalog entry.'),
    WorkspaceImagePatch: requestBodySchema(
      'WorkspaceImagePatch',
      patchWorkspaceImageRequest,
      { name: 'Refused: the name is create-only.', ...IMAGE_PROSE },
      'Every field is optional and omitted keys keep their value.',
    ),
    ImageRegistryRequest: requestBodySchema(
      'ImageRegistryRequest',
      createImageRegistryRequest,
      { name: 'Registry name (RFC 1123 label).', provider: 'cloud-registry when omitted.', ...REGISTRY_PROSE },
      'A new image registry.',
    ),
    ImageRegistryPatch: requestBodySchema(
      'ImageRegistryPatch',
      patchImageRegistryRequest,
      { name: 'Refused: the name is create-only.', provider: 'Refused: the provider is create-only.', ...REGISTRY_PROSE },
      'Every field is optional and omitted keys keep their value.',
    ),
  };
}

/** The paths of the catalog: WorkspaceImages and ImageRegistries. */
export function catalogPaths(): Record<string, Record<string, Operation>> {
  return {
    '/workspace-images': {
      get: op('Catalog', 'List the catalog entries the caller may use', {
        description: 'Filtered by SelfSubjectAccessReview for the verb use with the caller\'s token: one review for every entry at once, and when that is denied one per entry, 16 at a time.',
        responses: { '200': json('WorkspaceImageList', 'The usable entries, deprecated ones included.'), ...errors([401]) },
      }),
      post: op('Catalog', 'Create a catalog entry (administrators)', { requestBody: body('WorkspaceImageRequest'), responses: { '201': json('WorkspaceImage', 'The entry.'), ...errors([400, 401, 403, 409]) } }),
    },
    '/workspace-images/{name}': {
      get: op('Catalog', 'Get a catalog entry', { parameters: [nameParam('entry')], responses: { '200': json('WorkspaceImage', 'The entry.'), ...errors([401, 404]) } }),
      patch: op('Catalog', 'Change a catalog entry (administrators)', { parameters: [nameParam('entry')], requestBody: body('WorkspaceImagePatch'), responses: { '200': json('WorkspaceImage', 'The entry.'), ...errors([400, 401, 403, 404]) } }),
      delete: op('Catalog', 'Delete a catalog entry (administrators)', { parameters: [nameParam('entry')], responses: { '204': noContent('Deleted.'), ...errors([401, 403, 404]) } }),
    },
    '/image-registries': {
      get: op('Registries', 'List image registries', { responses: { '200': json('ImageRegistryList', 'The registries.'), ...errors([401, 403]) } }),
      post: op('Registries', 'Create an image registry (administrators)', { requestBody: body('ImageRegistryRequest'), responses: { '201': json('ImageRegistry', 'The registry.'), ...errors([400, 401, 403, 409]) } }),
    },
    '/image-registries/{name}': {
      get: op('Registries', 'Get an image registry', { parameters: [nameParam('registry')], responses: { '200': json('ImageRegistry', 'The registry.'), ...errors([401, 403, 404]) } }),
      patch: op('Registries', 'Change an image registry (administrators)', { parameters: [nameParam('registry')], requestBody: body('ImageRegistryPatch'), responses: { '200': json('ImageRegistry', 'The registry.'), ...errors([400, 401, 403, 404]) } }),
      delete: op('Registries', 'Delete an image registry and every entry it synced (administrators)', { parameters: [nameParam('registry')], responses: { '204': noContent('Deleted, with the entries it synced.'), ...errors([401, 403, 404]) } }),
    },
    '/image-registries/{name}/force-sync': {
      post: op('Registries', 'Ask for an immediate sync (administrators)', {
        description: 'Sets the annotation den.dev/force-sync to a new value; the sync runs asynchronously.',
        parameters: [nameParam('registry')],
        responses: { '202': noContent('Sync requested.'), ...errors([401, 403, 404]) },
      }),
    },
  };
}
