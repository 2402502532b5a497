// The OpenAPI description of administering people (SPEC 4.6): UserSpaces, membership, quota
// and the activity of everyone.
import { KINDS } from '../../kube/group.js';
import { MEMBERSHIP_ROLES } from '../../contract/user-space.js';
import { requestBodySchema } from './openapi-requests.js';
import { membershipRequest, quotaRequest, schedulePolicyRequest, userSpaceRequest } from './schemas.js';
import { ACTIVITY_ORDER, activityParams, body, bool, closed, clusterObject, errors, int, json, LABEL_PARAMETER, listOf, nameParam, noContent, op, optionalBody, ref, str, type Operation, type Schema } from './openapi-shapes.js';

const quotaShape = (description: string): Schema =>
  closed(
    {
      cpu: str('CPU quantity.'),
      memory: str('Memory quantity.'),
      storage: str('Storage quantity.'),
      gpu: int('GPUs.', { minimum: 0 }),
      workspaces: int('Workspace objects.', { minimum: 0 }),
    },
    ['cpu', 'memory', 'storage', 'gpu', 'workspaces'],
    description,
  );

/** The component schemas of people: UserSpaces, their membership and quota, and the activity of everyone. */
export function peopleSchemas(): Record<string, Schema> {
  return {
    UserSpace: clusterObject(KINDS.userSpace),
    UserSpaceWithUsage: {
      allOf: [ref('UserSpace')],
      type: 'object',
      properties: { usage: { ...quotaShape('What the namespace uses now (its ResourceQuota svc-quota), in the shape of spec.quota; null until the ResourceQuota exists.'), nullable: true } },
      required: ['usage'],
    },
    UserSpaceList: listOf('UserSpace'),
    UserSpaceQuotaList: listOf('UserSpaceWithUsage'),
    UserSpaceMembership: closed({ name: str('UserSpace name.'), role: str('user or admin.', { enum: [...MEMBERSHIP_ROLES] }), disabled: bool('A disabled person can no longer log in or use tokens.') }, ['name', 'role', 'disabled']),
    UserSpaceQuota: quotaShape('The quota (spec.quota) after the change.'),
    UserSpaceRequest: requestBodySchema('UserSpaceRequest', userSpaceRequest, {
      name: 'UserSpace name; the namespace is svc-<name>.',
      owner: 'E-mail or cluster username.',
      role: 'Membership role, user when omitted.',
    }),
    MembershipRequest: requestBodySchema('MembershipRequest', membershipRequest, { role: 'Membership role.', disabled: 'Disable or re-enable the person.' }, 'Omitted keys keep their value.'),
    QuotaRequest: requestBodySchema(
      'QuotaRequest',
      quotaRequest,
      { workspaces: 'Workspace objects.', cpu: 'CPU budget.', memory: 'Memory budget.', storage: 'Storage budget.', gpu: 'GPUs.' },
      'Omitted keys keep their value.',
    ),
    UserSpaceSchedules: closed(
      {
        max_running_limit: { ...str('No workspace of the space may ask for a longer max_running; one that asks for none runs at most this long (spec.schedules.maxRunningLimit).'), nullable: true },
        default_max_running: { ...str('The max_running of a workspace that sets none (spec.schedules.defaultMaxRunning).'), nullable: true },
        default_autostop: { ...str('The autostop of a workspace that sets none, in words such as "weekdays 19:00" (spec.schedules.defaultAutostop).'), nullable: true },
        time_zone: { ...str('The IANA time zone default_autostop is read in.'), nullable: true },
      },
      ['max_running_limit', 'default_max_running', 'default_autostop', 'time_zone'],
      'A UserSpace\'s spec.schedules after the change, in words; null where none is set.',
    ),
    SchedulePolicyRequest: requestBodySchema(
      'SchedulePolicyRequest',
      schedulePolicyRequest,
      {
        max_running_limit: 'The longest any workspace of the space may run at a time, a duration of at least 10m (12h). Empty removes it.',
        default_max_running: 'The max_running of a workspace that sets none, at most max_running_limit. Empty removes it.',
        default_autostop: 'The autostop of a workspace that sets none: days and a time of day in time_zone, such as "weekdays 19:00" or "daily 22:00". Empty removes it with its time zone.',
        time_zone: 'IANA time zone default_autostop is read in, such as Europe/Berlin. Required with default_autostop.',
      },
      'Omitted keys keep their value; an empty string removes one.',
    ),
  };
}

/** The paths of people: UserSpaces, their membership and quota, and the activity of everyone. */
export function peoplePaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/userspaces': {
      get: op('Administration', 'List UserSpaces with quota and role', { responses: { '200': json('UserSpaceList', 'The UserSpaces; role in the label den.dev/role, quota in spec.quota.'), ...errors([401, 403]) } }),
      post: op('Administration', 'Create a UserSpace with the default quota', { requestBody: body('UserSpaceRequest'), responses: { '201': json('UserSpace', 'The UserSpace.'), ...errors([400, 401, 403, 409]) } }),
    },
    '/admin/userspaces/{name}': {
      patch: op('Administration', 'Change role or disabled', { parameters: [nameParam('UserSpace')], requestBody: optionalBody('MembershipRequest'), responses: { '200': json('UserSpaceMembership', 'The membership after the change.'), ...errors([400, 401, 403, 404]) } }),
      delete: op('Administration', 'Delete a UserSpace object (its namespace is removed asynchronously)', { parameters: [nameParam('UserSpace')], responses: { '204': noContent('Deleted.'), ...errors([401, 403, 404]) } }),
    },
    '/admin/quota': {
      get: op('Administration', 'Every UserSpace with usage against limit', { responses: { '200': json('UserSpaceQuotaList', 'UserSpaces, each with usage beside spec.quota.'), ...errors([401, 403]) } }),
    },
    '/admin/quota/{name}': {
      patch: op('Administration', 'Change a quota', { parameters: [nameParam('UserSpace')], requestBody: optionalBody('QuotaRequest'), responses: { '200': json('UserSpaceQuota', 'The quota after the change.'), ...errors([400, 401, 403, 404]) } }),
    },
    '/admin/schedules/{name}': {
      patch: op('Administration', 'Change the schedule limit and defaults of a space', {
        description: 'A merge patch of the UserSpace\'s spec.schedules with the caller\'s token (docs/schedules.md). The admission webhook refuses a default above the limit and a default autostop without a time zone (400 with its words). A workspace whose own max_running is above a lowered limit runs at most the default, or the limit, from its next check.',
        parameters: [nameParam('UserSpace')],
        requestBody: optionalBody('SchedulePolicyRequest'),
        responses: { '200': json('UserSpaceSchedules', 'The schedule limit and defaults after the change.'), ...errors([400, 401, 403, 404]) },
      }),
    },
    '/admin/activity': {
      get: op('Administration', 'What people did with workspaces, across the cluster', {
        description: `${ACTIVITY_ORDER} Read with the caller's token across every namespace, which the cluster's RBAC allows administrators (403 with its message otherwise).`,
        parameters: [
          ...activityParams,
          { name: 'workspace', in: 'query', required: false, description: 'Only workspaces of this name (in any namespace).', schema: LABEL_PARAMETER },
        ],
        responses: { '200': json('ActivityList', 'The entries.'), ...errors([400, 401, 403]) },
      }),
    },
  };
}
