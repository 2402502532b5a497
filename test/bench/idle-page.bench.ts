// What an open page that nobody touches costs: requests its browser sends to den server, and
// requests den server sends to the API server on that person's behalf (their minted token), over
// 30 s, in real Chromium against one den server and the fake API server. Four people each keep
// one page open at the same time: a Running workspace's page on its Logs tab (the 3 s status
// poll and the 5 s log poll), the same page on its Events tab (status poll only), a dashboard
// of three workspaces and the administrators' workspace list. Requests den server makes under
// its own identity (token minting, sessions) are counted apart, for all four pages together.
import type { KubeObject } from '../../kube/client.js';
import type { Page } from 'playwright-core';
import { startBrowserDen } from '../support/browser-den.js';
import type { FakeApiServer } from '../support/fake-apiserver.js';
import { SERVER_USER } from '../server/core/cluster.js';

export const repetitions = 3;
const WINDOW_MS = 30_000;

function seedWorkspace(api: FakeApiServer, person: string, name: string): void {
  const namespace = `svc-${person}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  api.seed(
    {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace, creationTimestamp: now },
      spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
      status: {
        phase: 'Running',
        podName: `${name}-0`,
        endpoint: `${name}@ssh.example.com`,
        conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: `Pod ${name}-0 is ready.`, lastTransitionTime: now }],
      },
    } as KubeObject,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-0`, namespace, labels: { 'den.dev/workspace': name } },
      spec: { containers: [{ name: 'workspace', image: 'ubuntu' }] },
      status: { phase: 'Running' },
    } as KubeObject,
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}-0.started`, namespace },
      involvedObject: { kind: 'Pod', name: `${name}-0`, namespace, uid: 'u1' },
      reason: 'Started',
      message: 'Started container workspace',
      type: 'Normal',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    } as KubeObject,
  );
  api.setPodLog(namespace, `${name}-0`, 'hello\n');
}

export async function run(): Promise<string> {
  const people = { alice: {}, bob: {}, carol: {}, root: { admin: true } };
  const world = await startBrowserDen(people, (api) => {
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { image: 'ubuntu:24.04', displayName: 'Ubuntu 24.04' } } as KubeObject);
    seedWorkspace(api, 'alice', 'dev');
    seedWorkspace(api, 'bob', 'dev');
    for (const name of ['one', 'two', 'three']) seedWorkspace(api, 'carol', name);
  });
  try {
    const pages: [string, string, Page][] = [
      ['workspace page, Logs tab', 'alice', await world.signedIn('alice', '/w/dev')],
      ['workspace page, Events tab', 'bob', await world.signedIn('bob', '/w/dev')],
      ['dashboard, 3 workspaces', 'carol', await world.signedIn('carol', '/')],
      ['admin workspace list', 'root', await world.signedIn('root', '/admin/workspaces')],
    ];
    await pages[1]![2].getByRole('tab', { name: 'Events' }).click();
    const sent = new Map<Page, number>(pages.map(([, , p]) => [p, 0]));
    for (const [, , p] of pages) p.on('request', () => sent.set(p, sent.get(p)! + 1));
    await new Promise((r) => setTimeout(r, 1_000));
    for (const p of sent.keys()) sent.set(p, 0);
    const from = world.api.requests.length;
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const calls = world.api.requests.slice(from);
    const rows = ['| open page, idle 30 s | requests to den server | requests to the API server (the person\'s token) |', '|---|---|---|'];
    for (const [label, person, p] of pages) {
      const mine = calls.filter((c) => c.user === `system:serviceaccount:svc-${person}:session`).length;
      rows.push(`| ${label} | ${sent.get(p)} | ${mine} |`);
    }
    rows.push(`| den server's own API requests, all four pages together | | ${calls.filter((c) => c.user === SERVER_USER).length} |`);
    return rows.join('\n');
  } finally {
    await world.close();
  }
}
