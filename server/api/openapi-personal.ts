// The OpenAPI description of the person's own variables and git credentials (server/api/personal.ts).
import { ENV_COUNT_MAX, ENV_NAME_MAX, ENV_NAME_PATTERN, ENV_VALUE_MAX, GIT_HOST_MAX, GIT_HOST_PATTERN } from '../../contract/personal.js';
import { dotfilesRequest, envRequest, gitCredentialRequest, sshKeyRequest } from './personal.js';
import { requestBodySchema } from './openapi-requests.js';
import { bool, body, closed, errors, json, LABEL_PARAMETER, listOf, noContent, op, ref, str, type Operation, type Schema } from './openapi-shapes.js';

const OWN = 'Runs with the caller\'s own token on their Secret den-personal-env or den-git-credentials in their namespace; a read-scoped token may read but not write (the cluster\'s 403).';
const NOT_SET_UP = 'Also: the caller\'s namespace does not have the Secret yet (a space still being set up); retry after Retry-After.';
const variableParam = { name: 'variable', in: 'path', required: true, description: `An environment variable name: letters, digits and "_", not starting with a digit, at most ${ENV_NAME_MAX} characters; not HOME, SHELL, GIT_CONFIG_COUNT or GIT_CONFIG_PARAMETERS, nor starting with DEN_, GIT_CONFIG_KEY_, GIT_CONFIG_VALUE_ or KUBERNETES_.`, schema: { type: 'string', pattern: ENV_NAME_PATTERN.source, maxLength: ENV_NAME_MAX } };
const hostParam = { name: 'host', in: 'path', required: true, description: 'The git host, lower-case, with an optional port: github.com, git.example.com:8443. No scheme, no path.', schema: { type: 'string', pattern: GIT_HOST_PATTERN.source, maxLength: GIT_HOST_MAX } };
const namespaceParam = { name: 'namespace', in: 'query', required: false, description: 'Another namespace to read; the cluster answers 403 for anyone else\'s. The caller\'s own when omitted.', schema: LABEL_PARAMETER };

export function personalSchemas(): Record<string, Schema> {
  return {
    EnvVariable: closed(
      { name: str('The variable\'s name.'), secret: bool('True: its value is never shown again.'), value: str('The value of a variable that is not secret; absent for a secret one.') },
      ['name', 'secret'],
    ),
    EnvVariableList: listOf('EnvVariable'),
    EnvRequest: requestBodySchema('EnvRequest', envRequest, { value: `The value, at most ${ENV_VALUE_MAX} bytes of UTF-8, no NUL.`, secret: 'Whether the value is secret (default true): a secret value is never shown again.' }),
    GitCredential: closed(
      { host: str('The git host.'), protocol: str('https, or http for a server without TLS.', { enum: ['https', 'http'] }), username: str('The username git sends with the token.') },
      ['host', 'protocol', 'username'],
    ),
    GitCredentialList: closed(
      { items: { type: 'array', items: ref('GitCredential') }, ssh_keys: { type: 'array', description: 'The hosts the caller keeps an SSH key for, sorted by host.', items: ref('GitSshKey') } },
      ['items', 'ssh_keys'],
    ),
    GitSshKey: closed(
      { host: str('The git host (with :port when not 22).'), public_key: str('The public half of the kept key (type and base64), to add to the git host; the private key is never answered.'), host_key_fingerprint: str('The SHA256 fingerprint of the host key Den requires the host to show.') },
      ['host', 'public_key', 'host_key_fingerprint'],
    ),
    GitSshKeyRequest: requestBodySchema('GitSshKeyRequest', sshKeyRequest, {
      ssh_private_key: 'The private key file\'s contents (OpenSSH or PEM), without a passphrase: Den cannot type one. Never shown again.',
      ssh_known_host: 'One line of ssh-keyscan <host> (or known_hosts) for this host: the host key a clone requires; there is no trust on first use.',
    }),
    Dotfiles: closed({ url: { type: 'string', nullable: true, description: 'The dotfiles repository\'s https URL; null when none is kept.' } }, ['url']),
    DotfilesRequest: requestBodySchema('DotfilesRequest', dotfilesRequest, { url: 'The dotfiles repository\'s https (or http) URL, no credentials in it (a private one clones with the git credential kept for its host).' }),
    GitCredentialRequest: requestBodySchema('GitCredentialRequest', gitCredentialRequest, { token: 'The token (a personal access token); never shown again.', username: 'The username git sends (default x-access-token, which GitHub and GitLab accept with a token).', protocol: 'https (default) or http.' }),
  };
}

export function personalPaths(): Record<string, Record<string, Operation>> {
  return {
    '/profile/env': {
      get: op('Profile', 'The caller\'s environment variables: names, whether each is secret, and the values of those that are not', { parameters: [namespaceParam], responses: { '200': json('EnvVariableList', 'Sorted by name.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
    },
    '/profile/env/{variable}': {
      put: op('Profile', `Set one environment variable for every workspace of the caller (from its next start); at most ${ENV_COUNT_MAX}`, { description: OWN, parameters: [variableParam], requestBody: body('EnvRequest'), responses: { '200': json('EnvVariable', 'Saved; a secret value is not answered.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
      delete: op('Profile', 'Remove one environment variable', { description: OWN, parameters: [variableParam], responses: { '204': noContent('Removed; workspaces lose it at their next start.'), ...errors([400, 401, 403, 404], { 404: 'The caller has no variable of that name.', 503: NOT_SET_UP }) } }),
    },
    '/profile/git-credentials': {
      get: op('Profile', 'The git hosts the caller keeps a token for, never the tokens', { parameters: [namespaceParam], responses: { '200': json('GitCredentialList', 'Sorted by host.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
    },
    '/profile/dotfiles': {
      get: op('Profile', 'The caller\'s dotfiles repository, cloned into ~/.dotfiles on each new workspace\'s first start', { parameters: [namespaceParam], responses: { '200': json('Dotfiles', 'url is null when none is kept.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
      put: op('Profile', 'Keep a dotfiles repository: a workspace\'s first start clones it into ~/.dotfiles and runs its install script (or links its dot files)', { description: OWN, requestBody: body('DotfilesRequest'), responses: { '200': json('Dotfiles', 'Saved.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
      delete: op('Profile', 'Forget the dotfiles repository (workspaces that have it keep ~/.dotfiles)', { description: OWN, responses: { '204': noContent('Removed.'), ...errors([400, 401, 403, 404], { 404: 'The caller keeps no dotfiles repository.', 503: NOT_SET_UP }) } }),
    },
    '/profile/git-credentials/{host}': {
      put: op('Profile', 'Keep a token for one git host; git in every workspace of the caller uses it', { description: OWN, parameters: [hostParam], requestBody: body('GitCredentialRequest'), responses: { '200': json('GitCredential', 'Saved; the token is not answered.'), ...errors([400, 401, 403], { 503: NOT_SET_UP }) } }),
      delete: op('Profile', 'Forget the token of one git host', { description: OWN, parameters: [hostParam], responses: { '204': noContent('Removed.'), ...errors([400, 401, 403, 404], { 404: 'The caller keeps no token for that host.', 503: NOT_SET_UP }) } }),
    },
    '/profile/git-credentials/{host}/ssh-key': {
      put: op('Profile', 'Keep an SSH key and the host\'s key for one git host; a workspace cloning an SSH address of that host uses them', { description: OWN, parameters: [hostParam], requestBody: body('GitSshKeyRequest'), responses: { '200': json('GitSshKey', 'Saved; the private key is not answered.'), ...errors([400, 401, 403], { 400: 'A private key that cannot be read or has a passphrase, or a known-host line that is not one host key line for this host.', 503: NOT_SET_UP }) } }),
      delete: op('Profile', 'Forget the SSH key of one git host', { description: OWN, parameters: [hostParam], responses: { '204': noContent('Removed.'), ...errors([400, 401, 403, 404], { 404: 'The caller keeps no SSH key for that host.', 503: NOT_SET_UP }) } }),
    },
  };
}
