// The settings every role reads the same way to reach the cluster: how to reach the API
// server and the platform's own namespace. Each role spreads the ones it uses.
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
