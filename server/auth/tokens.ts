// API tokens (`svc_…`). Only the SHA-256 of a token is stored, as the Secret name, so
// a lookup is one cache read and the plaintext exists only in the issuing response.
import type { TokenScope } from '../http/context.js';
import { newApiToken, randomHex, sha256Hex } from './secrets.js';
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
    });
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

  /** The owner's tokens, oldest first, as the API server holds them (one issued on another replica included). */
  async list(owner: string): Promise<ApiToken[]> {
    return (await this.state.current('api-token'))
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
