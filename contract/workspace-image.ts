// WorkspaceImage (SPEC 2.2): one catalog entry. It carries no sizes and no storage defaults.
import type { V1Toleration } from '@kubernetes/client-node';
import type { KubeObject } from '../kube/client.js';
import { KINDS, PLURALS } from '../kube/group.js';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.js';
import {
  arrayOf,
  boolean,
  conditions,
  integer,
  localObjectReference,
  PULL_POLICIES,
  type PullPolicy,
  object,
  string,
  stringMap,
  timestamp,
  tolerations,
} from './schema.js';
import { APP_ICON_PATTERN, APP_LIMITS, APP_NAME_PATTERN, APP_PATH_PATTERN, type DeclaredApp } from './workspace-image-rules.js';

/**
 * What SPEC 2.2 fills in when an entry leaves a field out: the schema's defaults, and what the
 * hook, the webhooks and the gateway assume for an entry stored before a default existed.
 */
export const WORKSPACE_IMAGE_DEFAULTS = {
  imagePullPolicy: 'IfNotPresent',
  shell: '/bin/bash',
  homePath: '/home/dev',
  runAsUser: 1000,
  command: ['sleep', 'infinity'],
} as const;

export function workspaceImageCrd(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: KINDS.workspaceImage,
    plural: PLURALS.workspaceImage,
    singular: 'workspaceimage',
    shortNames: ['wsi'],
    scope: 'Cluster',
    description:
      'WorkspaceImage is a catalog entry: the runtime image, shell, home path, uid and placement a Workspace runs with. It carries no sizes.',
    spec: object(
      'The catalog entry as administrators curate it.',
      {
        displayName: string('Catalog title.'),
        description: string('Longer text shown in the catalog.'),
        icon: string('Icon URL.'),
        tags: arrayOf('Labels the catalog filters by.', { type: 'string' }),
        maintainer: string('Contact string of whoever maintains the image.'),
        deprecated: boolean('Hidden from the catalog unless the user asks for deprecated entries; no new workspaces are admitted from it.', {
          default: false,
        }),
        image: string('Container image reference.'),
        imagePullPolicy: string('When the kubelet pulls the image.', {
          enum: [...PULL_POLICIES],
          default: WORKSPACE_IMAGE_DEFAULTS.imagePullPolicy,
        }),
        shell: string('Login shell the gateway runs.', { default: WORKSPACE_IMAGE_DEFAULTS.shell }),
        homePath: string('Working directory and mount path of the home volume.', { default: WORKSPACE_IMAGE_DEFAULTS.homePath }),
        runAsUser: integer('User id the workspace container runs as; also the pod fsGroup.', {
          format: 'int64',
          default: WORKSPACE_IMAGE_DEFAULTS.runAsUser,
        }),
        command: arrayOf('Container command.', { type: 'string' }, { default: [...WORKSPACE_IMAGE_DEFAULTS.command] }),
        allowRoot: boolean('Allows a workspace of this entry to run as uid 0. Administrator-only.', { default: false }),
        deprecateAt: timestamp('Fully usable (with a catalog warning) until then; afterwards the entry behaves as deprecated.'),
        placement: object('Where pods of this entry are scheduled, unless the Workspace overrides it.', {
          nodeSelector: stringMap('Copied into the pod spec.'),
          tolerations: tolerations('Copied into the pod spec.'),
        }),
        apps: arrayOf(
          'Apps a workspace of this entry serves, each a button on the workspace page opening /w/<workspace>/ports/<port><path> through Den (port preview). An extension beside SPEC 2.2.',
          object(
            'One app: a process the entry\'s command starts, listening on a port in the pod.',
            {
              name: string('Button label, unique in the list.', { minLength: 1, maxLength: APP_LIMITS.nameMaxLength, pattern: APP_NAME_PATTERN }),
              port: integer('TCP port the app listens on in the pod.', { minimum: APP_LIMITS.portMin, maximum: APP_LIMITS.portMax }),
              path: string('Path the button opens in the app (default /).', { maxLength: APP_LIMITS.pathMaxLength, pattern: APP_PATH_PATTERN }),
              icon: string('Icon URL (https: or data:image/).', { maxLength: APP_LIMITS.iconMaxLength, pattern: APP_ICON_PATTERN }),
            },
            { required: ['name', 'port'] },
          ),
          { maxItems: APP_LIMITS.maxApps, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
        ),
        imagePullSecretRef: localObjectReference(
          "Pull Secret for the image; replicated from the manager's namespace into every user namespace.",
        ),
      },
      { required: ['displayName', 'image'] },
    ),
    status: object('Observed state of the catalog entry.', {
      conditions: conditions('Current conditions of the entry.'),
    }),
    columns: [
      { name: 'Display Name', type: 'string', jsonPath: '.spec.displayName', description: 'Catalog title.' },
      { name: 'Image', type: 'string', jsonPath: '.spec.image', description: 'Container image reference.' },
      { name: 'Deprecated', type: 'boolean', jsonPath: '.spec.deprecated', description: 'Hidden from the catalog.' },
    ],
  });
}

/** `spec` of a WorkspaceImage; every field optional, since a reader may see an object the schema never checked. */
export interface WorkspaceImageSpec {
  displayName?: string;
  description?: string;
  icon?: string;
  tags?: string[];
  maintainer?: string;
  deprecated?: boolean;
  image?: string;
  imagePullPolicy?: PullPolicy;
  shell?: string;
  homePath?: string;
  runAsUser?: number;
  command?: string[];
  allowRoot?: boolean;
  deprecateAt?: string;
  placement?: { nodeSelector?: Record<string, string>; tolerations?: V1Toleration[] };
  imagePullSecretRef?: { name?: string };
  apps?: DeclaredApp[];
}

/** Whether an entry is no longer offered at `now` (ms): deprecated, or past its deprecateAt (SPEC 2.2). */
export function isWithdrawn(spec: Pick<WorkspaceImageSpec, 'deprecated' | 'deprecateAt'> | undefined, now: number): boolean {
  const at = spec?.deprecateAt ? Date.parse(spec.deprecateAt) : NaN;
  return spec?.deprecated === true || at <= now;
}

export interface WorkspaceImageStatusFields {
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; observedGeneration?: number }[];
}

/** The one WorkspaceImage type for every reader (test/contract/crd-types.test.ts holds it to the schema). */
export interface WorkspaceImage extends KubeObject {
  spec?: WorkspaceImageSpec;
  status?: WorkspaceImageStatusFields;
}
