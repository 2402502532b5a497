// The OpenAPI 3 description of the whole REST API (SPEC 4.1-4.6), served at /api/v1/openapi.json.
// The four cluster kinds are described by their CRD schemas, the single source of truth. By
// resource: openapi-accounts.ts, openapi-workspaces.ts, openapi-catalog.ts, openapi-people.ts,
// built from openapi-shapes.ts.
import { VERSION } from '../../kube/group.js';
import { accountPaths, accountSchemas } from './openapi-accounts.js';
import { catalogPaths, catalogSchemas } from './openapi-catalog.js';
import { peoplePaths, peopleSchemas } from './openapi-people.js';
import { personalPaths, personalSchemas } from './openapi-personal.js';
import { closed, errors, json, op, PUBLIC, str, type Operation, type Schema } from './openapi-shapes.js';
import { workspacePaths, workspaceSchemas } from './openapi-workspaces.js';
import { sharePaths, shareSchemas } from './openapi-shares.js';

function commonSchemas(): Record<string, Schema> {
  return {
    Error: closed({ error: str('What went wrong. For a cluster denial, the cluster\'s own message.') }, ['error']),
    VersionResponse: closed({ version: str('This Den\'s version (package.json), the same as the den it serves at /cli/den.tgz.') }, ['version']),
  };
}

function metaPaths(): Record<string, Record<string, Operation>> {
  return {
    '/openapi.json': {
      get: op('Meta', 'This description', { ...PUBLIC, responses: { '200': { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors([], {}, 'public') } }),
    },
    '/version': {
      get: op('Meta', 'The version of this Den', {
        ...PUBLIC,
        description: 'Answered without signing in, also while the server starts; `den version` compares it with its own.',
        responses: { '200': json('VersionResponse', 'The version.'), ...errors([], {}, 'public') },
      }),
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
      schemas: { ...commonSchemas(), ...accountSchemas(), ...workspaceSchemas(), ...catalogSchemas(), ...peopleSchemas(), ...personalSchemas(), ...shareSchemas() },
    },
    paths: { ...metaPaths(), ...accountPaths(), ...workspacePaths(), ...catalogPaths(), ...peoplePaths(), ...personalPaths(), ...sharePaths() },
  };
}
