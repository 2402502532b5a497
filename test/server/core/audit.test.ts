// Issue 21 §4 for den server: one audit line (process/audit.ts) per sign-in, API token issued
// and revoked, and refusal by the cluster, with the documented fields and never a secret.
import { expect } from 'chai';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, stopAll, type Den } from './cluster.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';

describe('den server audit lines', () => {
  let api: FakeApiServer;
  let den: Den;
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const audits = (act: string) => lines.filter((l) => l.msg === 'audit' && l.fields.audit === act).map((l) => l.fields);

  beforeEach(async () => {
    lines.length = 0;
    api = await startCluster();
    await addPerson(api, 'alice');
    den = await startDen(api, { log: (msg, fields = {}) => lines.push({ msg, fields }) });
  });
  afterEach(() => stopAll(den, api));

  it('writes a sign-in failure with its reason and a success, naming the username and never the password', async () => {
    const wrong = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'not-hers' }) });
    expect(wrong.status).to.equal(401);
    await login(den, 'alice', 'alice-password');
    expect(audits('sign-in')).to.deep.equal([
      { audit: 'sign-in', outcome: 'failure', method: 'local', username: 'alice', client: '127.0.0.1', via: 'rest', status: 401, reason: 'invalid username or password' },
      { audit: 'sign-in', outcome: 'success', method: 'local', username: 'alice', client: '127.0.0.1', via: 'rest', person: 'alice@example.com' },
    ]);
    expect(JSON.stringify(lines)).to.not.contain('alice-password').and.not.contain('not-hers');
  });

  it('writes a token issued and revoked by name and scope, never its value', async () => {
    const alice = await login(den, 'alice', 'alice-password');
    const issued = await call(den, 'POST', '/tokens?name=ci&scope=read', { as: alice });
    expect(issued.status).to.equal(201);
    expect((await call(den, 'DELETE', '/tokens/ci', { as: alice })).status).to.equal(204);
    expect(audits('token-issued')).to.deep.equal([{ audit: 'token-issued', person: 'alice@example.com', userspace: 'alice', tokenId: 'ci', scope: 'read', via: 'rest' }]);
    expect(audits('token-revoked')).to.deep.equal([{ audit: 'token-revoked', person: 'alice@example.com', userspace: 'alice', tokenId: 'ci', via: 'rest' }]);
    const logged = JSON.stringify(lines);
    for (const secret of [issued.body.token, alice.cookie.split('=')[1], alice.csrf, ...api.mintedTokens]) expect(logged).to.not.contain(secret);
  });

  it('writes who may open a port of a workspace when its share changes', async () => {
    const shared = await startDen(api, { appsDomain: 'apps.test', log: (msg, fields = {}) => lines.push({ msg, fields }) });
    try {
      api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'web' }, storage: '1Gi', running: false } });
      const alice = await login(shared, 'alice', 'alice-password');
      const answer = await call(shared, 'PUT', '/workspaces/dev/ports/3000/share', { as: alice, body: { level: 'people', people: ['carol', 'bob'] } });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(audits('port-share-changed')).to.deep.equal([
        { audit: 'port-share-changed', person: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', workspace: 'dev', port: 3000, level: 'people', people: ['bob', 'carol'], via: 'rest', client: '127.0.0.1' },
      ]);
    } finally {
      await shared.close();
    }
  });

  it("writes the cluster's refusal of a person's request with the request and the cluster's words", async () => {
    const alice = await login(den, 'alice', 'alice-password');
    const { body } = await call(den, 'POST', '/tokens?scope=read', { as: alice });
    const write = await call(den, 'POST', '/workspaces', { as: body.token, body: { name: 'w1', image: 'python', storage: '1Gi', ssh_public_key: KEY } });
    expect(write.status).to.equal(403);
    expect(audits('cluster-refused')).to.deep.equal([
      {
        audit: 'cluster-refused',
        person: 'alice@example.com',
        userspace: 'alice',
        request: 'POST /apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces',
        status: 403,
        reason: write.body.error,
      },
    ]);
  });
});
