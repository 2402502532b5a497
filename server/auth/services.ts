// The authentication services one server process runs, built from its own client.
import type { KubeClient } from '../../kube/client.js';
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
  /** Runs the caches until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Settles once both caches hold their first list. */
  synced: Promise<void>;
}

export function createAuthServices(serverClient: KubeClient, opts: AuthServiceOptions): AuthServices {
  const cacheOpts = { relistIntervalMs: opts.relistIntervalMs, onError: opts.onError };
  const state = new ServiceState(serverClient, opts.namespace, cacheOpts);
  const directory = new UserSpaceDirectory(serverClient, cacheOpts);
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
    async run(signal) {
      await Promise.all([state.run(signal), directory.run(signal)]);
    },
    synced: Promise.all([state.synced, directory.synced]).then(() => undefined),
  };
}
