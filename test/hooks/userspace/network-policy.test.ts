import { expect } from 'chai';
import { apiServerRules } from '../../../hooks/userspace/api-server.js';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import { childOf, input, recordedService, recordedSlices, related, userSpace } from './inputs.js';

const DNS_RULE = {
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ],
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
};
// From the recorded default/kubernetes Service (10.96.0.1:443) and its EndpointSlice (10.250.0.1:6443).
const SERVICE_RULE = { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.96.0.1/32' } }] };
const ENDPOINT_RULE = { ports: [{ port: 6443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.250.0.1/32' } }] };
const SAME_NAMESPACE_RULE = { to: [{ podSelector: {} }] };

function policy(mode: string, rel = related()): KubeObject {
  return childOf(syncUserSpace(input(userSpace({ spec: { networkPolicy: mode } }), { related: rel })).children, 'NetworkPolicy', 'svc-isolation');
}

describe('syncUserSpace NetworkPolicy svc-isolation', () => {
  it('Isolated: ingress only from the namespace; egress to the namespace, cluster DNS and the recorded API server addresses', () => {
    expect(policy('Isolated').spec).to.deep.equal({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: {} }] }],
      egress: [SAME_NAMESPACE_RULE, DNS_RULE, SERVICE_RULE, ENDPOINT_RULE],
    });
  });

  it('ClusterEgress: the Isolated rules plus egress to every pod of every namespace', () => {
    expect(policy('ClusterEgress').spec).to.deep.equal({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: {} }] }],
      egress: [SAME_NAMESPACE_RULE, DNS_RULE, SERVICE_RULE, ENDPOINT_RULE, { to: [{ namespaceSelector: {} }] }],
    });
  });

  it('follows the API server when its EndpointSlice changes', () => {
    const slices = recordedSlices();
    (slices[0]!.endpoints as { addresses: string[] }[])[0]!.addresses = ['10.250.0.7'];
    const egress = (policy('Isolated', related({ apiServer: { service: recordedService(), endpointSlices: slices } })).spec as { egress: unknown[] }).egress;
    expect(egress[3]).to.deep.equal({ ports: [{ port: 6443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.250.0.7/32' } }] });
  });
});

describe('apiServerRules', () => {
  const slice = (name: string, addresses: string[][], ports: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: addresses.map((a) => ({ addresses: a, conditions: { ready: true } })),
    ports,
    ...extra,
  });

  it('derives the ClusterIP with the Service port and the endpoints with theirs from the recorded objects', () => {
    expect(apiServerRules({ service: recordedService(), endpointSlices: recordedSlices() })).to.deep.equal([
      { cidrs: ['10.96.0.1/32'], ports: [{ port: 443, protocol: 'TCP' }] },
      { cidrs: ['10.250.0.1/32'], ports: [{ port: 6443, protocol: 'TCP' }] },
    ]);
  });

  it('merges the endpoints of several slices that share ports, sorted and without duplicates', () => {
    const slices = [
      slice('kubernetes-b', [['10.250.0.3'], ['10.250.0.2']], [{ name: 'https', protocol: 'TCP', port: 6443 }]),
      slice('kubernetes-a', [['10.250.0.2', '10.250.0.1']], [{ name: 'https', port: 6443 }]),
    ];
    expect(apiServerRules({ endpointSlices: slices })).to.deep.equal([
      { cidrs: ['10.250.0.1/32', '10.250.0.2/32', '10.250.0.3/32'], ports: [{ port: 6443, protocol: 'TCP' }] },
    ]);
  });

  it('keeps endpoints that are not ready, so a restarting API server does not rewrite every policy', () => {
    const s = slice('kubernetes', [], [{ port: 6443 }]);
    s.endpoints = [{ addresses: ['10.250.0.9'], conditions: { ready: false } }];
    expect(apiServerRules({ endpointSlices: [s] })).to.deep.equal([{ cidrs: ['10.250.0.9/32'], ports: [{ port: 6443, protocol: 'TCP' }] }]);
  });

  it('writes IPv6 addresses as /128 and dual-stack ClusterIPs both', () => {
    const service = recordedService();
    (service.spec as Record<string, unknown>).clusterIPs = ['10.96.0.1', 'fd00:10:96::1'];
    const v6 = slice('kubernetes-v6', [['fd00:250::1']], [{ port: 6443, protocol: 'TCP' }], { addressType: 'IPv6' });
    expect(apiServerRules({ service, endpointSlices: [v6] })).to.deep.equal([
      { cidrs: ['10.96.0.1/32', 'fd00:10:96::1/128'], ports: [{ port: 443, protocol: 'TCP' }] },
      { cidrs: ['fd00:250::1/128'], ports: [{ port: 6443, protocol: 'TCP' }] },
    ]);
  });

  it('ignores slices of other Services, FQDN addresses and a Service that is not default/kubernetes', () => {
    const other = slice('web', [['10.1.1.1']], [{ port: 80 }]);
    other.metadata!.labels = { 'kubernetes.io/service-name': 'web' };
    const fqdn = slice('kubernetes-fqdn', [['api.example.com']], [{ port: 6443 }], { addressType: 'FQDN' });
    const service = recordedService();
    service.metadata!.namespace = 'kube-system';
    expect(apiServerRules({ service, endpointSlices: [other, fqdn] })).to.deep.equal([]);
  });

  it('answers no rule when nothing is known yet', () => {
    expect(apiServerRules({ service: null, endpointSlices: [] })).to.deep.equal([]);
  });
});
