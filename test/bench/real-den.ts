// What the benches on a real API server share: a fresh kube-apiserver (+ kube-controller-manager)
// with Den installed as `kubectl apply --server-side -f dist/` installs it and its processes
// running as installed (test/support/real-kube), optionally with the API server's audit log on
// so a bench can say who sent which requests; the counts, and small waits.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../kube/client.js';
import { startInstalledKube, type InstalledKube, type RealDenOptions } from '../support/real-kube/den.js';

/** Every request at the end of its answer, with who sent it; no bodies. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
`;

export interface RealBenchCluster extends InstalledKube {
  /** The audit log's file, when audit was asked for. */
  auditLog?: string;
}

/** One audited request: who, what, and when it was answered. */
export interface AuditedRequest {
  user: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  at: number;
}

/** startInstalledKube (test/support/real-kube/den.ts), with the API server's audit log on when `audit` is asked for. */
export async function startRealCluster(opts: { audit?: boolean; den?: false | RealDenOptions } = {}): Promise<RealBenchCluster> {
  const auditDir = opts.audit ? await mkdtemp(join(tmpdir(), 'den-bench-audit-')) : undefined;
  const auditLog = auditDir && join(auditDir, 'audit.log');
  if (auditDir) await writeFile(join(auditDir, 'policy.yaml'), AUDIT_POLICY);
  const apiserverFlags = auditDir ? [`--audit-policy-file=${join(auditDir, 'policy.yaml')}`, `--audit-log-path=${auditLog}`, '--audit-log-format=json', '--audit-log-mode=batch'] : [];
  const removeAudit = async () => {
    if (auditDir) await rm(auditDir, { recursive: true, force: true });
  };
  const installed = await startInstalledKube({ apiserverFlags, den: opts.den }).catch(async (err: unknown) => {
    await removeAudit();
    throw err;
  });
  return {
    ...installed,
    auditLog,
    stop: async () => {
      await installed.stop();
      await removeAudit();
    },
  };
}

/** The audit log's requests answered in [from, to] (Date.now() times). */
export async function auditedRequests(file: string, from = 0, to = Infinity): Promise<AuditedRequest[]> {
  // Batch mode writes every second or so: wait for the window's end to be on disk.
  await new Promise((r) => setTimeout(r, 2_000));
  const text = await readFile(file, 'utf8');
  const requests: AuditedRequest[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { stage: string; verb: string; user: { username: string }; objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string }; responseStatus?: { code?: number }; stageTimestamp: string; requestURI: string };
    if (e.stage !== 'ResponseComplete') continue;
    const at = Date.parse(e.stageTimestamp);
    if (at < from || at > to) continue;
    requests.push({ user: e.user.username, verb: e.verb, resource: e.objectRef?.resource ?? e.requestURI.split('?')[0]!, subresource: e.objectRef?.subresource, namespace: e.objectRef?.namespace, name: e.objectRef?.name, code: e.responseStatus?.code ?? 0, at });
  }
  return requests;
}

/** Who sent what: `user verb resource[/subresource]` → count, largest first, as Markdown rows. */
export function requestBreakdown(requests: AuditedRequest[], per: number, top = 25): string[] {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const user = r.user.replace(/^system:serviceaccount:svc-system:/, 'sa:').replace(/^system:serviceaccount:([^:]+):/, 'sa:$1:');
    const key = `| ${user} | ${r.verb} | ${r.resource}${r.subresource ? `/${r.subresource}` : ''} |`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, n]) => `${key} ${n} | ${(n / per).toFixed(2)} |`);
}

/** process_cpu_seconds_total from a Prometheus text exposition. */
function cpuSecondsIn(text: string): number {
  return Number(/^(?:den_)?process_cpu_seconds_total\s+(\S+)/m.exec(text)?.[1] ?? NaN);
}

/** CPU seconds so far of the API server and of Den's managers (all replicas together), from their /metrics. */
export async function cpuSeconds(cluster: RealBenchCluster): Promise<{ apiserver: number; managers: number }> {
  const res = await cluster.admin.send({ path: '/metrics' });
  let text = '';
  for await (const chunk of res) text += chunk;
  const managers = await Promise.all((cluster.den?.health.manager ?? []).map((url) => fetch(`${url}/metrics`).then((r) => r.text()).then(cpuSecondsIn)));
  return { apiserver: cpuSecondsIn(text), managers: managers.reduce((a, b) => a + b, 0) };
}

/** Polls `check` every `everyMs` until it answers true; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `x.xx×` of a over b. */
export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** Objects without what ties them to a parent (owner references, Den's parent label): applied as plain manifests. */
export function asPlainManifest(obj: KubeObject, parentLabel: string): KubeObject {
  const { ownerReferences: _owners, labels, ...metadata } = obj.metadata ?? {};
  const rest = Object.fromEntries(Object.entries(labels ?? {}).filter(([k]) => k !== parentLabel));
  return { ...obj, metadata: { ...metadata, ...(Object.keys(rest).length ? { labels: rest } : {}) } };
}
