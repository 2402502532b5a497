// UserSpace (SPEC 2.4): one person, their namespace, quota, RBAC and network policy.
import type { KubeObject } from '../kube/client.js';
import { GROUP, KINDS, LABELS, PLURALS } from '../kube/group.js';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.js';
import { schedulePolicySchema } from './schedule-crd.js';
import type { SchedulePolicy } from './schedule.js';
import { arrayOf, conditions, integer, object, observedGeneration, quantity, string } from './schema.js';

export const USERSPACE_PHASES = ['Pending', 'Ready', 'Failed'] as const;
export const NETWORK_POLICIES = ['Isolated', 'ClusterEgress'] as const;

/** The ResourceQuota in every UserSpace namespace that enforces spec.quota (SPEC 2.4). */
export const QUOTA_NAME = 'svc-quota';

/** Object-count quota key of Workspaces: `count/<plural>.<group>`. */
export const WORKSPACE_COUNT_KEY = `count/${PLURALS.workspace}.${GROUP}`;

/** What a person is in Den, as the UserSpace's label den.dev/role says. */
export const MEMBERSHIP_ROLES = ['user', 'admin'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** spec.quota as read: the CRD schema checked it, but every reader still reads it defensively. */
export interface UserSpaceQuota {
  cpu?: string | number;
  memory?: string | number;
  storage?: string | number;
  gpu?: number;
  workspaces?: number;
}

/**
 * A UserSpace as the informer or the API server hands it over: the one type of every reader
 * (the hook, the webhooks, REST). Only the fields Den reads are typed; each is checked before it is trusted.
 */
export interface UserSpace extends KubeObject {
  spec?: {
    owner?: string;
    quota?: UserSpaceQuota;
    networkPolicy?: string;
    sshAuthorizedKeys?: string[];
    schedules?: SchedulePolicy;
    [field: string]: unknown;
  };
}

/** spec.schedules of a UserSpace as a cache hands it over; its reader checks every field (contract/schedule.ts). */
export function schedulePolicyOf(userSpace: KubeObject | null | undefined): SchedulePolicy | undefined {
  return (userSpace as UserSpace | null | undefined)?.spec?.schedules;
}

type Labelled = { metadata?: { labels?: Record<string, string> } };

/** `den.dev/role: admin` makes an administrator; any other value, or none, an ordinary user. */
export function roleOf(userSpace: Labelled): MembershipRole {
  return userSpace.metadata?.labels?.[LABELS.role] === 'admin' ? 'admin' : 'user';
}

/** `den.dev/disabled: "true"` disables the person; any other value, or none, does not. */
export function isDisabled(userSpace: Labelled): boolean {
  return userSpace.metadata?.labels?.[LABELS.disabled] === 'true';
}

export function userSpaceCrd(): CustomResourceDefinition {
  return customResourceDefinition({
    kind: KINDS.userSpace,
    plural: PLURALS.userSpace,
    singular: 'userspace',
    shortNames: ['us'],
    scope: 'Cluster',
    description:
      'UserSpace maps one person to one namespace (svc-<name>) and to its quota, RBAC and network policy.',
    spec: object(
      'The person and the budget of their namespace.',
      {
        owner: string('An e-mail or a cluster username. Immutable.', {
          minLength: 1,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.owner is immutable' }],
        }),
        quota: object(
          'Per-user budgets, enforced when Workspaces are admitted (create and update). There is no floor: the minimum is zero.',
          {
            cpu: quantity('Total requested CPU budget.'),
            memory: quantity('Total requested memory budget.'),
            storage: quantity('Total PVC storage budget.'),
            gpu: integer(
              'GPUs that running workspaces may hold at once, counted against the GPU resource name of the platform configuration.',
              { format: 'int32', minimum: 0, default: 0 },
            ),
            workspaces: integer('Maximum number of Workspace objects.', { format: 'int32', minimum: 0 }),
          },
          { required: ['cpu', 'memory', 'storage', 'workspaces'] },
        ),
        networkPolicy: string('Network policy svc-isolation of the namespace: Isolated or ClusterEgress. Both allow the cluster API server and DNS.', {
          enum: [...NETWORK_POLICIES],
        }),
        sshAuthorizedKeys: arrayOf(
          'Keys copied into new workspaces that name none. Editable by the owner.',
          { type: 'string' },
        ),
        schedules: schedulePolicySchema(),
      },
      { required: ['owner', 'quota', 'networkPolicy'] },
    ),
    status: object('Observed state of the user namespace.', {
      namespace: string('Reconciled namespace.'),
      phase: string('Pending until every child exists, then Ready; Failed says why in the conditions.', {
        enum: [...USERSPACE_PHASES],
      }),
      observedGeneration: observedGeneration(),
      conditions: conditions('Current conditions of the UserSpace.'),
    }),
    columns: [
      { name: 'Owner', type: 'string', jsonPath: '.spec.owner', description: 'The person this UserSpace belongs to.' },
      { name: 'Namespace', type: 'string', jsonPath: '.status.namespace', description: 'Reconciled namespace.' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Ready or Failed.' },
    ],
  });
}
