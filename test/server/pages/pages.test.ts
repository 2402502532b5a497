// The web UI's server side over a loopback port, without a browser: where a stranger is sent,
// what a form without its CSRF token changes (nothing), what the cluster's refusal reads like,
// and the headers, escaping and icons every page relies on.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fetchPage, openLoginForm, postLoginForm } from '../../support/web.js';
import { startWith, stopAll, type Den } from '../core/cluster.js';
import { byEventTime, type EventView } from '../../../web/templates/workspace.js';

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
  const answer = await postLoginForm(den.url, { username, password });
  expect(answer.status, answer.text).to.equal(302);
  const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
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
      const answer = await postLoginForm(den.url, { username: 'alice', password: 'alice-password', next });
      expect(answer.location, next).to.equal('/');
    }
    const ok = await postLoginForm(den.url, { username: 'alice', password: 'alice-password', next: '/catalog?q=x' });
    expect(ok.location).to.equal('/catalog?q=x');
  });

  it('answers a wrong password and an unknown user with the same words, and sets no session cookie', async () => {
    const wrong = await postLoginForm(den.url, { username: 'alice', password: 'nope' });
    const unknown = await postLoginForm(den.url, { username: 'nobody', password: 'nope' });
    for (const answer of [wrong, unknown]) {
      expect(answer.status).to.equal(401);
      expect(answer.text).to.contain('Invalid username or password.');
      expect(answer.headers.getSetCookie().filter((c) => c.startsWith('svc_session='))).to.deep.equal([]);
    }
  });

  it('gives the sign-in form a token paired with an HttpOnly, SameSite cookie, and keeps it for a second tab', async () => {
    const first = await fetchPage(`${den.url}/login`);
    const set = first.headers.getSetCookie().find((c) => c.startsWith('svc_login_csrf='))!;
    expect(set).to.match(/^svc_login_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    const token = set.split(';')[0]!.slice('svc_login_csrf='.length);
    expect(first.text).to.contain(`<input type="hidden" name="_csrf" value="${token}">`);
    const second = await fetchPage(`${den.url}/login`, { cookie: `svc_login_csrf=${token}` });
    expect(second.text).to.contain(`value="${token}"`);
  });

  it('refuses a sign-in form posted from another site (login CSRF): a 403 page saying so, and nobody signed in', async () => {
    const sessions = () => api.objects(RESOURCES.secret, 'svc-system').filter((s: any) => s.metadata.labels?.['den.dev/kind'] === 'session').length;
    const before = sessions();
    // The attacker's own pair from their own visit to /login: the victim's browser sends neither its cookie nor theirs.
    const attacker = await openLoginForm(den.url);
    const forged: { what: string; cookie?: string; form: Record<string, string>; headers?: Record<string, string> }[] = [
      { what: 'no token, no cookie', form: { username: 'alice', password: 'alice-password' } },
      { what: "the attacker's token, no cookie", form: { _csrf: attacker.csrf, username: 'alice', password: 'alice-password' }, headers: { 'Sec-Fetch-Site': 'cross-site' } },
      { what: "a victim's cookie with the attacker's token", cookie: (await openLoginForm(den.url)).cookie, form: { _csrf: attacker.csrf, username: 'alice', password: 'alice-password' } },
      { what: 'a matching pair sent cross-site', cookie: attacker.cookie, form: { _csrf: attacker.csrf, username: 'alice', password: 'alice-password' }, headers: { 'Sec-Fetch-Site': 'cross-site' } },
      { what: 'a matching pair sent from a sibling site', cookie: attacker.cookie, form: { _csrf: attacker.csrf, username: 'alice', password: 'alice-password' }, headers: { 'Sec-Fetch-Site': 'same-site' } },
    ];
    for (const f of forged) {
      const answer = await fetchPage(`${den.url}/login`, { cookie: f.cookie, form: { next: '/', ...f.form }, headers: f.headers });
      expect(answer.status, f.what).to.equal(403);
      expect(answer.text, f.what).to.contain('This sign-in form did not come from this Den sign-in page, or it has expired; nobody was signed in.');
      expect(answer.text, f.what).to.contain('id="login-error"');
      expect(answer.text, 'what the other site typed is not written back').not.to.contain('value="alice"');
      expect(answer.headers.getSetCookie().filter((c) => c.startsWith('svc_session=')), f.what).to.deep.equal([]);
    }
    expect(sessions(), 'no session created').to.equal(before);
    const real = await fetchPage(`${den.url}/login`, { cookie: attacker.cookie, form: { _csrf: attacker.csrf, next: '/', username: 'alice', password: 'alice-password' }, headers: { 'Sec-Fetch-Site': 'same-origin' } });
    expect(real.status, 'the same pair from the page itself').to.equal(302);
    expect(real.headers.getSetCookie()).to.include('svc_login_csrf=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });

  it('refuses a form POST without the session\'s CSRF token, or with a wrong one, and changes nothing', async () => {
    for (const [action, form] of ['stop', 'restart'].flatMap((a) => [[a, { back: '/' }], [a, { _csrf: 'x'.repeat(43), back: '/' }]] as [string, Record<string, string>][])) {
      const answer = await fetchPage(`${den.url}/w/dev/${action}`, { cookie: alice.cookie, form });
      expect(answer.status, action).to.equal(403);
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
      expect(path).to.match(/^\/assets\/[a-z-]+\.[A-Z0-9]{8}\.(js|css|svg)$/);
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

  it('creates the workspace and says on its page, once, why the key was not saved when saving it to the UserSpace fails', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
    const role = api.object<any>(RESOURCES.clusterRole, 'svc-userspace-alice')!;
    // The person may read their UserSpace but no longer patch it.
    api.seed({ ...role, rules: role.rules.map((r: any) => ({ ...r, verbs: r.verbs.filter((v: string) => v !== 'patch') })) });
    try {
      const created = await fetchPage(`${den.url}/new`, { cookie: alice.cookie, form: { _csrf: alice.csrf, name: 'keyless', image: 'ubuntu', storage: '1Gi', ssh_public_key: key, save_key: '1' } });
      expect(created.status, created.text).to.equal(302);
      expect(created.location).to.equal('/w/keyless');
      expect(api.object(RESOURCES.workspace, 'keyless', 'svc-alice'), 'the workspace exists').to.not.equal(undefined);
      expect((api.object<any>(RESOURCES.userSpace, 'alice')!.spec.sshAuthorizedKeys ?? []) as string[]).not.to.include(key);
      const notice = created.headers.getSetCookie().find((c) => c.startsWith('svc_notice='))!;
      expect(notice).to.match(/; Path=\/w\/keyless; HttpOnly; SameSite=Lax; Max-Age=60$/);
      const cookie = `${alice.cookie}; ${notice.split(';')[0]}`;
      const page = await fetchPage(`${den.url}/w/keyless`, { cookie });
      expect(page.status).to.equal(200);
      const shown = /<div class="notice warning" role="status" id="notice">([^<]*)<\/div>/.exec(page.text)?.[1];
      expect(shown).to.match(/^The workspace was created, but your SSH key was not saved to your profile: userspaces\.den\.dev &quot;alice&quot; is forbidden: User &quot;system:serviceaccount:svc-alice:session&quot; cannot patch resource &quot;userspaces&quot;/);
      expect(page.headers.getSetCookie()).to.include('svc_notice=; Path=/w/keyless; HttpOnly; SameSite=Lax; Max-Age=0');
      const again = await fetchPage(`${den.url}/w/keyless`, { cookie: alice.cookie });
      expect(again.text, 'shown once').not.to.contain('id="notice"');
    } finally {
      api.seed(role);
      await api.client().delete(RESOURCES.workspace, 'keyless', 'svc-alice');
    }
  });

  it('creates a workspace from a repository given in the form\'s Repository fields', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
    const form = await fetchPage(`${den.url}/new`, { cookie: alice.cookie });
    for (const id of ['repo', 'repo_ref', 'repo_path', 'repo_devcontainer']) expect(form.text).to.match(new RegExp(`<input type="text" id="${id}" name="${id}" value=""`));
    try {
      const created = await fetchPage(`${den.url}/new`, { cookie: alice.cookie, form: { _csrf: alice.csrf, name: 'fromrepo', image: 'ubuntu', storage: '1Gi', ssh_public_key: key, repo: 'https://git.example.com/team/api.git', repo_ref: 'v2', repo_path: '' } });
      expect(created.status, created.text).to.equal(302);
      expect(api.object<any>(RESOURCES.workspace, 'fromrepo', 'svc-alice')!.spec.source).to.deep.equal({ git: { url: 'https://git.example.com/team/api.git', ref: 'v2' } });
    } finally {
      await api.client().delete(RESOURCES.workspace, 'fromrepo', 'svc-alice');
    }
  });

  it('refuses a repository Den cannot clone beside the field it is about, keeping what was typed, and creates nothing', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
    for (const [fields, id, said] of [
      [{ repo: 'git@github.com:' }, 'repo', 'Add the repository to the address, such as git@github.com:owner/repo.git or ssh://git@git.example.com:2222/owner/repo.git.'],
      [{ repo: 'https://git.example.com/team/api.git', repo_ref: 'a b' }, 'repo_ref', '&quot;a b&quot; is not a branch, tag or commit name git accepts (it must not contain spaces, control characters or any of ~ ^ : ? * [ \\): give one such as main, v1.2.0 or 3f2c1ab, or leave it empty for the default branch.'],
      [{ repo: 'https://git.example.com/team/api.git', repo_path: '../up' }, 'repo_path', 'Give a folder inside your home, such as src/app (no leading /, no ..).'],
      [{ repo: 'https://git.example.com/team/api.git', repo_devcontainer: 'a b' }, 'repo_devcontainer', 'Name a configuration of the repository (the folder under .devcontainer/, such as python), or a path such as .devcontainer/python/devcontainer.json; leave it empty for .devcontainer/devcontainer.json.'],
    ] as const) {
      const answer = await fetchPage(`${den.url}/new`, { cookie: alice.cookie, form: { _csrf: alice.csrf, name: 'badrepo', image: 'ubuntu', storage: '1Gi', ssh_public_key: key, ...fields } });
      expect(answer.status, id).to.equal(400);
      const error = new RegExp(`<p class="error" id="${id}-error" role="alert">([^<]*)</p>`).exec(answer.text)?.[1];
      // The repository rule's words for a person, as the webhook gives them; REST's 400 keeps naming source.git.*.
      expect(error, id).to.equal(said);
      expect(answer.text).to.contain(`value="${Object.values(fields).at(-1)}"`);
      expect(api.object(RESOURCES.workspace, 'badrepo', 'svc-alice'), id).to.equal(undefined);
    }
  });

  it('shows a failed clone in the clone step\'s own words on the workspace page', async () => {
    const failed = 'Cloning https://git.example.com/team/api.git failed: git.example.com refused access (HTTP 401). The repository is private or the address is wrong: keep a token for git.example.com (den git-credential set git.example.com, or your profile page) and start the workspace again, or check the address.';
    const ws = workspace('cloned');
    api.seed({ ...ws, spec: { ...(ws.spec as object), source: { git: { url: 'https://git.example.com/team/api.git' } } }, status: { phase: 'Failed', endpoint: 'cloned@ssh.den.test', conditions: [
      { type: 'Ready', status: 'False', reason: 'CloneFailed', message: failed, lastTransitionTime: '2030-01-01T00:00:00Z' },
      { type: 'Cloned', status: 'False', reason: 'CloneFailed', message: failed, lastTransitionTime: '2030-01-01T00:00:00Z' },
    ] } } as KubeObject);
    try {
      const page = await fetchPage(`${den.url}/w/cloned`, { cookie: alice.cookie });
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('git.example.com refused access (HTTP 401). The repository is private or the address is wrong');
      expect(page.text).to.match(/<td data-label="Type">Cloned<\/td><td data-label="Status">False<\/td><td data-label="Reason">CloneFailed<\/td>/);
      // The Details card names the repository, the ref, the folder and where the clone is; the SSH address; the pod not there yet.
      expect(page.text).to.contain(`<dt>Repository</dt><dd><code>https://git.example.com/team/api.git</code> at its default branch, into <code>~/api</code>. <span class="muted">${failed}</span></dd>`);
      expect(page.text).to.contain('<dt>SSH address</dt><dd><code>cloned@ssh.den.test</code></dd>');
      expect(page.text).to.match(/<dt>Pod<\/dt><dd><span class="muted">not created yet<\/span><\/dd>\s*<dt>Node<\/dt><dd><span class="muted">–<\/span><\/dd>/);
    } finally {
      api.remove(RESOURCES.workspace, 'cloned', 'svc-alice');
    }
  });

  it("answers the status poll as JSON when asked (phase, reason, conditions, the pod's events) and the log as REST's JSON", async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dev-0', namespace: 'svc-alice', labels: { 'den.dev/workspace': 'dev' } }, spec: { containers: [{ name: 'workspace', image: 'ubuntu' }] }, status: { phase: 'Running' } };
    const event = (name: string, kind: string, object: string, reason: string, message: string, at: string) => ({
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'svc-alice' }, involvedObject: { kind, name: object, namespace: 'svc-alice' }, reason, message, type: 'Normal', count: 1, firstTimestamp: at, lastTimestamp: at,
    });
    // Only Kubernetes' own Events here: the starts and stops of the tests before left Den's.
    for (const e of api.objects(RESOURCES.event, 'svc-alice')) api.remove(RESOURCES.event, e.metadata!.name!, 'svc-alice');
    api.seed(
      pod as KubeObject,
      event('dev-0.2', 'Pod', 'dev-0', 'Started', 'Started container workspace', '2030-01-01T00:00:02Z') as KubeObject,
      event('dev-0.1', 'Pod', 'dev-0', 'Pulled', 'Container image "ubuntu" already present on machine', '2030-01-01T00:00:01Z') as KubeObject,
      event('home-dev-0.1', 'PersistentVolumeClaim', 'home-dev-0', 'ProvisioningSucceeded', 'Successfully provisioned volume', '2030-01-01T00:00:00Z') as KubeObject,
      event('other-0.1', 'Pod', 'other-0', 'Started', 'not about dev', '2030-01-01T00:00:03Z') as KubeObject,
    );
    api.setPodLog('svc-alice', 'dev-0', 'one\ntwo\nthree\n');
    try {
      const res = await fetch(`${den.url}/w/dev/status`, { headers: { Cookie: alice.cookie, Accept: 'application/json' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = (await res.json()) as any;
      expect(body).to.deep.include({ phase: 'Running', reason: '', conditions: [] });
      expect(body.events.map((e: any) => [e.reason, e.message])).to.deep.equal([
        ['Pulled', 'Container image "ubuntu" already present on machine'],
        ['Started', 'Started container workspace'],
      ]);
      const html = await fetchPage(`${den.url}/w/dev/status`, { cookie: alice.cookie, headers: { Accept: 'text/html' } });
      expect(html.text, 'the start as steps with their times').to.match(
        /<ol class="progress" aria-label="Steps of the latest start"><li class="Normal"><time datetime="2030-01-01T00:00:01Z">[^<]+<\/time> <strong>Pulled<\/strong>.*<li class="Normal"><time datetime="2030-01-01T00:00:02Z">\+1 s<\/time> <strong>Started<\/strong>/s,
      );
      expect(html.text, 'the Connect card and its buttons are part of the poll').to.contain('<section class="card" id="connect-card">').and.contain('aria-label="Stop dev"');

      const logs = await fetch(`${den.url}/w/dev/logs?tail=2`, { headers: { Cookie: alice.cookie } });
      expect(await logs.json()).to.deep.equal({ namespace: 'svc-alice', pod: 'dev-0', lines: 'two\nthree\n' });
      const none = await fetch(`${den.url}/w/stopped/logs`, { headers: { Cookie: alice.cookie } });
      expect(none.status).to.equal(409);
      expect(await none.json()).to.deep.equal({ error: 'workspace stopped has no running pod, start it first' });

      const page = await fetchPage(`${den.url}/w/dev`, { cookie: alice.cookie });
      const events = /<section role="tabpanel" id="panel-events"[^>]*>(.*?)<\/section>/s.exec(page.text)![1]!;
      expect([...events.matchAll(/<td data-label="Reason">([A-Za-z]+)<\/td>/g)].map((m) => m[1])).to.deep.equal(['ProvisioningSucceeded', 'Pulled', 'Started']);
      expect(events).to.contain('PersistentVolumeClaim/home-dev-0').and.not.to.contain('not about dev');
    } finally {
      for (const name of ['dev-0.1', 'dev-0.2', 'home-dev-0.1', 'other-0.1']) api.remove(RESOURCES.event, name, 'svc-alice');
      api.remove(RESOURCES.pod, 'dev-0', 'svc-alice');
    }
  });

  it("reads the catalog entry in a status poll only where the page shows it: a stopped workspace's poll reads the Workspace and its Events, and names the image again once it changed", async () => {
    const poll = async (url: string) => {
      const from = api.requests.length;
      const answer = await fetchPage(`${den.url}${url}`, { cookie: alice.cookie, headers: { Accept: 'text/html', 'X-Den-Fragment': 'live' } });
      expect(answer.status, answer.text).to.equal(200);
      const read = api.requests.slice(from).filter((r) => r.user === 'system:serviceaccount:svc-alice:session').map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`);
      const image = /<template data-live-part="image">(.*?)<\/template>/s.exec(answer.text)?.[1];
      return { read, image, text: answer.text };
    };
    const page = await fetchPage(`${den.url}/w/stopped`, { cookie: alice.cookie });
    const url = /<div id="live" data-live-url="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    expect(url).to.equal('/w/stopped/status?image=ubuntu');

    const stopped = await poll(url);
    expect(stopped.read).to.deep.equal(['GET /apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces/stopped', 'GET /api/v1/namespaces/svc-alice/events']);
    expect(stopped.image, 'the Image fact stays as the page drew it').to.equal(undefined);
    expect(stopped.text, 'the other facts follow').to.contain('<template data-live-part="facts">');

    await api.client().patch(RESOURCES.workspace, 'stopped', { spec: { imageRef: { name: 'remote' } } }, { namespace: 'svc-alice' });
    try {
      const changed = await poll(url);
      expect(changed.read).to.include('GET /apis/den.dev/v1alpha1/workspaceimages/remote');
      expect(changed.image).to.equal('<dt>Image</dt><dd>remote</dd>');
    } finally {
      await api.client().patch(RESOURCES.workspace, 'stopped', { spec: { imageRef: { name: 'ubuntu' } } }, { namespace: 'svc-alice' });
    }

    const running = await poll('/w/dev/status?image=ubuntu');
    expect(running.read, 'a Running workspace shows the home path of its entry').to.include('GET /apis/den.dev/v1alpha1/workspaceimages/ubuntu');
    expect(running.image).to.equal('<dt>Image</dt><dd>ubuntu</dd>');
    expect(running.read.filter((r) => r.includes('/pods/')), 'no ports read on a poll that does not ask for them').to.deep.equal([]);
    expect(running.text).not.to.contain('data-live-part="ports"');
  });

  it('answers an unknown page with a 404 page, and the API keeps answering JSON', async () => {
    const page = await fetchPage(`${den.url}/no/such/page`, { cookie: alice.cookie });
    expect(page.status).to.equal(404);
    expect(page.text).to.contain('there is no page at /no/such/page');
    const api404 = await fetch(`${den.api}/nothing`, { headers: { Cookie: alice.cookie } });
    expect(api404.headers.get('content-type')).to.contain('application/json');
  });
});

describe('byEventTime', () => {
  const at = (time: string, rv: string, reason: string): EventView => ({ reason, lastTimestamp: time, metadata: { resourceVersion: rv } });

  it('orders events by time, and those of one second in the order the API server stored them', () => {
    const events = [
      at('2024-05-01T10:00:01Z', '1009', 'Started'),
      at('2024-05-01T10:00:01Z', '998', 'Pulled'),
      at('2024-05-01T10:00:00Z', '1200', 'Early'),
      at('2024-05-01T10:00:01Z', '1001', 'Created'),
      { reason: 'Scheduled', eventTime: '2024-05-01T10:00:01.900000Z', metadata: { resourceVersion: '990' } },
    ];
    expect(events.sort(byEventTime).map((e) => e.reason)).to.deep.equal(['Early', 'Scheduled', 'Pulled', 'Created', 'Started']);
  });
});
