// The profile's environment variables and git credentials in Chromium: a secret saved is seen
// afterwards by its name only (not in the page, not in its HTML), a plain one with its value
// escaped, a refused name beside its form without the value echoed, a git token kept and never
// shown, and forms refused without the session's CSRF token.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { sessionCookie } from '../../../server/auth/cookie.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { fetchPage } from '../../support/web.js';

const SECRET = 'npm_Sup3rS3cr3tValue';
const TOKEN = 'ghp_PageTestToken0123456789';

describe('the profile page keeps my environment variables and git credentials, in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let page: Page;

  before(async () => {
    world = await startBrowserDen({ alice: {} });
    page = await world.signedIn('alice', '/profile');
  });
  after(() => world?.close());

  const stored = (name: string) => Object.fromEntries(Object.entries(world.api.object<{ data?: Record<string, string> }>(RESOURCES.secret, name, 'svc-alice')?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

  it('saves a secret variable and afterwards shows only its name', async () => {
    expect(await page.locator('#no-env').textContent()).to.equal('No variables yet.');
    await page.getByLabel('Name', { exact: true }).fill('NPM_TOKEN');
    await page.getByLabel('Value', { exact: true }).fill(SECRET);
    expect(await page.getByLabel('Secret (never shown again)').isChecked()).to.equal(true);
    await page.click('form[action="/profile/env"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('The variable was saved; your workspaces get it at their next start.');
    expect(await page.locator('#env tr[data-env="NPM_TOKEN"] td').allTextContents()).to.deep.equal(['NPM_TOKEN', 'secret, not shown', 'Remove']);
    expect(await page.content()).to.not.include(SECRET);
    expect(stored('den-personal-env')).to.deep.equal({ NPM_TOKEN: SECRET });
    const patch = world.api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/secrets/den-personal-env'));
    expect(patch?.user).to.equal('system:serviceaccount:svc-alice:session');
  });

  it('shows the value of a variable saved as not secret, as text', async () => {
    await page.getByLabel('Name', { exact: true }).fill('GREETING');
    await page.getByLabel('Value', { exact: true }).fill('<b>hi</b>');
    await page.getByLabel('Secret (never shown again)').uncheck();
    await page.click('form[action="/profile/env"] button[type="submit"]');
    expect(await page.locator('#env tr[data-env="GREETING"] td').nth(1).textContent()).to.equal('<b>hi</b>');
    expect(await page.locator('#env tr[data-env="GREETING"] b').count()).to.equal(0);
  });

  it('refuses a name Den reserves beside the form, keeping the name and not echoing the value', async () => {
    await page.getByLabel('Name', { exact: true }).fill('HOME');
    await page.getByLabel('Value', { exact: true }).fill('not-echoed-value');
    await page.click('form[action="/profile/env"] button[type="submit"]');
    expect(await page.locator('#env-error').textContent()).to.equal('name HOME is set by Den in every workspace: choose another name');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
    expect(await page.inputValue('#env-name')).to.equal('HOME');
    expect(await page.content()).to.not.include('not-echoed-value');
    expect(Object.keys(stored('den-personal-env')).sort()).to.deep.equal(['GREETING', 'NPM_TOKEN']);
  });

  it('removes a variable after asking', async () => {
    page.once('dialog', (d) => void d.accept());
    await page.click('#env tr[data-env="GREETING"] button:has-text("Remove")');
    expect(await page.locator('#done').textContent()).to.equal('The variable was removed; your workspaces lose it at their next start.');
    expect(Object.keys(stored('den-personal-env'))).to.deep.equal(['NPM_TOKEN']);
  });

  it('keeps a git token for a host and shows the host and username, never the token', async () => {
    await page.getByLabel('Host', { exact: true }).fill('github.com');
    await page.getByLabel('Token', { exact: true }).fill(TOKEN);
    await page.click('form[action="/profile/git-credentials"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('The token was saved; git in your workspaces uses it.');
    expect(await page.locator('#git-credentials tr[data-git-host="github.com"] td').allTextContents()).to.deep.equal(['github.com', 'https', 'x-access-token', 'Forget']);
    expect(await page.content()).to.not.include(TOKEN);
    expect(stored('den-git-credentials')).to.deep.equal({ credentials: `https://x-access-token:${TOKEN}@github.com\n` });
  });

  it('refuses a host with a scheme beside the form', async () => {
    await page.getByLabel('Host', { exact: true }).fill('https://gitlab.com');
    await page.getByLabel('Token', { exact: true }).fill('glpat-x');
    await page.click('form[action="/profile/git-credentials"] button[type="submit"]');
    expect(await page.locator('#git-error').textContent()).to.match(/^host "https:\/\/gitlab\.com" is not a git host: give a lower-case host name/);
    expect(await page.content()).to.not.include('glpat-x');
  });

  it('keeps a dotfiles repository beside the git token, refuses one Den cannot clone beside its form keeping what was typed, and forgets it after asking', async () => {
    await page.getByLabel('Repository (https or SSH)').fill('ftp://github.com/alice/dotfiles.git');
    await page.click('form[action="/profile/dotfiles"] button[type="submit"]');
    expect(await page.locator('#dotfiles-error').textContent()).to.match(/^url "ftp:\/\/github\.com\/alice\/dotfiles\.git" uses ftp; only https \(or http\) and SSH URLs can be cloned/);
    expect(await page.getByLabel('Repository (https or SSH)').inputValue()).to.equal('ftp://github.com/alice/dotfiles.git');
    expect(stored('den-git-credentials').dotfiles).to.equal(undefined);
    await page.getByLabel('Repository (https or SSH)').fill('https://github.com/alice/dotfiles.git');
    await page.click('form[action="/profile/dotfiles"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('Your dotfiles repository was saved; each new workspace clones it on its first start.');
    expect(await page.locator('#dotfiles-kept code').textContent()).to.equal('https://github.com/alice/dotfiles.git');
    expect(stored('den-git-credentials')).to.deep.equal({ credentials: `https://x-access-token:${TOKEN}@github.com\n`, dotfiles: 'https://github.com/alice/dotfiles.git' });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('form[action="/profile/dotfiles/remove"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('Your dotfiles repository was forgotten.');
    expect(await page.locator('#no-dotfiles').textContent()).to.equal('No dotfiles repository yet.');
    expect(stored('den-git-credentials').dotfiles).to.equal(undefined);
  });

  it('refuses the forms without the session\'s CSRF token, and changes nothing', async () => {
    const { id } = await world.den.auth.sessions.create({ owner: 'alice@example.com', method: 'local', username: 'alice' }, Date.now());
    const cookie = sessionCookie(id, { secure: false, maxAgeSeconds: 3600 }).split(';')[0]!;
    const env = await fetchPage(`${world.den.url}/profile/env`, { cookie, form: { name: 'EVIL', value: 'x', secret: 'true' } });
    const git = await fetchPage(`${world.den.url}/profile/git-credentials`, { cookie, form: { host: 'evil.example', token: 'x' } });
    const dotfiles = await fetchPage(`${world.den.url}/profile/dotfiles`, { cookie, form: { url: 'https://evil.example/d.git' } });
    expect([env.status, git.status, dotfiles.status]).to.deep.equal([403, 403, 403]);
    expect(stored('den-git-credentials').dotfiles).to.equal(undefined);
    for (const answer of [env, git, dotfiles]) expect(answer.text).to.include('its CSRF token does not match your session');
    expect(Object.keys(stored('den-personal-env'))).to.deep.equal(['NPM_TOKEN']);
    expect(stored('den-git-credentials').credentials ?? '').to.not.include('evil.example');
  });
});
