// NetworkPolicy `svc-isolation` (SPEC 1.2). Both modes close ingress to everything but the
// namespace itself: the gateway and the browser terminal reach pods through the API server
// (pods/exec, pods/portforward), never over the pod network.
//
//   Isolated       egress to the namespace's own pods, cluster DNS and the API server only.
//   ClusterEgress  Isolated, plus egress to every pod of every namespace, on any port.
//
// Neither mode opens the internet; policies add up, so an administrator grants more with a
// NetworkPolicy of their own.
import { Construct } from 'constructs';
import {
  IntOrString,
  KubeNetworkPolicy,
  type NetworkPolicyEgressRule,
  type NetworkPolicyPeer,
} from '../../../imports/k8s.cjs';
import { childMetadata, type ApiServerRule, type UserSpaceChildrenProps } from './props.js';

export const ISOLATION_NAME = 'svc-isolation';

/** Cluster DNS as kubeadm, kOps and the managed offerings deploy it (CoreDNS keeps the kube-dns label). */
export const CLUSTER_DNS_PEER: NetworkPolicyPeer = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
  podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
};

const SAME_NAMESPACE: NetworkPolicyPeer = { podSelector: {} };

function dnsRule(): NetworkPolicyEgressRule {
  return {
    to: [CLUSTER_DNS_PEER],
    ports: [
      { protocol: 'UDP', port: IntOrString.fromNumber(53) },
      { protocol: 'TCP', port: IntOrString.fromNumber(53) },
    ],
  };
}

// One rule per address group keeps each address paired with its own ports: the Service's
// ClusterIP answers on 443, the endpoints behind it on 6443 (or whatever they publish).
function apiServerRule(rule: ApiServerRule): NetworkPolicyEgressRule {
  return {
    to: rule.cidrs.map((cidr) => ({ ipBlock: { cidr } })),
    ports: rule.ports.map((p) => ({ protocol: p.protocol, port: IntOrString.fromNumber(p.port) })),
  };
}

export function egressRules(props: Pick<UserSpaceChildrenProps, 'networkPolicy' | 'apiServer'>): NetworkPolicyEgressRule[] {
  const rules: NetworkPolicyEgressRule[] = [
    { to: [SAME_NAMESPACE] },
    dnsRule(),
    ...props.apiServer.map(apiServerRule),
  ];
  if (props.networkPolicy === 'ClusterEgress') rules.push({ to: [{ namespaceSelector: {} }] });
  return rules;
}

export class UserIsolation extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeNetworkPolicy(this, 'Resource', {
      metadata: childMetadata(props, ISOLATION_NAME, { namespaced: true }),
      spec: {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [SAME_NAMESPACE] }],
        egress: egressRules(props),
      },
    });
  }
}
