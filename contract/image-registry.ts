// ImageRegistry (SPEC 2.3): one external registry polled and synced into the catalog.
import { KINDS, PLURALS } from '../kube/group.js';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.js';
import { IMAGE_REGISTRY_LIMITS as LIMITS, TAG_MODES } from './image-registry-rules.js';
import {
  arrayOf,
  boolean,
  conditions,
  integer,
  localObjectReference,
  object,
  observedGeneration,
  string,
  timestamp,
} from './schema.js';

/** A second provider is a new value here, not a change of the type (SPEC 9). */
export const REGISTRY_PROVIDERS = ['cloud-registry'] as const;

export function imageRegistryCrd(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: KINDS.imageRegistry,
    plural: PLURALS.imageRegistry,
    singular: 'imageregistry',
    shortNames: ['ireg'],
    scope: 'Cluster',
    description:
      'ImageRegistry configures one external container registry that is polled and synced into the catalog as WorkspaceImages it owns.',
    spec: object(
      'Which registry to poll and which images to offer.',
      {
        provider: string('Kind of registry.', { enum: [...REGISTRY_PROVIDERS] }),
        cloud: object(
          'Settings of a cloud-registry provider. Required when provider is cloud-registry.',
          {
            region: string('Region of the registry.', { maxLength: LIMITS.regionMaxLength }),
            registryId: string('Account id of the registry. Empty resolves to the account of the credentials.', { maxLength: LIMITS.registryIdMaxLength }),
            roleArn: string('Role assumed before listing, for a registry in another account.', { maxLength: LIMITS.roleArnMaxLength }),
          },
          { required: ['region'] },
        ),
        // Defaulted to {} so the defaults inside apply when the whole block is omitted.
        sync: object(
          'How and what to sync.',
          {
            intervalSeconds: integer('Seconds between two listings.', { format: 'int32', minimum: LIMITS.intervalSecondsMin, default: LIMITS.intervalSecondsDefault }),
            include: arrayOf('RE2 repository-name patterns. Empty means every repository is a candidate.', {
              type: 'string',
            }),
            exclude: arrayOf('RE2 repository-name patterns. Exclude wins over include.', { type: 'string' }),
            tags: object(
              'Which tags of a repository become catalog entries.',
              {
                mode: string('latest: the newest tag by push time; pattern: every tag matching patterns.', {
                  enum: [...TAG_MODES],
                  default: 'latest',
                }),
                patterns: arrayOf('RE2 tag patterns. Used only when mode is pattern.', { type: 'string' }),
                limit: integer('Newest N matching tags per repository.', { format: 'int32', minimum: LIMITS.tagLimitMin, default: LIMITS.tagLimitDefault }),
              },
              { default: {} },
            ),
            prune: boolean('Delete synced entries whose remote image is gone.', { default: false }),
          },
          { default: {} },
        ),
        imagePullSecretRef: localObjectReference(
          "Secret in the manager's namespace, replicated to every user namespace and stamped on every created WorkspaceImage.",
        ),
      },
      {
        required: ['provider'],
        'x-kubernetes-validations': [
          {
            rule: "self.provider != 'cloud-registry' || has(self.cloud)",
            message: 'spec.cloud is required when spec.provider is cloud-registry',
          },
        ],
      },
    ),
    status: object('Outcome of the last syncs.', {
      conditions: conditions('Ready and Degraded.'),
      observedGeneration: observedGeneration(),
      lastSyncTime: timestamp('Time of the last successful listing.'),
      images: integer('Number of WorkspaceImages currently owned.', { format: 'int32', minimum: 0 }),
    }),
    columns: [
      { name: 'Region', type: 'string', jsonPath: '.spec.cloud.region', description: 'Region of the registry.' },
      { name: 'Images', type: 'integer', jsonPath: '.status.images', description: 'WorkspaceImages currently owned.' },
      { name: 'Last Sync', type: 'date', jsonPath: '.status.lastSyncTime', description: 'Last successful listing.' },
      {
        name: 'Ready',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Ready")].status',
        description: 'Whether the last sync succeeded.',
      },
    ],
  });
}
