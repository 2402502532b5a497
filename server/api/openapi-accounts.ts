// The OpenAPI description of accounts (SPEC 4.1, 4.5): sign-in and sessions, API tokens, the
// caller's profile (SSH keys, password) and local users.
import { loginRequest, localUserRequest, passwordRequest, sshKeyRequest } from './account-schemas.js';
import { requestBodySchema } from './openapi-requests.js';
import { ADMIN_ONLY, body, closed, errors, json, LABEL_PARAMETER, listOf, nameParam, noContent, op, PUBLIC, str, strings, type Operation, type Schema } from './openapi-shapes.js';

/** The component schemas of sessions, API tokens, the profile and local users. */
export function accountSchemas(): Record<string, Schema> {
  return {
    SessionResponse: closed(
      { email: str('E-mail or cluster username.'), userspace: str('UserSpace name.'), namespace: str('The caller\'s namespace.'), role: str('user or admin.'), csrf_token: str('Value for the X-CSRF-Token header.'), auth: str('How the session was established: local (username and password), provider:<name> (an identity provider), or token (a bearer API token).'), token_name: str('With a bearer API token only: that token\'s name (DELETE /tokens/{name} revokes it).') },
      ['email', 'userspace', 'namespace', 'role', 'csrf_token', 'auth'],
    ),
    Token: closed(
      { name: str('Token name.'), namespace: str('Namespace the token acts in.'), created_at: str('Creation time.', { format: 'date-time' }), token: str('Plaintext, present only in the issuing response.') },
      ['name', 'namespace', 'created_at'],
    ),
    TokenList: listOf('Token'),
    LocalUserResponse: closed({ name: str('Object name.'), username: str('Login name.'), owner: str('UserSpace owner it signs in as.') }, ['name', 'username', 'owner']),
    LocalUserList: listOf('LocalUserResponse'),
    LoginRequest: requestBodySchema('LoginRequest', loginRequest, { username: 'Local username.', password: 'Password.' }),
    LocalUserRequest: requestBodySchema('LocalUserRequest', localUserRequest, { username: 'Login name.', password: 'Password.', owner: 'UserSpace owner it signs in as.' }),
    SshKeyRequest: requestBodySchema('SshKeyRequest', sshKeyRequest, { key: 'One OpenSSH public key line (ssh-…, ecdsa-sha2-… or sk-…).' }),
    SshKeyList: closed({ items: strings('The keys saved in the caller\'s UserSpace (spec.sshAuthorizedKeys); new workspaces that name no key get these.') }, ['items']),
    PasswordRequest: requestBodySchema('PasswordRequest', passwordRequest, { current_password: 'The password now.', new_password: 'The new password.' }),
  };
}

/** The paths of sessions, API tokens, the profile and local users. */
export function accountPaths(): Record<string, Record<string, Operation>> {
  return {
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
    '/admin/local-users': {
      get: op('Administration', 'List local users', { responses: { '200': json('LocalUserList', 'The local users.'), ...errors([401, 403, 404], { 403: ADMIN_ONLY, 404: 'Local user management is disabled.' }) } }),
      post: op('Administration', 'Create a local user', { requestBody: body('LocalUserRequest'), responses: { '201': json('LocalUserResponse', 'The local user; the password is never returned.'), ...errors([400, 401, 403, 404, 409], { 403: ADMIN_ONLY, 404: 'Local user management is disabled.', 409: 'A local user with that username exists.' }) } }),
    },
    '/admin/local-users/{name}': {
      delete: op('Administration', 'Delete a local user', { parameters: [nameParam('local user')], responses: { '204': noContent('Deleted; that user\'s sessions end.'), ...errors([401, 403, 404], { 403: ADMIN_ONLY, 404: 'No local user of that name, or local user management is disabled.' }) } }),
    },
  };
}
