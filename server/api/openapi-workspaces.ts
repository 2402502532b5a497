// The OpenAPI description of workspaces (SPEC 4.2): their schemas and paths.
import { KINDS } from '../../kube/group.js';
import { requestBodySchema } from './openapi-requests.js';
import { createWorkspaceRequest, scheduleRequest } from './schemas.js';
import { DEFAULT_LOG_TAIL } from './workspaces.js';
import { ACTIVITY_KINDS } from '../../kube/den-events.js';
import { PORT_SHARE_LEVELS, PORT_SHARE_LIMITS } from '../../contract/port-share.js';
import { ACTIVITY_ORDER, activityParams, body, bool, closed, clusterObject, errors, int, json, listOf, nameParam, namespaceParam, noContent, op, OTHER_NAMESPACE, str, type Operation, type Schema } from './openapi-shapes.js';

/** The component schemas of workspaces: the kind, its list, create, logs, events and apps. */
export function workspaceSchemas(): Record<string, Schema> {
  return {
    Workspace: clusterObject(KINDS.workspace),
    WorkspaceList: listOf('Workspace'),
    ActivityEntry: closed(
      {
        time: str('When it last happened (the Event\'s lastTimestamp).', { format: 'date-time' }),
        first_time: str('When it first happened.', { format: 'date-time' }),
        count: int('How many times it happened from first_time to time: a burst is one entry.', { minimum: 1 }),
        namespace: str('Namespace of the workspace.'),
        workspace: str('Name of the workspace.'),
        person: str('Who acted (a UserSpace name); empty when Den itself acted (idle auto-stop).'),
        kind: str('What kind of act.', { enum: [...ACTIVITY_KINDS] }),
        reason: str('The Event\'s reason: SSHSessionOpened, SSHSessionClosed, TerminalOpened, TerminalClosed, Started, Stopped, Resized, Deleted, Shared or Unshared.'),
        message: str('What happened, as a sentence.'),
        reporter: str('The process that recorded it: den.dev/server, den.dev/gateway or den.dev/manager.'),
        fingerprint: str('SHA256 fingerprint of the SSH key, for SSH sessions.'),
        client_address: str('The client\'s address as Den saw it, where known.'),
      },
      ['time', 'first_time', 'count', 'namespace', 'workspace', 'person', 'kind', 'reason', 'message', 'reporter'],
      'One of Den\'s own Events (source.component den) about a Workspace.',
    ),
    ActivityList: listOf('ActivityEntry'),
    WorkspaceApps: closed(
      {
        namespace: str('Namespace of the workspace.'),
        workspace: str('Workspace name.'),
        pod: str('Pod the ports were read in.'),
        apps: {
          type: 'array',
          description: "Apps the workspace's catalog entry declares (WorkspaceImage spec.apps), in its order.",
          items: closed(
            {
              name: str('Button label.'),
              port: int('Port the app listens on in the pod.', { minimum: 1, maximum: 65535 }),
              path: str('Path the button opens in the app.'),
              icon: { type: 'string', nullable: true, description: 'Icon URL, or null.' },
              listening: bool('Whether a process listens on the port now.'),
              preview_path: { type: 'string', nullable: true, description: "Path of the app through the port preview (`/w/<name>/ports/<port><path>`) when the workspace is the caller's own; null otherwise." },
              app_url: { type: 'string', nullable: true, description: 'Address of the app at its own origin (`<scheme>://<port>--<name>--<person>.<apps domain><path>`) when the server has an apps domain and the names fit one DNS label; null otherwise.' },
            },
            ['name', 'port', 'path', 'icon', 'listening', 'preview_path', 'app_url'],
          ),
        },
        listening: {
          type: 'array',
          description: 'TCP ports processes in the pod listen on (LISTEN rows of /proc/net/tcp and tcp6, read with one exec as the caller), ascending.',
          items: closed(
            {
              port: int('Port number.', { minimum: 1, maximum: 65535 }),
              preview_path: { type: 'string', nullable: true, description: 'Path of its port preview on this server (`/w/<name>/ports/<port>/`) when the workspace is the caller\'s own; null otherwise (a preview serves only the viewer\'s own workspaces).' },
              app_url: { type: 'string', nullable: true, description: 'Address of the port at its own origin (`<scheme>://<port>--<name>--<person>.<apps domain>/`) when the server has an apps domain and the names fit one DNS label; null otherwise.' },
            },
            ['port', 'preview_path', 'app_url'],
          ),
        },
        shared_ports: {
          type: 'array',
          description: 'Ports opened to more people than the owner through the host-based preview (spec.sharedPorts), ascending; a port not listed is the owner\'s only. Change them with PUT /workspaces/{name}/ports/{port}/share.',
          items: closed(
            {
              port: int('Port number.', { minimum: 1, maximum: 65535 }),
              level: str('authenticated, people or public.', { enum: ['authenticated', 'people', 'public'] }),
              people: { type: 'array', items: { type: 'string' }, description: 'The people named (level people), else empty.' },
            },
            ['port', 'level', 'people'],
          ),
        },
      },
      ['namespace', 'workspace', 'pod', 'apps', 'listening', 'shared_ports'],
      'What a workspace serves: its declared apps and its listening ports, with their previews.',
    ),
    PortShareRequest: closed(
      {
        level: str('owner (only the owner: the default), authenticated (every signed-in person of this Den), people (the people named), or public (anyone, no sign-in; only where the install sets server.apps.allowPublicPorts). Any level but owner needs host-based previews (server.apps.domain).', { enum: [...PORT_SHARE_LEVELS] }),
        people: { type: 'array', items: { type: 'string' }, maxItems: PORT_SHARE_LIMITS.people, description: 'Den user names (UserSpace names) to share with; with level people only.' },
      },
      ['level'],
      'Who may open one port of a workspace through its host-based preview.',
    ),
    PortShare: closed(
      {
        workspace: str('Workspace name.'),
        port: int('The port.', { minimum: 1, maximum: 65535 }),
        level: str('Who may open it now.', { enum: [...PORT_SHARE_LEVELS] }),
        people: { type: 'array', items: { type: 'string' }, description: 'The people named (level people), else empty.' },
        app_url: { type: 'string', nullable: true, description: 'The host-based address of the port, or null when its names do not fit one DNS label.' },
      },
      ['workspace', 'port', 'level', 'people', 'app_url'],
      'One port\'s share as stored on the Workspace (spec.sharedPorts).',
    ),
    LogsResponse: closed({ namespace: str('Namespace of the pod.'), pod: str('Pod the lines come from.'), lines: str('The last lines of the log.') }, ['namespace', 'pod', 'lines']),
    ScheduleRequest: requestBodySchema('ScheduleRequest', scheduleRequest, {
      autostart: 'When the workspace starts by itself: days and a time of day in time_zone, such as "weekdays 08:30", "daily 07:00" or "Mon,Wed,Fri 09:15". Empty removes it.',
      autostop: 'When it stops by itself, in the same words ("19:00" is every day). Empty removes it (the space\'s default autostop applies, if an administrator set one).',
      max_running: 'A duration of at least 10m (8h): a workspace running this long is stopped. At most the space\'s limit. Empty removes it.',
      time_zone: 'IANA time zone the times are read in, such as Europe/Berlin. Required with autostart or autostop.',
    }),
    CreateWorkspaceRequest: requestBodySchema('CreateWorkspaceRequest', createWorkspaceRequest, {
      name: 'Workspace name (RFC 1035 label: it also names the Service).',
      image: 'WorkspaceImage entry name.',
      cpu: 'Used as both request and limit.',
      memory: 'Used as both request and limit.',
      gpu: "Whole number of GPUs, request equal to limit, under the platform's GPU resource name.",
      storage: 'Home PVC size. Immutable.',
      ssh_public_key: 'OpenSSH public key line accepted by the gateway.',
      env: 'Environment variables of this workspace, {NAME: value}: added to the person\'s own (docs/personal-env.md), or overriding one of the same name. Names: letters, digits and "_", not starting with a digit, at most 128 characters; not HOME, SHELL, GIT_CONFIG_COUNT or GIT_CONFIG_PARAMETERS, nor starting with DEN_, GIT_CONFIG_KEY_, GIT_CONFIG_VALUE_ or KUBERNETES_. Values are taken literally ($(VAR) is not expanded) and are stored in the Workspace, which anyone who may read the namespace can read: keep secrets as personal secret variables.',
      schedule: 'Workspace spec.schedule in words, as ScheduleRequest: {autostart?, autostop?, max_running?, time_zone?}.',
      source: 'Workspace spec.source: {git: {url, ref?, path?}}, a repository cloned into the home on the first start. url is https (or http) without credentials; ref a branch, tag or commit (the default branch when absent); path a folder relative to the home (the repository name when absent). devcontainer (beside git) chooses the repository\'s devcontainer.json: a configuration name (.devcontainer/<name>/devcontainer.json) or a .json path in it.',
    }),
  };
}

/** The paths of workspaces: the kind, its list, create, logs, events and apps. */
export function workspacePaths(): Record<string, Record<string, Operation>> {
  return {
    '/workspaces': {
      get: op('Workspaces', 'List workspaces', {
        description: 'An administrator sees the whole cluster (if the cluster\'s RBAC lets their identity list cluster-wide, else 403), everyone else only their own namespace.',
        parameters: [namespaceParam('Narrows the role-scoped result to one namespace; another person\'s namespace narrows a non-administrator\'s result to nothing.')],
        responses: { '200': json('WorkspaceList', 'The workspaces.'), ...errors([400, 401, 403]) },
      }),
      post: op('Workspaces', 'Create a workspace in the caller\'s own namespace', {
        requestBody: body('CreateWorkspaceRequest'),
        responses: { '201': json('Workspace', 'The workspace as the cluster created it.'), ...errors([400, 401, 403, 409], { 409: 'A workspace with that name exists.' }) },
      }),
    },
    '/workspaces/{name}': {
      get: op('Workspaces', 'Get a workspace', { parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE)], responses: { '200': json('Workspace', 'The workspace.'), ...errors([400, 401, 403, 404]) } }),
      delete: op('Workspaces', 'Delete a workspace and, by default, its home volume', {
        parameters: [
          nameParam('workspace'),
          namespaceParam(OTHER_NAMESPACE),
          { name: 'delete_volume', in: 'query', required: false, description: 'Only the exact value false keeps the home PVC home-<name>-0; any other value deletes it.', schema: { type: 'string', default: 'true' } },
        ],
        responses: { '204': noContent('Deleted.'), ...errors([400, 401, 403, 404, 409], { 409: 'The workspace was deleted but its home PVC deletion failed; the message names what is left.' }) },
      }),
    },
    '/workspaces/{name}/start': {
      post: op('Workspaces', 'Start a workspace (spec.running=true)', { parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE)], responses: { '200': json('Workspace', 'The workspace, spec.running true.'), ...errors([400, 401, 403, 404]) } }),
    },
    '/workspaces/{name}/stop': {
      post: op('Workspaces', 'Stop a workspace (spec.running=false)', { parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE)], responses: { '200': json('Workspace', 'The workspace, spec.running false.'), ...errors([400, 401, 403, 404]) } }),
    },
    '/workspaces/{name}/schedule': {
      patch: op('Workspaces', 'Change when a workspace starts and stops by itself (spec.schedule)', {
        description: 'A merge patch of spec.schedule with the caller\'s token (docs/schedules.md): a field named sets its part, an empty string removes it, an absent one stays. The admission webhook refuses an unknown time zone and a max_running above the space\'s limit (422, naming the limit).',
        parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE)],
        requestBody: body('ScheduleRequest'),
        responses: { '200': json('Workspace', 'The workspace with its new spec.schedule.'), ...errors([400, 401, 403, 404, 422]) },
      }),
    },
    '/workspaces/{name}/logs': {
      get: op('Workspaces', 'The last lines of the workspace pod\'s log', {
        parameters: [
          nameParam('workspace'),
          namespaceParam(OTHER_NAMESPACE),
          { name: 'tail', in: 'query', required: false, description: 'Number of lines from the end.', schema: { type: 'integer', minimum: 1, default: DEFAULT_LOG_TAIL } },
        ],
        responses: { '200': json('LogsResponse', 'The lines.'), ...errors([400, 401, 403, 404, 409], { 409: 'The workspace has no running pod: start it first.' }) },
      }),
    },
    '/workspaces/{name}/events': {
      get: op('Workspaces', 'What people did with a workspace', {
        description: `${ACTIVITY_ORDER} Read with the caller's token in the workspace's namespace; a workspace deleted a moment ago keeps its Events until they expire.`,
        parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE), ...activityParams],
        responses: { '200': json('ActivityList', 'The entries.'), ...errors([400, 401, 403]) },
      }),
    },
    '/workspaces/{name}/apps': {
      get: op('Workspaces', 'The apps and ports listening in the workspace pod, with their previews', {
        description: 'One exec as the caller (`cat /proc/net/tcp /proc/net/tcp6`): it needs pods/exec, which read-scoped tokens lack (403).',
        parameters: [nameParam('workspace'), namespaceParam(OTHER_NAMESPACE)],
        responses: { '200': json('WorkspaceApps', 'The listening ports.'), ...errors([400, 401, 403, 404, 409], { 409: 'The workspace is not Running, or its pod is not there yet.' }) },
      }),
    },
    '/workspaces/{name}/ports/{port}/share': {
      put: op('Workspaces', 'Share a port of a workspace through its host-based preview', {
        description: 'Written onto the Workspace (spec.sharedPorts) with the caller\'s token, so whoever may update the Workspace may share its ports; recorded as a PortShareChanged Event. Path-based previews, on Den\'s own origin, always serve only the owner.',
        parameters: [nameParam('workspace'), { name: 'port', in: 'path', required: true, description: 'TCP port, 1-65535.', schema: { type: 'integer', minimum: 1, maximum: 65535 } }, namespaceParam(OTHER_NAMESPACE)],
        requestBody: body('PortShareRequest'),
        responses: { '200': json('PortShare', 'The port\'s share as stored.'), ...errors([400, 401, 403, 404, 409], { 400: 'A field is wrong, the install has no host-based previews, or public ports are not allowed (the message names the setting).' }) },
      }),
    },
  };
}
