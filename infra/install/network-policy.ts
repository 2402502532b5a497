// NetworkPolicies of svc-system: each process accepts connections only on the ports it serves
// and opens them only to DNS and HTTPS-like ports. The API server's address is not known when
// the chart is rendered (and differs per cluster and per CNI view of it), so egress is allowed by
// port to any address: apiServerPorts (443 and 6443 by default). Port 443 also carries the
// manager's registry listings and the server's identity-provider calls.
import { Construct } from 'constructs';
import { IntOrString, KubeNetworkPolicy, type NetworkPolicyPort } from 'cdk8s-plus-28/lib/imports/k8s.js';
import { commonLabels, HEALTH_PORT, NAMESPACE, PORTS, selectorLabels, type Component } from '../../contract/names.js';

const tcp = (port: number): NetworkPolicyPort => ({ protocol: 'TCP', port: IntOrString.fromNumber(port) });
const DNS: NetworkPolicyPort[] = [
  { protocol: 'UDP', port: IntOrString.fromNumber(53) },
  { protocol: 'TCP', port: IntOrString.fromNumber(53) },
];

/**
 * What each process serves. From anywhere: the API server calls the webhooks from an address
 * that varies per cluster; people reach the server and gateway through Services, Ingresses and
 * load balancers that may keep client addresses; Prometheus scrapes the health port from
 * wherever it runs. (Most CNIs do not apply NetworkPolicy to the kubelet's own probes.)
 */
export const SERVED_PORTS: Record<Component, number[]> = {
  manager: [PORTS.webhook, HEALTH_PORT],
  server: [PORTS.server, HEALTH_PORT],
  gateway: [PORTS.gateway, HEALTH_PORT],
};

export class PlatformNetworkPolicies extends Construct {
  constructor(scope: Construct, id: string, props: { apiServerPorts: number[] }) {
    super(scope, id);
    const egress = [{ ports: DNS }, { ports: [...new Set([...props.apiServerPorts, 443])].map(tcp) }];
    // Anything else in the namespace receives and sends nothing unless a policy below allows it.
    new KubeNetworkPolicy(this, 'default-deny', {
      metadata: { name: 'den-default-deny', namespace: NAMESPACE, labels: commonLabels() },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    });
    for (const component of Object.keys(SERVED_PORTS) as Component[]) {
      new KubeNetworkPolicy(this, component, {
        metadata: { name: `den-${component}`, namespace: NAMESPACE, labels: { ...commonLabels(), 'app.kubernetes.io/component': component } },
        spec: {
          podSelector: { matchLabels: selectorLabels(component) },
          policyTypes: ['Ingress', 'Egress'],
          ingress: [{ ports: SERVED_PORTS[component].map(tcp) }],
          egress,
        },
      });
    }
  }
}
