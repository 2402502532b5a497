// The authentication services one server process runs, built from its own client.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { SHARE_LABELS } from '../../contract/share.js';
import { UserSpaceDirectory } from './directory.js';
import { LocalUserStore } from './local-users.js';
import { LoginChallengeStore } from './login-challenges.js';
import { TokenMinter } from '../../kube/minting.js';
import { DEFAULT_SESSION_POLICY, SessionStore, type SessionPolicy } from './sessions.js';
import { ServiceState } from './state.js';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle, type LoginThrottlePolicy } from './throttle.js';
import { ApiTokenStore } from './token-store.js';
import { AppPassStore } from './app-passes.js';
import type { MintingMetrics } from '../../kube/minting-metrics.js';

export interface AuthServiceOptions {
  /** Namespace of the server's state Secrets (`--namespace`). */
  namespace: string;
  /** Lifetime asked for minted ServiceAccount tokens (`--token-ttl`). */
  tokenTtlSeconds: number;
  /** False mints a token on every request (benchmark only). */
  cacheMintedTokens?: boolean;
  mintingMetrics?: MintingMetrics;
  sessionPolicy?: SessionPolicy;
  throttlePolicy?: LoginThrottlePolicy;
  relistIntervalMs?: number;
  onError?: (err: unknown) => void;
}

export interface AuthServices {
  state: ServiceState;
  directory: UserSpaceDirectory;
  sessions: SessionStore;
  tokens: ApiTokenStore;
  localUsers: LocalUserStore;
  challenges: LoginChallengeStore;
  /** Tickets and cookies of host-based app previews. */
  appPasses: AppPassStore;
  minter: TokenMinter;
  throttle: LoginThrottle;
  /** The share RoleBindings (contract/share.ts) labelled for `guest`, from a watch-backed cache: a guest's "shared with you" list without a cluster-wide LIST each time. */
  sharesNaming(guest: string): KubeObject[];
  /** Runs the caches until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Settles once every cache holds its first list. */
  synced: Promise<void>;
}

export function createAuthServices(serverClient: KubeClient, opts: AuthServiceOptions): AuthServices {
  const cacheOpts = { relistIntervalMs: opts.relistIntervalMs, onError: opts.onError };
  const state = new ServiceState(serverClient, opts.namespace, cacheOpts);
  const directory = new UserSpaceDirectory(serverClient, cacheOpts);
  const shares = new Informer<KubeObject>(serverClient, RESOURCES.roleBinding, { labelSelector: SHARE_LABELS.guest, ...cacheOpts });
  return {
    state,
    directory,
    sessions: new SessionStore(state, opts.sessionPolicy ?? DEFAULT_SESSION_POLICY),
    tokens: new ApiTokenStore(state),
    localUsers: new LocalUserStore(state),
    challenges: new LoginChallengeStore(state),
    appPasses: new AppPassStore(state),
    minter: new TokenMinter(serverClient, { ttlSeconds: opts.tokenTtlSeconds, cache: opts.cacheMintedTokens, metrics: opts.mintingMetrics, minter: 'the server' }),
    throttle: new LoginThrottle(opts.throttlePolicy ?? DEFAULT_LOGIN_THROTTLE),
    sharesNaming: (guest) => shares.list((b) => b.metadata?.labels?.[SHARE_LABELS.guest] === guest),
    async run(signal) {
      await Promise.all([state.run(signal), directory.run(signal), shares.run(signal)]);
    },
    synced: Promise.all([state.synced, directory.synced, shares.synced]).then(() => undefined),
  };
}
