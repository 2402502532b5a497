// The profile page in Chromium: quota use as the cluster counts it against limits, saving and
// removing an SSH key (my own UserSpace, patched with my token; removing asks first), issuing a token that is shown once and works, revoking
// it, and changing the password (SPEC 4.5), wrong current password included.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { KEY } from '../api/support.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { sessionCookie } from '../../../server/auth/cookie.js';
import { fetchPage } from '../../support/web.js';
import { call, login } from '../core/cluster.js';

describe('the profile page in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let page: Page;

  before(async () => {
    world = await startBrowserDen({ alice: {} }, (api) => {
      api.seed({
        apiVersion: 'den.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'dev', namespace: 'svc-alice' },
        spec: { imageRef: { name: 'shell' }, storage: '10Gi', running: true, resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } } },
        status: { phase: 'Running' },
      });
      // Created with no size: the namespace's LimitRange gave its pod requests, which the quota counts.
      api.seed(
        { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'plain', namespace: 'svc-alice' }, spec: { imageRef: { name: 'shell' }, storage: '5Gi', running: true }, status: { phase: 'Running', podName: 'plain-0' } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain-0', namespace: 'svc-alice' }, spec: { containers: [{ name: 'workspace', image: 'debian:12', resources: { requests: { cpu: '500m', memory: '512Mi' } } }] }, status: { phase: 'Running' } },
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-plain-0', namespace: 'svc-alice' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } } } },
      );
    });
    page = await world.signedIn('alice', '/profile');
  });
  after(() => world?.close());

  it('shows what my workspaces use against my quota as the cluster counts it: pods as admitted, home volumes as bound', async () => {
    const row = async (what: string) => (await page.locator(`#quota tr[data-quota="${what}"] td`).allTextContents()).join(' / ');
    expect(await row('workspaces')).to.equal('2 / 3');
    expect(await row('CPU')).to.equal('2500m / 4');
    expect(await row('memory')).to.equal('4608Mi / 8Gi');
    expect(await row('storage')).to.equal('18Gi / 50Gi');
  });

  it('saves a key to my UserSpace, refuses a broken one beside the field, and removes it', async () => {
    await page.fill('#new-key', 'ssh-ed25519 not-a-key');
    await page.click('form[action="/profile/keys"] button[type="submit"]');
    expect(await page.locator('#key-error').textContent()).to.match(/^the key /);
    // Styled as an error (the theme's red, bold), not as body text.
    expect(await page.locator('#key-error').evaluate((el) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { color: string; fontWeight: string } }).getComputedStyle(el);
      return [style.color, style.fontWeight];
    })).to.deep.equal(['rgb(179, 38, 30)', '600']);
    expect(await page.inputValue('#new-key')).to.equal('ssh-ed25519 not-a-key');
    expect(world.api.object(RESOURCES.userSpace, 'alice')?.spec).to.not.have.property('sshAuthorizedKeys');

    await page.fill('#new-key', KEY);
    await page.click('form[action="/profile/keys"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('The key was saved.');
    expect((world.api.object(RESOURCES.userSpace, 'alice')?.spec as any).sshAuthorizedKeys).to.deep.equal([KEY]);
    const patch = world.api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/userspaces/alice'));
    expect(patch?.user).to.equal('system:serviceaccount:svc-alice:session');

    // Removing asks first; saying no keeps the key.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.click('#keys button:has-text("Remove")');
    expect(asked[0]).to.match(/^Remove the key ssh-ed25519 AAAAC3NzaC1l…\S+.*\? New workspaces no longer get it; workspaces that have it keep it\.$/);
    expect((world.api.object(RESOURCES.userSpace, 'alice')?.spec as any).sshAuthorizedKeys).to.deep.equal([KEY]);
    page.once('dialog', (d) => void d.accept());
    await page.click('#keys button:has-text("Remove")');
    expect(await page.locator('#done').textContent()).to.equal('The key was removed.');
    expect((world.api.object(RESOURCES.userSpace, 'alice')?.spec as any).sshAuthorizedKeys).to.deep.equal([]);
  });

  it('issues a read-only token shown once that works against the API, and revokes it', async () => {
    await page.fill('#token-name', 'ci-reader');
    await page.selectOption('#token-scope', 'read');
    await page.click('form[action="/profile/tokens"] button[type="submit"]');
    const token = (await page.locator('#token-value').textContent()) ?? '';
    expect(token).to.match(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(await page.locator('#tokens tr[data-token="ci-reader"]').count()).to.equal(1);
    const session = await call(world.den, 'GET', '/session', { as: token });
    expect(session.status).to.equal(200);
    expect(session.body.email).to.equal('alice@example.com');

    // Shown once: the page read again has the name, not the token.
    await page.goto(`${world.den.url}/profile`);
    expect(await page.locator('#token-value').count()).to.equal(0);
    expect(await page.content()).to.not.contain(token);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#tokens tr[data-token="ci-reader"] button');
    expect(await page.locator('#done').textContent()).to.equal('The token was revoked.');
    expect(await page.locator('#tokens tr[data-token="ci-reader"]').count()).to.equal(0);
    expect((await call(world.den, 'GET', '/session', { as: token })).status).to.equal(401);
  });

  it('changes the password: a wrong current one is refused beside the form, the right one works', async () => {
    await page.fill('#current_password', 'not-my-password');
    await page.fill('#new_password', 'a-brand-new-password');
    await page.click('form[action="/profile/password"] button[type="submit"]');
    expect(await page.locator('#password-error').textContent()).to.equal('current_password is wrong: type the password you sign in with now. Your password was not changed.');

    await page.fill('#current_password', 'alice-password');
    await page.fill('#new_password', 'a-brand-new-password');
    await page.click('form[action="/profile/password"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.contain('Your password was changed');
    await login(world.den, 'alice', 'a-brand-new-password');
    const old = await fetch(`${world.den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
    expect(old.status).to.equal(401);
  });

  it('explains, instead of a password form, why a session from an identity provider has no password to change', async () => {
    const { id, session } = await world.den.auth.sessions.create({ owner: 'alice@example.com', method: 'provider', provider: 'github' }, Date.now());
    const cookie = sessionCookie(id, { secure: false, maxAgeSeconds: 3600 }).split(';')[0]!;
    const profile = await fetchPage(`${world.den.url}/profile`, { cookie });
    expect(profile.status).to.equal(200);
    expect(profile.text).to.contain('id="no-password"');
    expect(profile.text).to.not.contain('id="current_password"');
    const posted = await fetchPage(`${world.den.url}/profile/password`, { cookie, form: { _csrf: session.csrfToken, current_password: 'x', new_password: 'a-long-enough-password' } });
    expect(posted.status).to.equal(409);
    expect(posted.text).to.contain('this session did not sign in with a local username and password, so it has no password to change');
  });
});
