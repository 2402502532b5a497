// The OpenAPI 3 description of the whole REST API (SPEC 4.1-4.6), served at /api/v1/openapi.json.
// The four cluster kinds are described by their CRD schemas, the single source of truth.
import { denCrds } from '../../contract/index.js';
import type { JsonSchema } from '../../contract/schema.js';
import { KINDS, VERSION } from '../../kube/group.js';
import { MEMBERSHIP_ROLES } from '../../contract/user-space.js';
import { loginRequest, localUserRequest, passwordRequest, sshKeyRequest } from './account-schemas.js';
import { requestBodySchema } from './openapi-requests.js';
import {
  createImageRegistryRequest,
  createWorkspaceImageRequest,
  createWorkspaceRequest,
  membershipRequest,
  patchImageRegistryRequest,
  patchWorkspaceImageRequest,
  quotaRequest,
  userSpaceRequest,
} from './schemas.js';
import { DEFAULT_LOG_TAIL } from './workspaces.js';
import { ACTIVITY_LIMIT } from './schemas.js';
import { ACTIVITY_KINDS } from '../../kube/den-events.js';
import { DNS1123_LABEL, DNS1123_LABEL_MAX } from '../../kube/names.js';
import { SPACE_BEING_REMOVED } from '../../koa/errors.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const int = (description: string, extra: Schema = {}): Schema => ({ type: 'integer', description, ...extra });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const strings = (description: string): Schema => ({ type: 'array', description, items: { type: 'string' } });

function closed(properties: Record<string, Schema>, required: string[] = [], description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function listOf(item: string): Schema {
  return { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref(item) } } };
}

// A namespace or token name query parameter, as the request schemas check it (fields.ts).
const LABEL_PARAMETER = { type: 'string', pattern: DNS1123_LABEL.source, maxLength: DNS1123_LABEL_MAX };

/** A cluster object as the cluster returns it; its own fields stay camelCase (SPEC 2.7). */
function clusterObject(kind: string): Schema {
  const crd = denCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no CRD for ${kind}`);
  const schema = crd.spec.versions[0]!.schema.openAPIV3Schema as JsonSchema & Schema;
  return { ...schema, description: `${schema.description ?? kind} Returned as the cluster returns it, with any extra properties.`, additionalProperties: true };
}

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

function schemas(): Record<string, Schema> {
  return {
    Error: closed({ error: str('What went wrong. For a cluster denial, the cluster\'s own message.') }, ['error']),
    SessionResponse: closed(
      { email: str('E-mail or cluster username.'), userspace: str('UserSpace name.'), namespace: str('The caller\'s namespace.'), role: str('user or admin.'), csrf_token: str('Value for the X-CSRF-Token header.'), auth: str('How the session was established: local (username and password), provider:<name> (an identity provider), or token (a bearer API token).'), token_name: str('With a bearer API token only: that token\'s name (DELETE /tokens/{name} revokes it).') },
      ['email', 'userspace', 'namespace', 'role', 'csrf_token', 'auth'],
    ),
    Workspace: clusterObject(KINDS.workspace),
    WorkspaceImage: clusterObject(KINDS.workspaceImage),
    ImageRegistry: clusterObject(KINDS.imageRegistry),
    UserSpace: clusterObject(KINDS.userSpace),
    UserSpaceWithUsage: {
      allOf: [ref('UserSpace')],
      type: 'object',
      properties: { usage: { ...quotaShape('What the namespace uses now (its ResourceQuota svc-quota), in the shape of spec.quota; null until the ResourceQuota exists.'), nullable: true } },
      required: ['usage'],
    },
    WorkspaceList: listOf('Workspace'),
    WorkspaceImageList: listOf('WorkspaceImage'),
    ImageRegistryList: listOf('ImageRegistry'),
    UserSpaceList: listOf('UserSpace'),
    UserSpaceQuotaList: listOf('UserSpaceWithUsage'),
    UserSpaceMembership: closed({ name: str('UserSpace name.'), role: str('user or admin.', { enum: [...MEMBERSHIP_ROLES] }), disabled: bool('A disabled person can no longer log in or use tokens.') }, ['name', 'role', 'disabled']),
    UserSpaceQuota: quotaShape('The quota (spec.quota) after the change.'),
    Token: closed(
      { name: str('Token name.'), namespace: str('Namespace the token acts in.'), created_at: str('Creation time.', { format: 'date-time' }), token: str('Plaintext, present only in the issuing response.') },
      ['name', 'namespace', 'created_at'],
    ),
    TokenList: listOf('Token'),
    LocalUserResponse: closed({ name: str('Object name.'), username: str('Login name.'), owner: str('UserSpace owner it signs in as.') }, ['name', 'username', 'owner']),
    LocalUserList: listOf('LocalUserResponse'),
    ActivityEntry: closed(
      {
        time: str('When it last happened (the Event\'s lastTimestamp).', { format: 'date-time' }),
        first_time: str('When it first happened.', { format: 'date-time' }),
        count: int('How many times it happened from first_time to time: a burst is one entry.', { minimum: 1 }),
        namespace: str('Namespace of the workspace.'),
        workspace: str('Name of the workspace.'),
        person: str('Who acted (a UserSpace name); empty when Den itself acted (idle auto-stop).'),
        kind: str('What kind of act.', { enum: [...ACTIVITY_KINDS] }),
        reason: str('The Event\'s reason: SSHSessionOpened, SSHSessionClosed, TerminalOpened, TerminalClosed, Started, Stopped, Resized or Deleted.'),
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
      },
      ['namespace', 'workspace', 'pod', 'apps', 'listening'],
      'What a workspace serves: its declared apps and its listening ports, with their previews.',
    ),
    LogsResponse: closed({ namespace: str('Namespace of the pod.'), pod: str('Pod the lines come from.'), lines: str('The last lines of the log.') }, ['namespace', 'pod', 'lines']),
    LoginRequest: requestBodySchema('LoginRequest', loginRequest, { username: 'Local username.', password: 'Password.' }),
    CreateWorkspaceRequest: requestBodySchema('CreateWorkspaceRequest', createWorkspaceRequest, {
      name: 'Workspace name (RFC 1035 label: it also names the Service).',
      image: 'WorkspaceImage entry name.',
      cpu: 'Used as both request and limit.',
      memory: 'Used as both request and limit.',
      gpu: "Whole number of GPUs, request equal to limit, under the platform's GPU resource name.",
      storage: 'Home PVC size. Immutable.',
      ssh_public_key: 'OpenSSH public key line accepted by the gateway.',
    }),
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
    LocalUserRequest: requestBodySchema('LocalUserRequest', localUserRequest, { username: 'Login name.', password: 'Password.', owner: 'UserSpace owner it signs in as.' }),
    SshKeyRequest: requestBodySchema('SshKeyRequest', sshKeyRequest, { key: 'One OpenSSH public key line (ssh-…, ecdsa-sha2-… or sk-…).' }),
    SshKeyList: closed({ items: strings('The keys saved in the caller\'s UserSpace (spec.sshAuthorizedKeys); new workspaces that name no key get these.') }, ['items']),
    PasswordRequest: requestBodySchema('PasswordRequest', passwordRequest, { current_password: 'The password now.', new_password: 'The new password.' }),
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request body, path or query parameter (unknown ones included), malformed JSON, or an admission denial (the cluster\'s message).',
  401: 'Missing or invalid session cookie or bearer token.',
  403: 'Denied by the cluster\'s RBAC for the caller\'s identity (the cluster\'s message verbatim); or the person is disabled or has no UserSpace; or a mutating cookie request without the session\'s X-CSRF-Token.',
  404: 'No object with that name (in that namespace).',
  409: 'Conflict; see the operation.',
  413: 'Request body larger than 1 MiB.',
  415: 'Request body that is not JSON.',
  429: 'Too many failed password attempts for this username; Retry-After says when to try again.',
  502: 'The cluster API failed, or refused the server a token for the caller\'s ServiceAccount.',
  503: 'The server is still starting, the caller\'s namespace is not ready yet, or the cluster API is unreachable or busy; retry after Retry-After.',
};

const ADMIN_ONLY = 'The caller is not an administrator (a SelfSubjectAccessReview for create userspaces.den.dev with the caller\'s token is denied); or the person is disabled or has no UserSpace; or a cookie request without the session\'s X-CSRF-Token.';

/** What any request can meet before its route runs: a bad or oversized body, a server still starting, a cluster away. */
export const EVERY_REQUEST = [400, 413, 415, 503];
/** What any authenticated request can meet besides: no or a bad credential, a refused person or CSRF token, a space being removed, a failed mint. */
export const AUTHENTICATED = [401, 403, 409, 502];

const REMOVAL = `Or the caller's space (namespace) is being removed: "${SPACE_BEING_REMOVED}".`;

type Access = 'authenticated' | 'public';

/** The error answers of an operation: those SPEC 4 lists for it, and those every request (or every authenticated one) can meet. */
function errors(codes: number[], overrides: Record<number, string> = {}, access: Access = 'authenticated'): Record<string, unknown> {
  const all = new Set([...codes, ...EVERY_REQUEST, ...(access === 'authenticated' ? AUTHENTICATED : [])]);
  return Object.fromEntries(
    [...all].sort((a, b) => a - b).map((code) => {
      const text = overrides[code] ?? STATUS_TEXT[code];
      const description = code === 409 && access === 'authenticated' ? `${text} ${REMOVAL}` : text;
      return [String(code), { description, content: { 'application/json': { schema: ref('Error') } } }];
    }),
  );
}

const json = (schema: string, description: string) => ({ description, content: { 'application/json': { schema: ref(schema) } } });
const body = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });
const optionalBody = (schema: string) => ({ required: false, content: { 'application/json': { schema: ref(schema) } } });
const noContent = (description: string) => ({ description });

const nameParam = (what: string) => ({ name: 'name', in: 'path', required: true, description: `Name of the ${what}.`, schema: { type: 'string' } });
const namespaceParam = (description: string) => ({ name: 'namespace', in: 'query', required: false, description, schema: LABEL_PARAMETER });
const OTHER_NAMESPACE = 'Namespace of a visible workspace the caller does not own; the caller\'s own namespace when omitted.';

const activityParams = [
  { name: 'person', in: 'query', required: false, description: 'Only what this person (UserSpace name) did, and what happened to workspaces in their namespace svc-<person>.', schema: LABEL_PARAMETER },
  { name: 'kind', in: 'query', required: false, description: 'Only this kind of act.', schema: { type: 'string', enum: [...ACTIVITY_KINDS] } },
  { name: 'limit', in: 'query', required: false, description: 'At most this many entries, the newest.', schema: { type: 'integer', minimum: 1, maximum: ACTIVITY_LIMIT.max, default: ACTIVITY_LIMIT.default } },
];
const ACTIVITY_ORDER = 'Newest first. Den records as core/v1 Events on the Workspace (source.component den, so kubectl describe workspace shows them too): SSH sessions opened and closed, browser terminals opened and closed, starts and stops (by whom), resizes and deletions. A burst of the same act is one entry with a count. Events expire with the cluster\'s event TTL (one hour by default).';

function op(tag: string, summary: string, rest: Operation): Operation {
  return { tags: [tag], summary, ...rest };
}

const PUBLIC = { security: [] };

function paths(): Record<string, Record<string, Operation>> {
  return {
    '/openapi.json': {
      get: op('Meta', 'This description', { ...PUBLIC, responses: { '200': { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors([], {}, 'public') } }),
    },
    '/login': {
      post: op('Session', 'Sign in with a local username and password', {
        ...PUBLIC,
        requestBody: body('LoginRequest'),
        responses: {
          '204': {
            description: 'Signed in. Set-Cookie carries svc_session.',
            headers: { 'X-CSRF-Token': { description: 'CSRF token for mutating cookie requests.', schema: { type: 'string' } }, 'Set-Cookie': { description: 'svc_session (opaque id, HttpOnly).', schema: { type: 'string' } } },
          },
          ...errors(
            [401, 403, 404, 429],
            { 401: 'Invalid username or password.', 403: 'The password is right, but the person is disabled or has no UserSpace.', 404: 'Local login is disabled.' },
            'public',
          ),
        },
      }),
    },
    '/session': { get: op('Session', 'The current session', { responses: { '200': json('SessionResponse', 'The session.'), ...errors([401]) } }) },
    '/logout': {
      post: op('Session', 'End the cookie session', { responses: { '204': noContent('Session ended, cookie cleared.'), ...errors([400, 401], { 400: 'Called with a bearer token (revoke the token instead), or an unknown query parameter or a malformed body.' }) } }),
    },
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
    '/tokens': {
      get: op('Tokens', 'The caller\'s API tokens, never with plaintext', { responses: { '200': json('TokenList', 'The tokens.'), ...errors([400, 401]) } }),
      post: op('Tokens', 'Issue an API token', {
        description: 'No body. A read-scoped token acts as the session-readonly identity (reads only); a read-scoped token cannot issue or revoke tokens.',
        parameters: [
          { name: 'scope', in: 'query', required: false, description: 'full (default) or read.', schema: { type: 'string', enum: ['full', 'read'], default: 'full' } },
          { name: 'name', in: 'query', required: false, description: 'Token name (RFC 1123 label); generated when omitted.', schema: LABEL_PARAMETER },
        ],
        responses: {
          '201': json('Token', 'The token, with its plaintext shown this once.'),
          ...errors([400, 401, 403, 409], { 403: 'Called with a read-scoped token; or the person is disabled or has no UserSpace; or a cookie request without the session\'s X-CSRF-Token.', 409: 'A token with that name exists.' }),
        },
      }),
    },
    '/tokens/{name}': {
      delete: op('Tokens', 'Revoke an API token', { parameters: [nameParam('token')], responses: { '204': noContent('Revoked; it stops working at once.'), ...errors([401, 403, 404], { 403: 'Called with a read-scoped token; or the person is disabled or has no UserSpace; or a cookie request without the session\'s X-CSRF-Token.', 404: 'The caller has no token of that name.' }) } }),
    },
    '/profile/ssh-keys': {
      get: op('Profile', 'The SSH public keys saved in the caller\'s UserSpace', { responses: { '200': json('SshKeyList', 'The saved keys.'), ...errors([400, 401, 403]) } }),
      post: op('Profile', 'Save an SSH public key in the caller\'s UserSpace (kept once)', {
        requestBody: body('SshKeyRequest'),
        responses: { '200': json('SshKeyList', 'The saved keys, this one among them.'), ...errors([400, 401, 403]) },
      }),
    },
    '/profile/password': {
      post: op('Profile', 'Change the password of the session\'s local account', {
        requestBody: body('PasswordRequest'),
        responses: { '204': noContent('Changed.'), ...errors([400, 401, 409, 429], { 409: 'The session has no local password to change (signed in through an identity provider, or no local credential).' }) },
      }),
    },
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
    '/admin/local-users': {
      get: op('Administration', 'List local users', { responses: { '200': json('LocalUserList', 'The local users.'), ...errors([401, 403, 404], { 403: ADMIN_ONLY, 404: 'Local user management is disabled.' }) } }),
      post: op('Administration', 'Create a local user', { requestBody: body('LocalUserRequest'), responses: { '201': json('LocalUserResponse', 'The local user; the password is never returned.'), ...errors([400, 401, 403, 404, 409], { 403: ADMIN_ONLY, 404: 'Local user management is disabled.', 409: 'A local user with that username exists.' }) } }),
    },
    '/admin/local-users/{name}': {
      delete: op('Administration', 'Delete a local user', { parameters: [nameParam('local user')], responses: { '204': noContent('Deleted; that user\'s sessions end.'), ...errors([401, 403, 404], { 403: ADMIN_ONLY, 404: 'No local user of that name, or local user management is disabled.' }) } }),
    },
  };
}

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Den REST API',
      version: VERSION,
      description:
        'Personal remote development workspaces. Every call runs against the cluster API with the caller\'s own forwarded ServiceAccount token: the cluster\'s RBAC decides, and its 403 message is returned verbatim. Errors are {error}; lists are {items}; cluster objects are returned as they are (camelCase). Request bodies are JSON of at most 1 MiB (413 otherwise); unknown fields and wrong types are refused with 400 naming the field. A mutating request authenticated by the session cookie needs the X-CSRF-Token header (403 when it is missing or wrong).',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ session: [], csrf: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'Set by POST /login. Mutating requests also need X-CSRF-Token.' },
        csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'From the login response header or GET /session csrf_token; needed on mutating cookie requests only.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token svc_... from POST /tokens.' },
      },
      schemas: schemas(),
    },
    paths: paths(),
  };
}
