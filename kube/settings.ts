// The settings every role reads the same way to reach the cluster: how to reach the API
// server, the platform's own namespace, and the lifetime of the tokens minted for people. Each role spreads the ones it uses.
import { parsers, type Setting } from '../process/settings.js';
import { KUBECONFIG_LOOKUP } from './connection.js';
import { SYSTEM_NAMESPACE } from './group.js';

export const kubeconfigSetting: Setting<string> = {
  flag: 'kubeconfig',
  env: 'DEN_KUBECONFIG',
  describe: `kubeconfig file; empty: ${KUBECONFIG_LOOKUP}`,
  parse: parsers.string,
  default: '',
};

/** `keeps` says what the role stores there, for --help. */
export function namespaceSetting(keeps?: string): Setting<string> {
  return {
    flag: 'namespace',
    env: 'DEN_NAMESPACE',
    describe: `the platform's own namespace${keeps ? ` (${keeps})` : ''}`,
    parse: parsers.nonEmpty,
    default: SYSTEM_NAMESPACE,
  };
}

/** The API server refuses TokenRequests shorter than ten minutes. */
const MIN_TOKEN_TTL_MS = 10 * 60_000;

/** `--token-ttl`: lifetime of the tokens a role mints for people's ServiceAccounts (kube/minting.ts). */
export const tokenTtlSetting: Setting<number> = {
  flag: 'token-ttl',
  env: 'DEN_TOKEN_TTL',
  describe: 'lifetime of the ServiceAccount tokens minted per person',
  parse(raw: string): number {
    const ms = parsers.duration(raw);
    if (ms < MIN_TOKEN_TTL_MS) throw new Error(`must be at least 10m (the API server refuses shorter tokens), got '${raw}'`);
    return ms;
  },
  default: MIN_TOKEN_TTL_MS,
  show: '10m',
};
