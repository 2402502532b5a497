// The profile's SSH keys for cloning in Chromium: a key kept for a git host is listed by its
// public half and the host key's fingerprint and never shown again; a key with a passphrase is
// refused beside the form without echoing it; a key is forgotten after asking; the form needs
// the session's CSRF token.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { sessionCookie } from '../../../server/auth/cookie.js';
import { generateHostKey } from '../../../ssh/host-key.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { fetchPage } from '../../support/web.js';

const keyPart = (line: string) => line.split(' ').slice(0, 2).join(' ');

describe('the profile page keeps an SSH key per git host for cloning, in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let page: Page;
  const key = generateHostKey('alice@laptop');
  const hostKey = keyPart(generateHostKey('git-host').publicKey);
  const secretLine = key.privateKey.split('\n')[2]!;

  before(async () => {
    world = await startBrowserDen({ alice: {} });
    page = await world.signedIn('alice', '/profile');
  });
  after(() => world?.close());

  const stored = () => Object.fromEntries(Object.entries(world.api.object<{ data?: Record<string, string> }>(RESOURCES.secret, 'den-git-credentials', 'svc-alice')?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

  it('saves a key and the host key, and afterwards shows the public half and the host key\'s fingerprint, never the private key', async () => {
    expect(await page.locator('#no-ssh-keys').textContent()).to.equal('No SSH keys yet.');
    await page.getByLabel('SSH host').fill('git.example.com:2222');
    await page.getByLabel('Private key (no passphrase)').fill(key.privateKey);
    await page.getByLabel('Host key (one line of ssh-keyscan)').fill(`[git.example.com]:2222 ${hostKey}`);
    await page.click('form[action="/profile/git-credentials/ssh-key"] button[type="submit"]');
    expect(await page.locator('#done').textContent()).to.equal('The SSH key was saved; a workspace cloning an SSH address of its host uses it.');
    const fingerprint = execFileSync('ssh-keygen', ['-lf', '-'], { input: `${hostKey}\n`, encoding: 'utf8' }).split(' ')[1]!;
    expect(await page.locator('#ssh-keys tr[data-ssh-host="git.example.com:2222"] td').allTextContents()).to.deep.equal(['git.example.com:2222', keyPart(key.publicKey), fingerprint, 'Forget']);
    expect(await page.content()).to.not.include(secretLine);
    expect(stored()).to.deep.equal({ 'ssh-key.git.example.com_2222': `${key.privateKey.trim()}\n`, 'ssh-known-host.git.example.com_2222': `[git.example.com]:2222 ${hostKey}\n` });
    const patch = world.api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/secrets/den-git-credentials'));
    expect(patch?.user).to.equal('system:serviceaccount:svc-alice:session');
  });

  it('refuses a key with a passphrase beside the form, keeping the host and host key typed and not echoing the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'den-page-key-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret', '-f', join(dir, 'k')]);
      const locked = readFileSync(join(dir, 'k'), 'utf8');
      await page.getByLabel('SSH host').fill('github.com');
      await page.getByLabel('Private key (no passphrase)').fill(locked);
      await page.getByLabel('Host key (one line of ssh-keyscan)').fill(`github.com ${hostKey}`);
      await page.click('form[action="/profile/git-credentials/ssh-key"] button[type="submit"]');
      expect(await page.locator('#ssh-key-error').textContent()).to.match(/^ssh_private_key is protected by a passphrase, and Den cannot type one when it clones: make a key without a passphrase for this host \(ssh-keygen -t ed25519 -N "" -f den_key\)/);
      expect(await page.getByLabel('SSH host').getAttribute('aria-invalid')).to.equal('true');
      expect(await page.inputValue('#ssh-host')).to.equal('github.com');
      expect(await page.inputValue('#ssh-known-host')).to.equal(`github.com ${hostKey}`);
      expect(await page.inputValue('#ssh-private-key')).to.equal('');
      expect(await page.content()).to.not.include(locked.split('\n')[2]!);
      expect(Object.keys(stored())).to.deep.equal(['ssh-key.git.example.com_2222', 'ssh-known-host.git.example.com_2222']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses the form without the session\'s CSRF token, and keeps nothing', async () => {
    const { id } = await world.den.auth.sessions.create({ owner: 'alice@example.com', method: 'local', username: 'alice' }, Date.now());
    const cookie = sessionCookie(id, { secure: false, maxAgeSeconds: 3600 }).split(';')[0]!;
    const answer = await fetchPage(`${world.den.url}/profile/git-credentials/ssh-key`, { cookie, form: { host: 'evil.example', ssh_private_key: key.privateKey, ssh_known_host: `evil.example ${hostKey}` } });
    expect(answer.status).to.equal(403);
    expect(answer.text).to.include('its CSRF token does not match your session');
    expect(Object.keys(stored())).to.not.include('ssh-key.evil.example');
  });

  it('forgets a key after asking', async () => {
    page.once('dialog', (d) => void d.accept());
    await page.click('#ssh-keys tr[data-ssh-host="git.example.com:2222"] button:has-text("Forget")');
    expect(await page.locator('#done').textContent()).to.equal('The SSH key was forgotten.');
    expect(await page.locator('#no-ssh-keys').textContent()).to.equal('No SSH keys yet.');
    expect(stored()).to.deep.equal({});
  });
});
