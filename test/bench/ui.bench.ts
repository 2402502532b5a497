// Server time of the web UI's pages against the REST calls that read the same objects, side by
// side in one process (fake API server, den server's app, client): the dashboard over 50
// workspaces against GET /api/v1/workspaces, the catalog over 300 entries against
// GET /api/v1/workspace-images, and a status poll (/w/{name}/status) against
// GET /api/v1/workspaces/{name}. Ratios of medians; no time is asserted.
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../kube/client.js';
import { addPerson, login, startCluster, startDen } from '../server/core/cluster.js';
import { median, quantile } from './stats.js';

const WORKSPACES = 50;
const IMAGES = 300;
const ROUNDS = 5;
const CALLS = 40;

async function timed(url: string, cookie: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers: { Cookie: cookie, ...headers }, redirect: 'manual' });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - started;
}

export async function run(): Promise<string> {
  const api = await startCluster();
  await addPerson(api, 'alice');
  for (let i = 0; i < IMAGES; i++) {
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: `image-${i}` }, spec: { displayName: `Image ${i}`, image: `registry.example.com/i${i}:1`, tags: [`t${i % 7}`], description: 'An image' } } as KubeObject);
  }
  for (let i = 0; i < WORKSPACES; i++) {
    api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: `ws-${i}`, namespace: 'svc-alice', creationTimestamp: new Date().toISOString() },
      spec: { imageRef: { name: `image-${i}` }, running: i % 2 === 0, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
      status: { phase: i % 2 === 0 ? 'Running' : 'Suspended', endpoint: `ws-${i}@ssh.example.com`, conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: 'ready' }] },
    } as KubeObject);
  }
  const den = await startDen(api);
  try {
    const { cookie, csrf } = await login(den, 'alice', 'alice-password');
    const json = { 'X-CSRF-Token': csrf };
    const pairs: [string, string, string][] = [
      ['dashboard (50 workspaces) / GET /workspaces', `${den.url}/`, `${den.api}/workspaces`],
      ['catalog (300 entries) / GET /workspace-images', `${den.url}/catalog`, `${den.api}/workspace-images`],
      ['status poll / GET /workspaces/{name}', `${den.url}/w/ws-0/status`, `${den.api}/workspaces/ws-0`],
    ];
    const rows: string[] = ['| page / REST call | page median ms | REST median ms | ratio | page p90 ms |', '|---|---|---|---|---|'];
    for (const [label, pageUrl, restUrl] of pairs) {
      for (let i = 0; i < 5; i++) await Promise.all([timed(pageUrl, cookie), timed(restUrl, cookie, json)]);
      const page: number[] = [];
      const rest: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (let i = 0; i < CALLS; i++) page.push(await timed(pageUrl, cookie));
        for (let i = 0; i < CALLS; i++) rest.push(await timed(restUrl, cookie, json));
      }
      page.sort((a, b) => a - b);
      const p = median(page);
      const q = median(rest);
      rows.push(`| ${label} | ${p.toFixed(2)} | ${q.toFixed(2)} | ${(p / q).toFixed(2)} | ${quantile(page, 0.9).toFixed(2)} |`);
    }
    return rows.join('\n');
  } finally {
    await den.close();
    await api.close();
  }
}
