// Admission latency: AdmissionReviews posted over real HTTPS on loopback to the server that
// `startAdmission` runs, with its caches filled from the in-process fake API server (the
// install chart, alice's UserSpace and 200 Workspaces with their PVCs in her namespace).
// Side by side in one run: one review at a time, 32 in flight, and the decision alone.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { runAdmission } from '../../hooks/admission/index.js';
import { CachingMemo, DIRECT } from '../../hooks/admission/memo.js';
import type { AdmissionRequest } from '../../hooks/admission/review.js';
import { reviewWorkspaceValidation } from '../../hooks/admission/webhooks.js';
import { installedCluster, MANAGER_TOKEN } from '../hooks/admission/cluster.js';
import { generateTestKeys } from '../hooks/admission/keys.js';
import { reviewOf, viewOf } from '../hooks/admission/reviews.js';
import { claim, userSpace, workspace } from '../hooks/admission/world.js';
import { Registry } from 'prom-client';
import { AdmissionMetrics } from '../../hooks/admission/metrics.js';

const EXISTING = 200;
const REVIEWS = 2000;
const IN_FLIGHT = 32;
const SEQUENTIAL = 300;

interface Scenario {
  name: string;
  path: string;
  body: string;
  allowed: boolean;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function postReview(agent: https.Agent, ca: string, url: string, body: string): Promise<{ allowed: boolean }> {
  return new Promise((resolve, reject) => {
    // The API server dials the Service name; the certificate is checked against it, as there.
    const req = https.request(url, { method: 'POST', agent, ca, servername: 'den-manager-webhook.svc-system.svc', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')).response as { allowed: boolean });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(total: number, inFlight: number, send: (i: number) => Promise<void>): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await send(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

export async function run(): Promise<string> {
  const keys = generateTestKeys();
  const api = await installedCluster([keys.ed25519]);
  api.seed(userSpace('alice', [keys.ed25519], { cpu: '1000', memory: '4Ti', storage: '100Ti', gpu: 0, workspaces: 1000 }));
  for (let i = 0; i < EXISTING; i++) {
    api.seed(workspace(`ws-${i}`, { sshAuthorizedKeys: [keys.ed25519], running: i % 2 === 0, resources: { requests: { cpu: '500m', memory: '1Gi' } } }) as KubeObject);
    api.seed(claim(`home-ws-${i}-0`, '10Gi') as KubeObject);
  }
  const stop = new AbortController();
  const handle = await runAdmission({
    client: api.client(MANAGER_TOKEN),
    namespace: 'svc-system',
    listen: { host: '127.0.0.1', port: 0 },
    serviceName: 'den-manager-webhook',
    gpuResource: 'nvidia.com/gpu',
    metrics: new AdmissionMetrics(new Registry()),
    signal: stop.signal,
    log: () => undefined,
  });
  const ca = handle.tls().caBundle;
  const base = `https://127.0.0.1:${handle.port}`;
  const valid = workspace('dev', { sshAuthorizedKeys: [keys.ed25519, keys.rsa], resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } } });
  const overQuota = workspace('dev', { sshAuthorizedKeys: [keys.ed25519], storage: '200Ti' });
  const oldUserSpace = userSpace('alice', [keys.ed25519]);
  const newUserSpace = userSpace('alice', [keys.ed25519, keys.ecdsa256]);
  const scenarios: Scenario[] = [
    { name: 'validate Workspace CREATE, admitted (2 keys, quota over 200 workspaces)', path: '/validate-workspace', body: JSON.stringify(reviewOf({ kind: 'Workspace', object: valid })), allowed: true },
    { name: 'validate Workspace CREATE, refused over quota (403)', path: '/validate-workspace', body: JSON.stringify(reviewOf({ kind: 'Workspace', object: overQuota })), allowed: false },
    { name: 'mutate Workspace CREATE (keys copied, requester set)', path: '/mutate-workspace', body: JSON.stringify(reviewOf({ kind: 'Workspace', object: workspace('dev') })), allowed: true },
    { name: 'validate UserSpace UPDATE, SSH keys only', path: '/validate-userspace', body: JSON.stringify(reviewOf({ kind: 'UserSpace', operation: 'UPDATE', object: newUserSpace, oldObject: oldUserSpace })), allowed: true },
  ];
  const agent = new https.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const rows: string[] = [];
  try {
    for (const s of scenarios) {
      const send = async () => {
        const response = await postReview(agent, ca, base + s.path, s.body);
        if (response.allowed !== s.allowed) throw new Error(`${s.name}: answered allowed=${response.allowed}`);
      };
      await measure(100, 8, send);
      const one = await measure(SEQUENTIAL, 1, send);
      const many = await measure(REVIEWS, IN_FLIGHT, send);
      rows.push(`| ${s.name} | 1 | ${SEQUENTIAL} | ${percentile(one.latencies, 50).toFixed(2)} | ${percentile(one.latencies, 99).toFixed(2)} | ${Math.round(SEQUENTIAL / one.seconds)} |`);
      rows.push(`| ${s.name} | ${IN_FLIGHT} | ${REVIEWS} | ${percentile(many.latencies, 50).toFixed(2)} | ${percentile(many.latencies, 99).toFixed(2)} | ${Math.round(REVIEWS / many.seconds)} |`);
    }
    // The decision alone, in-process over the same caches' content, to show what HTTPS and JSON cost.
    const request = (JSON.parse(scenarios[0]!.body) as { request: AdmissionRequest }).request;
    const view = viewOf({
      images: api.objects(RESOURCES.workspaceImage),
      userSpaces: api.objects(RESOURCES.userSpace),
      workspaces: api.objects(RESOURCES.workspace),
      claims: api.objects(RESOURCES.persistentVolumeClaim),
    });
    for (const [label, memo] of [['direct', DIRECT], ['memoized, as served', new CachingMemo()]] as const) {
      const decisions = await measure(REVIEWS, 1, async () => {
        reviewWorkspaceValidation(request, view, { gpuResource: 'nvidia.com/gpu', memo }, new Date());
      });
      rows.push(`| decision alone, ${label} (validate CREATE in-process, no HTTPS) | 1 | ${REVIEWS} | ${percentile(decisions.latencies, 50).toFixed(3)} | ${percentile(decisions.latencies, 99).toFixed(3)} | ${Math.round(REVIEWS / decisions.seconds)} |`);
    }
  } finally {
    agent.destroy();
    stop.abort();
    await handle.stopped;
    await api.close();
  }
  return [
    `AdmissionReviews over HTTPS (TLS 1.3, keep-alive) on loopback; namespace with ${EXISTING} Workspaces and PVCs in the caches.`,
    '',
    '| review | in flight | reviews | median ms | p99 ms | reviews/s |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

