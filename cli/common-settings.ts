// The settings every role reads the same way: how to reach the API server, the platform's
// own namespace, and where the kubelet probes health. Each role spreads the ones it uses.
import { SYSTEM_NAMESPACE } from '../kube/group.js';
import { parsers, type Address, type Setting } from './settings.js';

export const kubeconfigSetting: Setting<string> = {
  flag: 'kubeconfig',
  env: 'DEN_KUBECONFIG',
  describe: 'kubeconfig file; empty: in-cluster service account, else KUBECONFIG or ~/.kube/config',
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

export const healthListenSetting: Setting<Address> = {
  flag: 'health-listen',
  env: 'DEN_HEALTH_LISTEN',
  describe: 'plain-HTTP address of /healthz and /readyz',
  parse: parsers.address,
  default: { host: '0.0.0.0', port: 8081 },
};
