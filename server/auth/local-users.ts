// Local users: a username, the person (UserSpace owner) it signs in as, and an scrypt
// hash. One Secret per user, named after the username, so `den users add` and the
// server agree on where a user lives.
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.js';
import { renderStateSecret, type SecretObject, type ServiceState, type StateRecord } from './state.js';

/** Lower-case DNS-label characters, so the Secret name stays valid. */
export const USERNAME_PATTERN = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

export interface LocalUser {
  secretName: string;
  username: string;
  owner: string;
  passwordHash: string;
  createdAt: string;
}

export function localUserSecretName(username: string): string {
  return `local-user-${username}`;
}

export function localUserOf(record: StateRecord): LocalUser | undefined {
  const { username, owner, password_hash, created_at } = record.data;
  if (!username || !owner || !password_hash) return undefined;
  return { secretName: record.name, username, owner, passwordHash: password_hash, createdAt: created_at ?? '' };
}

function localUserData(user: { username: string; owner: string; passwordHash: string }, now: number): Record<string, string> {
  return { username: user.username, owner: user.owner, password_hash: user.passwordHash, created_at: new Date(now).toISOString() };
}

/** The Secret of one local user, as the server and `den users add` both write it. */
export function renderLocalUserSecret(namespace: string, user: { username: string; owner: string; passwordHash: string }, now: number): SecretObject {
  return renderStateSecret(namespace, 'local-user', localUserSecretName(user.username), localUserData(user, now));
}

export class LocalUserExistsError extends Error {
  override readonly name = 'LocalUserExistsError';
}

export class LocalUserStore {
  constructor(private readonly state: ServiceState) {}

  async get(username: string): Promise<LocalUser | undefined> {
    if (!USERNAME_PATTERN.test(username)) return undefined;
    const record = await this.state.find('local-user', localUserSecretName(username));
    return record && localUserOf(record);
  }

  /** Every local user, as the API server holds them. */
  async list(): Promise<LocalUser[]> {
    return (await this.state.current('local-user'))
      .map(localUserOf)
      .filter((u): u is LocalUser => u !== undefined)
      .sort((a, b) => a.username.localeCompare(b.username));
  }

  async create(input: { username: string; owner: string; password: string }, now: number): Promise<LocalUser> {
    if (await this.get(input.username)) throw new LocalUserExistsError(`local user ${input.username} already exists`);
    const passwordHash = await hashPassword(input.password);
    const record = await this.state.create('local-user', localUserSecretName(input.username), localUserData({ ...input, passwordHash }, now));
    return localUserOf(record)!;
  }

  async remove(username: string): Promise<boolean> {
    if (!USERNAME_PATTERN.test(username)) return false;
    return this.state.remove(localUserSecretName(username));
  }

  /**
   * The user when `password` is theirs. An unknown username is checked against a dummy
   * hash, so it takes as long as a wrong password and the two cannot be told apart.
   */
  async verify(username: string, password: string): Promise<LocalUser | undefined> {
    const user = await this.get(username);
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    return user && matches ? user : undefined;
  }

  async setPassword(username: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.state.update('local-user', localUserSecretName(username), { password_hash: passwordHash });
  }
}
