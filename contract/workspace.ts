// Workspace (SPEC 2.5): one developer session, a pod with a retained home volume. The CRD,
// and the one TypeScript shape of a Workspace as the API server answers it (every reader of a
// Workspace uses it; test/contract/crd-types.test.ts holds it to the schema below).
import type { V1Affinity, V1EnvFromSource, V1EnvVar, V1Toleration, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { KubeObject } from '../kube/client.js';
import type { WorkspaceSource } from './workspace-source.js';
import { sharedPortsSchema, type PortShare } from './port-share.js';
import type { DevcontainerSummary, DotfilesReport } from './devcontainer.js';
import { KINDS, PLURALS } from '../kube/group.js';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.js';
import { dormancyStatusSchema, workspaceScheduleSchema } from './schedule-crd.js';
import type { WorkspaceSchedule } from './schedule.js';
import type { DormancyPolicy } from './schedule-crd.js';
import {
  DURATION_PATTERN,
  arrayOf,
  boolean,
  conditions,
  object,
  observedGeneration,
  preserved,
  quantity,
  string,
  stringMap,
  timestamp,
  tolerations,
  type QuantityJson,
  type ResourceRequirementsJson,
} from './schema.js';

export const WORKSPACE_PHASES = ['Pending', 'Starting', 'Running', 'Suspended', 'Failed'] as const;

/** SPEC 2.5: each key must start with one of these; the webhook parses the blob itself. */
export const SSH_KEY_PATTERN = '^(ssh-|ecdsa-sha2-|sk-)';

export function workspaceCrd(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: KINDS.workspace,
    plural: PLURALS.workspace,
    singular: 'workspace',
    shortNames: ['ws'],
    scope: 'Namespaced',
    description:
      'Workspace is a developer session: a one-replica StatefulSet behind a headless Service, with a retained home PVC named home-<name>-0, reachable over SSH.',
    spec: object(
      'The session as the person asked for it.',
      {
        imageRef: object(
          'The catalog entry this workspace runs.',
          { name: string('Name of a WorkspaceImage.', { minLength: 1 }) },
          { required: ['name'] },
        ),
        resources: object(
          'Compute resources of the workspace container. Every request at most its limit; an extended resource (GPU) must have request equal to limit. Checked against the remaining quota at admission.',
          {
            limits: {
              type: 'object',
              description: 'Maximum amount of each resource the container may use.',
              additionalProperties: quantity('A resource quantity.'),
            },
            requests: {
              type: 'object',
              description: 'Amount of each resource the container is guaranteed and the quota counts.',
              additionalProperties: quantity('A resource quantity.'),
            },
            claims: arrayOf(
              'Dynamically allocated resources (DynamicResourceAllocation) the container uses.',
              preserved('A resource claim of the pod, by name.'),
            ),
          },
        ),
        nodeSelector: stringMap("Overrides the image's placement.nodeSelector (no merging)."),
        tolerations: tolerations("Overrides the image's placement.tolerations (no merging)."),
        affinity: preserved('Standard pod affinity; copied into the pod spec.'),
        env: arrayOf(
          'Environment variables copied into the container.',
          object(
            'A standard environment variable.',
            {
              name: string('Name of the variable.', { minLength: 1 }),
              value: string('Value of the variable; $(VAR) references are expanded.'),
              valueFrom: preserved('Standard source of the value (field, resource, ConfigMap or Secret key).'),
            },
            { required: ['name'] },
          ),
        ),
        envFrom: arrayOf(
          'Standard sources of environment variables (ConfigMaps, Secrets) copied into the container.',
          preserved('A standard EnvFromSource.'),
        ),
        volumes: arrayOf(
          'Extra standard volumes beside the home volume.',
          {
            ...preserved('A standard volume; must not shadow the home volume.'),
            properties: { name: string('Name of the volume, unique in the pod.', { minLength: 1 }) },
            required: ['name'],
          },
        ),
        volumeMounts: arrayOf(
          'Mounts of the extra volumes into the container.',
          object(
            'A standard volume mount.',
            {
              name: string('Name of a volume of spec.volumes.'),
              mountPath: string('Path in the container; must not shadow the home path.'),
              readOnly: boolean('Mounted read-only.'),
              subPath: string('Path within the volume to mount instead of its root.'),
              subPathExpr: string('Like subPath, with $(VAR) references expanded.'),
              mountPropagation: string('How mounts propagate between host and container.', {
                enum: ['None', 'HostToContainer', 'Bidirectional'],
              }),
            },
            { required: ['name', 'mountPath'] },
          ),
        ),
        storage: {
          ...quantity('Size of the home PVC. Immutable once set. Counted against the UserSpace quota.storage.'),
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.storage is immutable' }],
        },
        sshAuthorizedKeys: arrayOf(
          'Public keys allowed to open SSH sessions. Accepted types: ssh-rsa, ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, or an sk- security key.',
          string('One public key in authorized_keys format.', { pattern: SSH_KEY_PATTERN }),
        ),
        running: boolean('true runs one replica, false none. When true, at least one SSH key is required.', {
          default: true,
        }),
        idleTimeout: string('A duration such as 4h. No effect unless the administrator turns idle auto-stop on (den manager --idle-stop): then a running workspace with no SSH session or browser terminal open for this long is stopped; 0s never stops.', {
          pattern: DURATION_PATTERN,
          default: '4h',
        }),
        schedule: workspaceScheduleSchema(),
        source: object(
          'Where the home\'s first contents come from: a repository cloned into the home on the first start, before the workspace is Running. A later start never clones again.',
          {
            git: object(
              'A git repository, cloned over HTTPS by Den\'s own image (the workspace image needs no git).',
              {
                url: string('The repository\'s https (or http) URL; no credentials in it.', { minLength: 1, maxLength: 2048 }),
                ref: string('Branch, tag or commit to check out; the repository\'s default branch when absent.', { maxLength: 255 }),
                path: string('Folder inside the home to clone into, relative to it; the repository\'s name (~/<name>) when absent.', { maxLength: 255 }),
              },
              { required: ['url'] },
            ),
            devcontainer: string(
              'Which devcontainer.json of the repository applies: a configuration name (.devcontainer/<name>/devcontainer.json) or a path to a .json file in it; .devcontainer/devcontainer.json, else .devcontainer.json, when absent.',
              { minLength: 1, maxLength: 255 },
            ),
          },
          { required: ['git'] },
        ),
        sharedPorts: sharedPortsSchema(),
        // Defaulted to {} so both flags read back true when the block is omitted.
        observability: object(
          'Pod markers for log collection and metrics scraping.',
          {
            logsEnabled: boolean('Writes the pod annotation den.dev/logs-enabled.', { default: true }),
            metricsEnabled: boolean('Writes the pod label den.dev/metrics-enabled.', { default: true }),
          },
          { default: {} },
        ),
      },
      {
        required: ['imageRef'],
        'x-kubernetes-validations': [
          // The rule on the field itself cannot see the field being removed.
          { rule: '!has(oldSelf.storage) || has(self.storage)', message: 'spec.storage is immutable' },
        ],
      },
    ),
    status: object('Observed state of the session.', {
      phase: string('Pending, Starting, Running, Suspended or Failed.', { enum: [...WORKSPACE_PHASES] }),
      endpoint: string('SSH address, <workspace-name>@<gateway-host>.'),
      podName: string('The pod of the session, usually <workspace-name>-0.'),
      lastActivityTime: timestamp('Set by the gateway on session open and close.'),
      observedGeneration: observedGeneration(),
      dormancy: dormancyStatusSchema(),
      conditions: conditions('Includes Ready, Degraded and ImageResolved; Cloned for a workspace with spec.source; Devcontainer and Lifecycle where a devcontainer.json or dotfiles apply.'),
      devcontainer: preserved('What the clone step read of the repository\'s devcontainer.json: the settings the workspace applies, and those it does not with why.'),
      dotfiles: preserved('The person\'s dotfiles repository as the clone step left it in ~/.dotfiles.'),
    }),
    columns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Starting, Running, Suspended or Failed.' },
      { name: 'Image', type: 'string', jsonPath: '.spec.imageRef.name', description: 'WorkspaceImage the session runs.' },
      { name: 'Running', type: 'boolean', jsonPath: '.spec.running', description: 'Whether a replica is wanted.' },
      { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint', description: 'SSH address.' },
    ],
  });
}

export type WorkspacePhase = (typeof WORKSPACE_PHASES)[number];

/** Name of the pod's home volumeClaimTemplate; the StatefulSet names the claim `home-<workspace>-0`. */
export const HOME_VOLUME = 'home';

/** The one container of a Workspace's pod; a shell execs into it by this name. */
export const WORKSPACE_CONTAINER = 'workspace';

/** `spec` of a Workspace; every field optional, since a reader may see an object the schema never checked. */
export interface WorkspaceSpec {
  imageRef?: { name?: string };
  resources?: ResourceRequirementsJson;
  nodeSelector?: Record<string, string>;
  tolerations?: V1Toleration[];
  affinity?: V1Affinity;
  env?: V1EnvVar[];
  envFrom?: V1EnvFromSource[];
  volumes?: V1Volume[];
  volumeMounts?: V1VolumeMount[];
  storage?: QuantityJson;
  sshAuthorizedKeys?: string[];
  running?: boolean;
  idleTimeout?: string;
  observability?: { logsEnabled?: boolean; metricsEnabled?: boolean };
  source?: WorkspaceSource;
  /** Ports opened through host-based previews to more people than the owner (contract/port-share.ts). */
  sharedPorts?: PortShare[];
  schedule?: WorkspaceSchedule;
}

/** `status` of a Workspace as written by the manager (and `lastActivityTime` by the gateway). */
export interface WorkspaceStatusFields {
  /** One of WORKSPACE_PHASES when the manager wrote it; a reader still checks. */
  phase?: string;
  endpoint?: string;
  podName?: string;
  lastActivityTime?: string;
  observedGeneration?: number;
  dormancy?: DormancyPolicy;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; observedGeneration?: number }[];
  /** What the clone step read of devcontainer.json (contract/devcontainer.ts); a reader checks it. */
  devcontainer?: DevcontainerSummary;
  /** The person's dotfiles repository as the clone step left it. */
  dotfiles?: DotfilesReport;
}

export interface Workspace extends KubeObject {
  spec?: WorkspaceSpec;
  status?: WorkspaceStatusFields;
}
