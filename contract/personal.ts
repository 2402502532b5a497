// A person's own environment variables and git credentials: two Secrets in their namespace,
// created empty by the manager (a UserSpace child, so the person's Role can name them by
// resourceNames: RBAC cannot limit `create` to a name) and written by the person with their own
// token through REST. Every workspace of theirs reads them: the variables through envFrom, the
// credentials as a read-only file git's credential helper reads (docs/personal-env.md).
import { GROUP } from '../kube/group.js';
import { SSH_KEY_PREFIX, SSH_KNOWN_HOST_PREFIX } from './git-ssh.js';

export const PERSONAL_ENV_SECRET = 'den-personal-env';
export const GIT_CREDENTIALS_SECRET = 'den-git-credentials';
/** The one key of the git credentials Secret: git-credential-store's file format. */
export const GIT_CREDENTIALS_KEY = 'credentials';

/** `den.dev/personal: env | git-credentials`: what the Secret holds; the manager's cache keeps none of its data. */
export const PERSONAL_LABEL = `${GROUP}/personal`;
/** On the env Secret: the names (comma-separated) whose values may be shown again; every other one is secret. */
/** A Secret of a person's own (variables, git credentials): Den renders it, the person fills it. */
export function isPersonalSecret(obj: { kind?: string; metadata?: { labels?: Record<string, string> } }): boolean {
  return obj.kind === 'Secret' && obj.metadata?.labels?.[PERSONAL_LABEL] !== undefined;
}

export const PLAIN_NAMES_ANNOTATION = `${GROUP}/plain-names`;

/** Where a workspace finds the credentials file (a Secret volume, read-only). */
export const GIT_CREDENTIALS_DIR = '/var/run/secrets/den.dev/git';
export const GIT_CREDENTIALS_FILE = `${GIT_CREDENTIALS_DIR}/${GIT_CREDENTIALS_KEY}`;
export const GIT_CREDENTIALS_VOLUME = 'den-git-credentials';
/**
 * The person's dotfiles repository (issue 34 part 3): one more key of den-git-credentials, so the
 * clone step finds it beside the credential that clones it, with no new Secret or RBAC rule.
 */
export const DOTFILES_KEY = 'dotfiles';
export const DOTFILES_FILE = `${GIT_CREDENTIALS_DIR}/${DOTFILES_KEY}`;

/**
 * git's credential helper inside a workspace: answers `get` from the mounted file and ignores
 * `store` and `erase`, which git-credential-store would try (and fail) to write to the
 * read-only file. The helper is given the file's path, never the token.
 */
export const GIT_CREDENTIAL_HELPER = `!f() { if [ "$1" = get ]; then git credential-store --file=${GIT_CREDENTIALS_FILE} get; fi; }; f`;

/** The identities ssh tries by default, which naming any IdentityFile would otherwise drop. */
const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk'];

/**
 * git's ssh inside a workspace: besides the person's own keys and known_hosts, the SSH key and
 * known host they keep for the host git connects to (the Secret's `ssh-key.<host>` and
 * `ssh-known-host.<host>`, `_<port>` for a port: ssh's %h and %p), so `git fetch` and `git push`
 * of a clone made over SSH work as the clone did. A file that is not there is skipped by ssh.
 */
export const GIT_SSH_COMMAND = [
  'ssh',
  ...DEFAULT_IDENTITIES.map((id) => `-o IdentityFile=~/.ssh/${id}`),
  `-o IdentityFile=${GIT_CREDENTIALS_DIR}/${SSH_KEY_PREFIX}%h -o IdentityFile=${GIT_CREDENTIALS_DIR}/${SSH_KEY_PREFIX}%h_%p`,
  `-o 'UserKnownHostsFile=~/.ssh/known_hosts ~/.ssh/known_hosts2 ${GIT_CREDENTIALS_DIR}/${SSH_KNOWN_HOST_PREFIX}%h ${GIT_CREDENTIALS_DIR}/${SSH_KNOWN_HOST_PREFIX}%h_%p'`,
].join(' ');

/** Configuration for git through its environment (git 2.31+): no file in the home, nothing in a repository's config. */
export function gitConfigEnv(): { name: string; value: string }[] {
  return [
    { name: 'GIT_CONFIG_COUNT', value: '2' },
    { name: 'GIT_CONFIG_KEY_0', value: 'credential.helper' },
    { name: 'GIT_CONFIG_VALUE_0', value: GIT_CREDENTIAL_HELPER },
    { name: 'GIT_CONFIG_KEY_1', value: 'core.sshCommand' },
    { name: 'GIT_CONFIG_VALUE_1', value: GIT_SSH_COMMAND },
  ];
}

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_NAME_MAX = 128;
/** Bytes of one value: well under Linux's 128 KiB for one environment string. */
export const ENV_VALUE_MAX = 16_384;
/** Variables one person keeps: with ENV_VALUE_MAX, under a Secret's 1 MiB. */
export const ENV_COUNT_MAX = 50;

/** Names Den sets in every workspace, or that its tools need as Kubernetes sets them. */
const RESERVED_NAMES = new Set(['HOME', 'SHELL', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_PARAMETERS']);
const RESERVED_PREFIXES = ['DEN_', 'GIT_CONFIG_KEY_', 'GIT_CONFIG_VALUE_', 'KUBERNETES_'];

/** Why `name` cannot be a personal variable, or undefined when it can. */
export function envNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'name is required';
  if (name.length > ENV_NAME_MAX) return `name must be at most ${ENV_NAME_MAX} characters`;
  if (!ENV_NAME_PATTERN.test(name)) return `name "${name}" is not an environment variable name: use letters, digits and "_", not starting with a digit`;
  if (RESERVED_NAMES.has(name)) return `name ${name} is set by Den in every workspace: choose another name`;
  const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `name ${name} starts with ${prefix}, which Den reserves: choose another name`;
  return undefined;
}

/** A git host as a person names it: `github.com`, `git.corp.example:8443` (lower-case, an optional port). */
export const GIT_HOST_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[1-9][0-9]{0,4})?$/;
export const GIT_HOST_MAX = 253;
export const GIT_TOKEN_MAX = 4096;
export const GIT_USERNAME_MAX = 256;
export const GIT_PROTOCOLS = ['https', 'http'] as const;
export type GitProtocol = (typeof GIT_PROTOCOLS)[number];
/** What git sends as the username when the person names none: GitHub and GitLab accept any with a token. */
export const DEFAULT_GIT_USERNAME = 'x-access-token';

export interface GitCredential {
  protocol: GitProtocol;
  host: string;
  username: string;
  token: string;
}

/** The credentials as git-credential-store reads them: one `protocol://user:token@host` line each. */
export function credentialStoreFile(credentials: readonly GitCredential[]): string {
  return credentials.map((c) => `${c.protocol}://${encodeURIComponent(c.username)}:${encodeURIComponent(c.token)}@${c.host}\n`).join('');
}

/** The lines of a credential-store file Den wrote; a line it cannot read is left out. */
export function parseCredentialStoreFile(text: string): GitCredential[] {
  const out: GitCredential[] = [];
  for (const line of text.split('\n')) {
    const m = /^(https?):\/\/([^:@/]*):([^@/]*)@([^/]+)$/.exec(line.trim());
    if (!m) continue;
    out.push({ protocol: m[1] as GitProtocol, username: decodeURIComponent(m[2]!), token: decodeURIComponent(m[3]!), host: m[4]! });
  }
  return out;
}
