// The whole platform on this machine: the real `den manager`, `den server` and `den gateway`
// processes (bin/den.js, each under its own ServiceAccount token) against the fake API
// server, with the harness playing the StatefulSet controller and the kubelet, and the real
// OpenSSH client and `den users add` as a person runs them.
import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform } from '../support/platform.js';
import { uncoveredRequests } from '../infra/rbac-needs.js';
import { platformJourney } from './journey.js';
import { scrape, total, type Sample } from '../support/metrics.js';

/** The figures of every replica of a role together, as a dashboard sums them over pods. */
async function scrapeAll(urls: string[]): Promise<Sample[]> {
  return (await Promise.all(urls.map((url) => scrape(url)))).flat();
}

describe('Den on this machine: a person from sign-up to SSH and back', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();

  before(async function () {
    this.timeout(60_000);
    platform.suffix = 'it';
    await platform.start();
  });

  after(async function () {
    this.timeout(20_000);
    await platform.stop();
  });

  const scraped: Partial<Record<'manager' | 'server' | 'gateway', Sample[]>> = {};
  it('serves /metrics on each process\'s health port', async () => {
    for (const role of ['manager', 'server', 'gateway'] as const) {
      for (const url of platform.health[role]) expect(total(await scrape(url), 'den_process_resident_memory_bytes'), url).to.be.above(0);
      scraped[role] = await scrapeAll(platform.health[role]);
    }
    expect(total(scraped.manager!, 'den_manager_leader')).to.equal(1);
  });

  platformJourney(() => platform);

  it('the figures moved with the journey: reconciles, webhook reviews, REST requests, minted tokens, SSH sessions and bytes', async () => {
    const [manager, server, gateway] = await Promise.all((['manager', 'server', 'gateway'] as const).map((r) => scrapeAll(platform.health[r])));
    const grew = (samples: Sample[], was: Sample[], name: string, labels: Record<string, string> = {}) =>
      expect(total(samples, name, labels), `${name} ${JSON.stringify(labels)}`).to.be.above(total(was, name, labels));
    grew(manager!, scraped.manager!, 'den_reconciles_total', { controller: 'userspace', result: 'ok' });
    grew(manager!, scraped.manager!, 'den_reconciles_total', { controller: 'workspace', result: 'ok' });
    grew(manager!, scraped.manager!, 'den_reconcile_duration_seconds_count', { controller: 'workspace' });
    grew(manager!, scraped.manager!, 'den_admission_reviews_total', { webhook: 'vworkspace.den.dev', allowed: 'true' });
    grew(manager!, scraped.manager!, 'den_admission_review_duration_seconds_count', { webhook: 'mworkspace.den.dev' });
    grew(manager!, scraped.manager!, 'den_admission_denials_total', { webhook: 'vworkspace.den.dev', rule: 'ssh-key' });
    grew(gateway!, scraped.gateway!, 'den_gateway_auth_failures_total', { reason: 'unknown-key' });
    expect(manager!.some((s) => s.name === 'den_workqueue_depth' && s.labels.controller === 'workspace')).to.equal(true);
    grew(server!, scraped.server!, 'den_http_request_duration_seconds_count', { route: '/api/v1/login', method: 'POST', status: '204' });
    grew(server!, scraped.server!, 'den_http_request_duration_seconds_count', { route: '/api/v1/workspaces', method: 'POST', status: '201' });
    grew(server!, scraped.server!, 'den_token_request_duration_seconds_count', { result: 'ok' });
    grew(server!, scraped.server!, 'den_minted_token_cache_total', { result: 'hit' });
    grew(gateway!, scraped.gateway!, 'den_gateway_session_setups_total', { result: 'ok' });
    grew(gateway!, scraped.gateway!, 'den_gateway_session_setup_duration_seconds_count');
    grew(gateway!, scraped.gateway!, 'den_gateway_bytes_total', { direction: 'in' });
    grew(gateway!, scraped.gateway!, 'den_gateway_bytes_total', { direction: 'out' });
    expect(total(gateway!, 'den_gateway_sessions_open'), 'every session of the journey has ended').to.equal(0);
  });

  it('after the API server drops every watch and forgets their history, the manager still provisions a new UserSpace', async () => {
    // As after an API server restart: every watch ends, and resuming from its resourceVersion answers 410 Gone.
    platform.api.compact();
    platform.api.dropWatches();
    await platform.admin.create(RESOURCES.userSpace, {
      apiVersion: RESOURCES.userSpace.apiVersion,
      kind: 'UserSpace',
      metadata: { name: 'carol-it' },
      spec: { owner: 'carol@example.com', quota: { cpu: '1', memory: '1Gi', storage: '5Gi', workspaces: 1 }, networkPolicy: 'Isolated' },
    });
    const ready = await eventually(() => platform.api.object<any>(RESOURCES.userSpace, 'carol-it')?.status?.phase === 'Ready', 'UserSpace carol-it Ready', 15_000);
    expect(ready).to.equal(true);
    expect(platform.api.object(RESOURCES.serviceAccount, 'session', 'svc-carol-it')).to.not.equal(undefined);
  });

  for (const process of ['den-manager', 'den-server', 'den-gateway'] as const) {
    it(`${process} made only the API calls its RBAC is meant to grant (test/infra/rbac-needs.ts)`, () => {
      expect(platform.api.requests.some((r) => r.user === `system:serviceaccount:svc-system:${process}`), `${process} made no call`).to.equal(true);
      expect(uncoveredRequests(process, platform.api.requests)).to.deep.equal([]);
    });
  }

  it('none of the processes has crashed along the way', () => {
    for (const p of platform.processes) expect(p.running, `den ${p.name}:\n${p.tail()}`).to.equal(true);
  });
});
