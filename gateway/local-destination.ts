/** The destinations a direct-tcpip channel may name (SPEC 1.5 step 7). */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1']);

export function isLocalDestination(host: string): boolean {
  return LOCAL_HOSTS.has(host.toLowerCase());
}
