// The OpenAPI description of sharing a workspace with another person (docs/sharing.md).
import { closed, errors, json, listOf, nameParam, noContent, op, ref, str, type Operation, type Schema } from './openapi-shapes.js';

const personParam = { name: 'person', in: 'path', required: true, description: "The guest's Den user name (their UserSpace).", schema: { type: 'string' } };

export function shareSchemas(): Record<string, Schema> {
  return {
    Share: closed(
      {
        owner: str("The workspace's owner (their UserSpace)."),
        workspace: str('The shared workspace.'),
        person: str('The guest (their UserSpace).'),
        created: { type: 'string', nullable: true, format: 'date-time', description: 'When the share was made (its RoleBinding\'s creationTimestamp).' },
      },
      ['owner', 'workspace', 'person', 'created'],
      'A Role and RoleBinding in the owner\'s namespace letting the guest\'s session identity read the workspace and exec and port-forward into its pod, nothing else.',
    ),
    ShareList: listOf('Share'),
    SharedWorkspace: closed(
      {
        owner: str("The workspace's owner (their UserSpace)."),
        namespace: str("The owner's namespace."),
        name: str('The workspace name.'),
        ssh_user: str('The SSH username that reaches it through den gateway with the caller\'s own profile keys: `<workspace>.<owner>`.'),
        workspace: ref('Workspace'),
      },
      ['owner', 'namespace', 'name', 'ssh_user', 'workspace'],
      'A workspace someone else shared with the caller, read with the caller\'s own token.',
    ),
    SharedWorkspaceList: listOf('SharedWorkspace'),
  };
}

export function sharePaths(): Record<string, Record<string, Operation>> {
  return {
    '/workspaces/{name}/shares': {
      get: op('Sharing', "Who the caller's workspace is shared with", {
        parameters: [nameParam('workspace')],
        responses: { '200': json('ShareList', 'The shares, by person.'), ...errors([400, 401, 403, 404]) },
      }),
    },
    '/workspaces/{name}/shares/{person}': {
      put: op('Sharing', "Share the caller's workspace with a person", {
        description:
          "Creates the Role and RoleBinding with the caller's own token, so Kubernetes' escalation check applies: nobody grants more than they hold. Idempotent. A Shared Event on the workspace and an audit line record it.",
        parameters: [nameParam('workspace'), personParam],
        responses: {
          '200': json('Share', 'It was already shared with that person.'),
          '201': json('Share', 'Shared.'),
          ...errors([400, 401, 403, 404], { 400: 'The person is not a valid name, or is the caller.', 404: 'No such workspace of the caller, or no such person.' }),
        },
      }),
      delete: op('Sharing', 'End a share', {
        description: "Deletes the RoleBinding, then the Role. The guest's open SSH sessions end within seconds. An Unshared Event and an audit line record it.",
        parameters: [nameParam('workspace'), personParam],
        responses: { '204': noContent('Removed.'), ...errors([400, 401, 403, 404], { 404: 'The workspace is not shared with that person.' }) },
      }),
    },
    '/shared-workspaces': {
      get: op('Sharing', 'Workspaces others shared with the caller', {
        description: "Found by the share RoleBindings that name the caller, each workspace then read with the caller's own token: only what the cluster lets them get is listed.",
        responses: { '200': json('SharedWorkspaceList', 'The shared workspaces, by owner and name.'), ...errors([400, 401, 403]) },
      }),
    },
  };
}
