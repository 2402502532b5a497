// A person's SSH key per git host over REST (server/api/ssh-key-store.ts), on the fake API server
// with the chart's RBAC: two keys of their den-git-credentials Secret, never answered or logged.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '../../../kube/resources.js';
import { generateHostKey } from '../../../ssh/host-key.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { call, login, startCluster, addPerson, startDen, stopAll, type Den, type Signed } from '../core/cluster.js';

const decoded = (data: Record<string, string> | undefined) => Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
const keyPart = (line: string) => line.split(' ').slice(0, 2).join(' ');

describe("a person's SSH key per git host (PUT and DELETE /profile/git-credentials/{host}/ssh-key)", () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  let logs: string[];
  const key = generateHostKey('alice@laptop');
  const hostKey = keyPart(generateHostKey('git-host').publicKey);

  beforeEach(async () => {
    logs = [];
    api = await startCluster();
    await addPerson(api, 'alice');
    den = await startDen(api, { log: (msg, fields) => logs.push(JSON.stringify({ msg, ...fields })) });
    alice = await login(den, 'alice', 'alice-password');
  });
  afterEach(() => stopAll(den, api));

  const stored = () => decoded(api.object<any>(RESOURCES.secret, 'den-git-credentials', 'svc-alice')!.data);
  const put = (host: string, body: unknown) => call(den, 'PUT', `/profile/git-credentials/${encodeURIComponent(host)}/ssh-key`, { as: alice, body });

  it('keeps the key and the host key as ssh-key.<host> and ssh-known-host.<host> (a port as _port), and answers and lists only the public half and the host key\'s fingerprint', async () => {
    const res = await put('git.example.com:2222', { ssh_private_key: key.privateKey, ssh_known_host: `[git.example.com]:2222 ${hostKey} # from ssh-keyscan` });
    const fingerprint = `SHA256:${execFileSync('ssh-keygen', ['-lf', '-'], { input: `${hostKey}\n`, encoding: 'utf8' }).split(' ')[1]!.slice('SHA256:'.length)}`;
    const answer = { host: 'git.example.com:2222', public_key: keyPart(key.publicKey), host_key_fingerprint: fingerprint };
    expect(res).to.deep.include({ status: 200, body: answer });
    expect(stored()).to.deep.equal({ 'ssh-key.git.example.com_2222': `${key.privateKey.trim()}\n`, 'ssh-known-host.git.example.com_2222': `[git.example.com]:2222 ${hostKey}\n` });
    await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'ghp_abc' } });
    const list = await call(den, 'GET', '/profile/git-credentials', { as: alice });
    expect(list.body).to.deep.equal({ items: [{ host: 'github.com', protocol: 'https', username: 'x-access-token' }], ssh_keys: [answer] });
    const secretLine = key.privateKey.split('\n')[2]!;
    expect(JSON.stringify(list.body) + JSON.stringify(res.body) + logs.join('\n')).to.not.include(secretLine);
  });

  it('forgets a host\'s SSH key with 204, leaving its token, and answers 404 once gone', async () => {
    await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'ghp_abc' } });
    await put('github.com', { ssh_private_key: key.privateKey, ssh_known_host: `github.com ${hostKey}` });
    expect((await call(den, 'DELETE', '/profile/git-credentials/github.com/ssh-key', { as: alice })).status).to.equal(204);
    expect(Object.keys(stored())).to.deep.equal(['credentials']);
    expect(await call(den, 'DELETE', '/profile/git-credentials/github.com/ssh-key', { as: alice })).to.deep.include({ status: 404, body: { error: 'you keep no SSH key for github.com' } });
  });

  it('refuses a key with a passphrase, saying Den cannot type one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'den-ssh-key-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'passphrase', '-f', join(dir, 'k')]);
      const res = await put('github.com', { ssh_private_key: readFileSync(join(dir, 'k'), 'utf8'), ssh_known_host: `github.com ${hostKey}` });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/^ssh_private_key is protected by a passphrase, and Den cannot type one when it clones: make a key without a passphrase/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const refused: [string, string, unknown, string | RegExp][] = [
    ['a public key given as the private key', 'github.com', { ssh_private_key: key.publicKey, ssh_known_host: `github.com ${hostKey}` }, 'ssh_private_key is a public key: give the private key file (such as ~/.ssh/id_ed25519), not the .pub file'],
    ['a private key ssh cannot read', 'github.com', { ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n-----END OPENSSH PRIVATE KEY-----\n', ssh_known_host: `github.com ${hostKey}` }, /^ssh_private_key is not a private key ssh can read \(.*\): give the whole file/],
    ['a missing known host', 'github.com', { ssh_private_key: key.privateKey }, 'ssh_known_host is required: one line of ssh-keyscan <host>, so Den can check it talks to the real host'],
    ['a known host line of another host', 'github.com', { ssh_private_key: key.privateKey, ssh_known_host: `gitlab.com ${hostKey}` }, `ssh_known_host is the key of gitlab.com, not of github.com: give the line ssh-keyscan prints for github.com`],
    ['a known host line without a port the host has', 'git.example.com:2222', { ssh_private_key: key.privateKey, ssh_known_host: `git.example.com ${hostKey}` }, 'ssh_known_host is the key of git.example.com, not of git.example.com:2222: give the line ssh-keyscan prints for git.example.com:2222'],
    ['several known host lines', 'github.com', { ssh_private_key: key.privateKey, ssh_known_host: `github.com ${hostKey}\ngithub.com ${hostKey}` }, /^ssh_known_host must be one line, the host key of the type you trust/],
    ['a known host line that is no key', 'github.com', { ssh_private_key: key.privateKey, ssh_known_host: 'github.com ssh-ed25519 bm90IGEga2V5' }, 'ssh_known_host is not a host\'s public key line (such as "github.com ssh-ed25519 AAAA…"): give one line of ssh-keyscan\'s output'],
    ['a host with a path', 'github.com/x', { ssh_private_key: key.privateKey, ssh_known_host: `github.com ${hostKey}` }, /^host "github.com\/x" is not a git host/],
  ];
  for (const [what, host, body, error] of refused) {
    it(`refuses ${what} with 400 naming the field, and keeps nothing`, async () => {
      const res = await put(host, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      if (typeof error === 'string') expect(res.body.error).to.equal(error);
      else expect(res.body.error).to.match(error);
      expect(stored()).to.deep.equal({});
    });
  }
});
