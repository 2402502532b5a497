// The API server's addresses, as the workspace pods' egress rules need them: the ClusterIPs of
// the `default/kubernetes` Service with its ports, and the endpoints behind it with theirs.
// Both are listed because CNIs differ on whether policy sees the address before or after the
// Service's translation.
import { isIP } from 'node:net';
import type { KubeObject } from '../../kube/client.js';
import type { ApiServerRule, PortSpec } from './children/props.js';
import type { ApiServerObjects } from './types.js';
import { byCodePoint } from '../../kube/names.js';

export const API_SERVER_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

function cidrOf(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const family = isIP(address);
  if (family === 4) return `${address}/32`;
  if (family === 6) return `${address}/128`;
  return undefined;
}

function portsOf(list: unknown): PortSpec[] {
  if (!Array.isArray(list)) return [];
  const ports = new Map<string, PortSpec>();
  for (const p of list as Record<string, unknown>[]) {
    const port = p?.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) continue;
    const protocol = typeof p.protocol === 'string' && p.protocol ? p.protocol : 'TCP';
    ports.set(`${protocol}/${port}`, { port, protocol });
  }
  return [...ports.values()].sort((a, b) => a.port - b.port || byCodePoint(a.protocol, b.protocol));
}

function sorted(cidrs: Iterable<string>): string[] {
  return [...new Set(cidrs)].sort();
}

function isApiServerService(obj: KubeObject | null | undefined): obj is KubeObject {
  return !!obj && obj.metadata?.name === API_SERVER_SERVICE.name && obj.metadata?.namespace === API_SERVER_SERVICE.namespace;
}

function isApiServerSlice(obj: KubeObject): boolean {
  const ns = obj.metadata?.namespace;
  return (ns === undefined || ns === API_SERVER_SERVICE.namespace) && obj.metadata?.labels?.[SERVICE_NAME_LABEL] === API_SERVER_SERVICE.name;
}

function serviceRule(service: KubeObject): ApiServerRule | undefined {
  const spec = (service.spec ?? {}) as Record<string, unknown>;
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
  const cidrs = sorted(ips.map(cidrOf).filter((c): c is string => c !== undefined));
  const ports = portsOf(spec.ports);
  return cidrs.length && ports.length ? { cidrs, ports } : undefined;
}

// Every listed endpoint counts, ready or not: an API server that is briefly unready is still
// the API server, and dropping it would rewrite every user namespace's policy.
function sliceRules(slices: KubeObject[]): ApiServerRule[] {
  const byPorts = new Map<string, { ports: PortSpec[]; cidrs: Set<string> }>();
  for (const slice of slices.filter(isApiServerSlice)) {
    const ports = portsOf(slice.ports);
    if (!ports.length || !Array.isArray(slice.endpoints)) continue;
    const key = ports.map((p) => `${p.protocol}/${p.port}`).join(',');
    const entry = byPorts.get(key) ?? { ports, cidrs: new Set<string>() };
    for (const endpoint of slice.endpoints as Record<string, unknown>[]) {
      const addresses = Array.isArray(endpoint?.addresses) ? endpoint.addresses : [];
      for (const cidr of addresses.map(cidrOf)) if (cidr) entry.cidrs.add(cidr);
    }
    if (entry.cidrs.size) byPorts.set(key, entry);
  }
  return [...byPorts.entries()]
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([, e]) => ({ cidrs: sorted(e.cidrs), ports: e.ports }));
}

/** Egress rules to the API server: the Service's first, then one per distinct port set of its endpoints. */
export function apiServerRules(objects: ApiServerObjects): ApiServerRule[] {
  const rules: ApiServerRule[] = [];
  if (isApiServerService(objects.service)) {
    const rule = serviceRule(objects.service);
    if (rule) rules.push(rule);
  }
  rules.push(...sliceRules(objects.endpointSlices ?? []));
  return rules;
}
