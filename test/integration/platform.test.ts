// The whole platform on this machine: the real `den manager`, `den server` and `den gateway`
// processes (bin/den.js, each under its own ServiceAccount token) against the fake API
// server, with the harness playing the StatefulSet controller and the kubelet, and the real
// OpenSSH client and `den users add` as a person runs them.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform, runDen } from '../support/platform.js';
import { uncoveredRequests } from '../infra/rbac-needs.js';
import { journeyNames, platformJourney } from './journey.js';
import { Rest, ssh } from './rest.js';
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

  it('writes one audit line per sign-in, token and SSH session, with the same field names in every process, and no secret the run created in any log', async function () {
    this.timeout(45_000);
    const name = 'audit-it';
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const keys = await mkdtemp(join(tmpdir(), 'den-audit-keys-'));
    try {
      const added = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${password}\n` });
      expect(added.code, added.stderr).to.equal(0);
      await eventually(() => platform.api.object<any>(RESOURCES.userSpace, name)?.status?.phase === 'Ready', `UserSpace ${name} Ready`, 15_000);
      const rest = new Rest(platform.baseUrl);
      expect((await rest.call('POST', '/login', { body: { username: name, password: `${password}-wrong` } })).status).to.equal(401);
      const session = await rest.login(name, password);
      const issued = await rest.call('POST', '/tokens?name=audit', { as: { session } });
      expect(issued.status).to.equal(201);
      expect((await rest.call('GET', '/workspaces', { as: { token: issued.body.token } })).status).to.equal(200);
      expect((await rest.call('DELETE', '/tokens/audit', { as: { session } })).status).to.equal(204);

      const keyFile = join(keys, 'key');
      await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
      await platform.admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name }, spec: { displayName: 'Audit', image: platform.workspaceImage } });
      const created = await rest.call('POST', '/workspaces', { body: { name: 'audited', image: name, storage: '1Gi', ssh_public_key: (await readFile(`${keyFile}.pub`, 'utf8')).trim() }, as: { session } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await eventually(async () => (await rest.call('GET', '/workspaces/audited', { as: { session } })).body.status?.phase === 'Running', 'workspace audited Running', 15_000);
      const result = await ssh(platform, keyFile, 'audited', 'echo audited');
      expect(result.stdout, result.stderr).to.equal('audited\n');

      type Line = Record<string, unknown> & { role: string; audit?: string };
      const lines = () => platform.processes.flatMap((p) => p.log.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line));
      const audited = (act: string) => lines().filter((l) => l.audit === act && (l.userspace === name || l.username === name));
      await eventually(() => audited('session-closed').length > 0, 'the SSH session closed in the audit log', 10_000);
      const identity = `system:serviceaccount:svc-${name}:session`;
      // Two server replicas: each writes its own log, so the order across them is not the order of the acts.
      expect(audited('sign-in').map((l) => [l.role, l.outcome, l.method, l.via])).to.have.deep.members([
        ['server', 'failure', 'local', 'rest'],
        ['server', 'success', 'local', 'rest'],
        ['gateway', 'success', 'publickey', 'ssh'],
      ]);
      expect(audited('sign-in').find((l) => l.outcome === 'failure')).to.include({ status: 401, reason: 'invalid username or password' });
      expect(audited('token-issued').map((l) => [l.role, l.tokenId, l.scope])).to.deep.equal([['server', 'audit', 'full']]);
      expect(audited('token-revoked').map((l) => [l.role, l.tokenId])).to.deep.equal([['server', 'audit']]);
      for (const act of ['session-opened', 'session-closed']) {
        expect(audited(act).map((l) => [l.role, l.identity, l.kind, l.workspace, l.via])).to.deep.equal([['gateway', identity, 'exec', 'audited', 'ssh']]);
      }
      expect(platform.api.requests.filter((r) => r.path === `/api/v1/namespaces/svc-${name}/pods/audited-0/exec`).map((r) => r.user)).to.deep.equal([identity]);

      const fields = new Set(['time', 'role', 'msg', 'audit', 'outcome', 'reason', 'person', 'userspace', 'identity', 'client', 'via', 'method', 'username', 'namespace', 'workspace', 'kind', 'fingerprint', 'tokenId', 'scope', 'bytesIn', 'bytesOut', 'durationMs', 'request', 'status']);
      for (const line of lines().filter((l) => l.audit)) {
        expect(Object.keys(line).filter((k) => !fields.has(k)), JSON.stringify(line)).to.deep.equal([]);
      }

      const cookie = session.cookie.split('; ').find((c) => c.startsWith('svc_session='))!.slice('svc_session='.length);
      const secrets = [password, journeyNames(platform.suffix).password, cookie, session.csrf, issued.body.token as string, platform.api.adminToken, ...platform.api.mintedTokens];
      expect(platform.api.mintedTokens.length, 'tokens minted during the run').to.be.above(5);
      for (const p of platform.processes) {
        for (const secret of secrets) expect(p.log.filter((l) => l.includes(secret)), `den ${p.name} logged a secret`).to.deep.equal([]);
      }
    } finally {
      await rm(keys, { recursive: true, force: true });
    }
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
