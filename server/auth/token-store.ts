// API tokens (`svc_…`). Only the SHA-256 of a token is stored, as the Secret name, so
// a lookup is one cache read and the plaintext exists only in the issuing response.
import type { TokenScope } from '../http/context.js';
import { newApiToken, randomHex, sha256Hex } from './secrets.js';
import { GROUP as STATE_GROUP } from '../../kube/group.js';
import type { ServiceState, StateRecord } from './state.js';

export interface ApiToken {
  secretName: string;
  name: string;
  /** The person it belongs to (`UserSpace.spec.owner`). */
  owner: string;
  userspace: string;
  namespace: string;
  scope: TokenScope;
  createdAt: string;
}

export function tokenSecretName(token: string): string {
  return `api-token-${sha256Hex(token)}`;
}

/**
 * On each token's Secret: a hash of its owner (a label value cannot hold an e-mail address), so
 * listing one person's tokens asks the API server for theirs alone, not every person's.
 */
export const TOKEN_OWNER_LABEL = `${STATE_GROUP}/owner-sha256`;

/** The owner label's value: the first 128 bits of the owner's SHA-256, in hex. */
export function tokenOwnerHash(owner: string): string {
  return sha256Hex(owner).slice(0, 32);
}

export function apiTokenOf(record: StateRecord): ApiToken | undefined {
  const { name, owner, userspace, namespace, scope, created_at } = record.data;
  if (!name || !owner || !userspace || !namespace || !created_at || (scope !== 'full' && scope !== 'read')) return undefined;
  return { secretName: record.name, name, owner, userspace, namespace, scope, createdAt: created_at };
}

export class TokenNameTakenError extends Error {
  override readonly name = 'TokenNameTakenError';
}

export class ApiTokenStore {
  constructor(private readonly state: ServiceState) {}

  /** Issues a token; the plaintext is returned once and never stored. */
  async issue(input: { name?: string; owner: string; userspace: string; namespace: string; scope: TokenScope }, now: number): Promise<{ token: string; record: ApiToken }> {
    const name = input.name ?? `token-${randomHex(4)}`;
    if ((await this.list(input.owner)).some((t) => t.name === name)) throw new TokenNameTakenError(`a token named ${name} already exists`);
    const token = newApiToken();
    const record = await this.state.create('api-token', tokenSecretName(token), {
      name,
      owner: input.owner,
      userspace: input.userspace,
      namespace: input.namespace,
      scope: input.scope,
      created_at: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }, { [TOKEN_OWNER_LABEL]: tokenOwnerHash(input.owner) });
    return { token, record: apiTokenOf(record)! };
  }

  async lookup(token: string): Promise<ApiToken | undefined> {
    const record = await this.state.find('api-token', tokenSecretName(token));
    return record && apiTokenOf(record);
  }

  /** The token as this replica's informer holds it: a hint, confirmed by `lookup`. */
  cached(token: string): ApiToken | undefined {
    const record = this.state.cached('api-token', tokenSecretName(token));
    return record && apiTokenOf(record);
  }

  /**
   * The owner's tokens, oldest first, as the API server holds them (one issued on another replica
   * included): those labelled with the owner's hash, and those issued before tokens carried the
   * label. The owner named in each record decides; the hash only narrows the list.
   */
  async list(owner: string): Promise<ApiToken[]> {
    const [labelled, unlabelled] = await Promise.all([
      this.state.current('api-token', `${TOKEN_OWNER_LABEL}=${tokenOwnerHash(owner)}`),
      this.state.current('api-token', `!${TOKEN_OWNER_LABEL}`),
    ]);
    return [...labelled, ...unlabelled]
      .map(apiTokenOf)
      .filter((t): t is ApiToken => t?.owner === owner)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
  }

  /** Revokes the owner's token `name` at once; false when the owner has none by that name. */
  async revoke(owner: string, name: string): Promise<boolean> {
    const found = (await this.list(owner)).find((t) => t.name === name);
    if (!found) return false;
    return this.state.remove(found.secretName);
  }
}
