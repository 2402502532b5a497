// The web UI's server side over a loopback port, without a browser: where a stranger is sent,
// what a form without its CSRF token changes (nothing), what the cluster's refusal reads like,
// and the headers, escaping and icons every page relies on.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fetchPage } from '../../support/web.js';
import { startWith, stopAll, type Den } from '../core/cluster.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function image(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { displayName: name, image: `registry.example.com/${name}:1`, ...spec } };
}

function workspace(name: string, running = true): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice', creationTimestamp: new Date(Date.now() - 7_200_000).toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, running, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
    status: { phase: running ? 'Running' : 'Suspended', endpoint: `${name}@ssh.den.test` },
  };
}

async function signIn(den: Den, username: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const answer = await fetchPage(`${den.url}/login`, { form: { username, password, next: '/' } });
  expect(answer.status, answer.text).to.equal(302);
  const cookie = answer.headers.getSetCookie()[0]!.split(';')[0]!;
  const dashboard = await fetchPage(`${den.url}/`, { cookie });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(dashboard.text)![1]!;
  return { cookie, csrf };
}

describe('web UI pages (server side)', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let alice: { cookie: string; csrf: string };

  before(async () => {
    ({ api, den } = await startWith({ alice: {} }, (a) => {
      a.seed(
        image('ubuntu', { icon: `data:image/png;base64,${PNG.toString('base64')}`, tags: ['linux'] }),
        image('remote', { icon: 'https://icons.example.com/remote.png' }),
        image('html-icon', { icon: 'data:text/html,<script>alert(1)</script>' }),
        image('hostile', { displayName: '<img src=x onerror=alert(1)>', description: '"><script>alert(2)</script>' }),
        workspace('dev'),
        workspace('stopped', false),
      );
    }));
    alice = await signIn(den, 'alice', 'alice-password');
  });
  after(() => stopAll(den, api));

  it('sends a stranger to /login with the page to come back to', async () => {
    const answer = await fetchPage(`${den.url}/catalog?tag=linux`);
    expect(answer.status).to.equal(302);
    expect(answer.location).to.equal('/login?next=%2Fcatalog%3Ftag%3Dlinux');
  });

  it('goes back only to a path on this site after signing in', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const answer = await fetchPage(`${den.url}/login`, { form: { username: 'alice', password: 'alice-password', next } });
      expect(answer.location, next).to.equal('/');
    }
    const ok = await fetchPage(`${den.url}/login`, { form: { username: 'alice', password: 'alice-password', next: '/catalog?q=x' } });
    expect(ok.location).to.equal('/catalog?q=x');
  });

  it('answers a wrong password and an unknown user with the same words, and sets no cookie', async () => {
    const wrong = await fetchPage(`${den.url}/login`, { form: { username: 'alice', password: 'nope', next: '/' } });
    const unknown = await fetchPage(`${den.url}/login`, { form: { username: 'nobody', password: 'nope', next: '/' } });
    for (const answer of [wrong, unknown]) {
      expect(answer.status).to.equal(401);
      expect(answer.text).to.contain('Invalid username or password.');
      expect(answer.headers.getSetCookie()).to.deep.equal([]);
    }
  });

  it('refuses a form POST without the session\'s CSRF token, or with a wrong one, and changes nothing', async () => {
    for (const form of [{ back: '/' }, { _csrf: 'x'.repeat(43), back: '/' }] as Record<string, string>[]) {
      const answer = await fetchPage(`${den.url}/w/dev/stop`, { cookie: alice.cookie, form });
      expect(answer.status).to.equal(403);
      expect(answer.text).to.contain('CSRF token does not match your session');
      expect((api.object(RESOURCES.workspace, 'dev', 'svc-alice') as any).spec.running).to.equal(true);
    }
    const ok = await fetchPage(`${den.url}/w/dev/stop`, { cookie: alice.cookie, form: { _csrf: alice.csrf, back: '/' } });
    expect(ok.status).to.equal(302);
    expect((api.object(RESOURCES.workspace, 'dev', 'svc-alice') as any).spec.running).to.equal(false);
    await fetchPage(`${den.url}/w/dev/start`, { cookie: alice.cookie, form: { _csrf: alice.csrf, back: '/' } });
    expect((api.object(RESOURCES.workspace, 'dev', 'svc-alice') as any).spec.running).to.equal(true);
  });

  it('serves pages with the strict CSP, no inline script or style, and assets cacheable forever', async () => {
    const answer = await fetchPage(`${den.url}/`, { cookie: alice.cookie });
    expect(answer.headers.get('content-security-policy')).to.equal(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(answer.text).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(answer.text).not.to.match(/\sstyle=|<style/);
    const assets = [...answer.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).to.have.length.greaterThan(1);
    for (const path of assets) {
      expect(path).to.match(/^\/assets\/[a-z-]+\.[A-Z0-9]{8}\.(js|css)$/);
      const asset = await fetchPage(`${den.url}${path}`);
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    }
  });

  it('shows the dashboard with phases, the ssh command, the VS Code link, and start/stop only where they make sense', async () => {
    const { text } = await fetchPage(`${den.url}/`, { cookie: alice.cookie });
    expect(text).to.contain('<code>ssh dev@ssh.den.test</code>');
    expect(text).to.contain('href="vscode://vscode-remote/ssh-remote+dev@ssh.den.test/home/dev"');
    expect(text).to.match(/action="\/w\/dev\/start">.*?<button type="submit" class="" disabled/s);
    expect(text).to.match(/action="\/w\/stopped\/stop">.*?<button type="submit" class="secondary" disabled/s);
    expect(text).to.contain('2 hours ago');
  });

  it('escapes what the cluster says: a hostile catalog title and description arrive as text', async () => {
    const { text } = await fetchPage(`${den.url}/catalog`, { cookie: alice.cookie });
    expect(text).to.contain('&lt;img src=x onerror=alert(1)&gt;');
    expect(text).to.contain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(text).not.to.contain('<img src=x');
    expect(text).not.to.contain('<script>alert');
  });

  it('serves icons: an allowed data: URL decoded, an https URL as a redirect, anything else a 404', async () => {
    const png = await fetch(`${den.url}/workspace-images/ubuntu/icon`, { headers: { Cookie: alice.cookie } });
    expect(png.status).to.equal(200);
    expect(png.headers.get('content-type')).to.equal('image/png');
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).to.equal(true);
    const remote = await fetchPage(`${den.url}/workspace-images/remote/icon`, { cookie: alice.cookie });
    expect([remote.status, remote.location]).to.deep.equal([302, 'https://icons.example.com/remote.png']);
    const refused = await fetchPage(`${den.url}/workspace-images/html-icon/icon`, { cookie: alice.cookie });
    expect(refused.status).to.equal(404);
    expect(refused.headers.get('content-type')).to.contain('text/html');
    expect(refused.text).to.contain('has no usable icon');
  });

  it('shows the cluster\'s own 403 message when a right is missing, never a stack trace', async () => {
    const binding = api.object(RESOURCES.roleBinding, 'svc-owner', 'svc-alice')!;
    await api.client().delete(RESOURCES.roleBinding, 'svc-owner', 'svc-alice');
    try {
      const answer = await fetchPage(`${den.url}/`, { cookie: alice.cookie });
      expect(answer.status).to.equal(403);
      expect(answer.text).to.match(/workspaces\.den\.dev is forbidden: User &quot;system:serviceaccount:svc-alice:session&quot; cannot list resource &quot;workspaces&quot;/);
      expect(answer.text).not.to.match(/\bat .*\.ts:\d+/);
    } finally {
      api.seed(binding);
    }
  });

  it('answers an unknown page with a 404 page, and the API keeps answering JSON', async () => {
    const page = await fetchPage(`${den.url}/no/such/page`, { cookie: alice.cookie });
    expect(page.status).to.equal(404);
    expect(page.text).to.contain('there is no page at /no/such/page');
    const api404 = await fetch(`${den.api}/nothing`, { headers: { Cookie: alice.cookie } });
    expect(api404.headers.get('content-type')).to.contain('application/json');
  });
});
