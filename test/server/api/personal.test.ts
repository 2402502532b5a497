// The person's own environment variables and git credentials over REST (server/api/personal.ts),
// on the fake API server with the chart's RBAC and the manager's UserSpace children.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, startSignedIn, stopAll, type Den, type Signed } from '../core/cluster.js';

function stored(api: FakeApiServer, name: string, namespace = 'svc-alice'): { data?: Record<string, string>; metadata: { annotations?: Record<string, string> } } {
  return api.object<any>(RESOURCES.secret, name, namespace)!;
}

const decoded = (data: Record<string, string> | undefined) => Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

describe("a person's environment variables (GET /profile/env, PUT and DELETE /profile/env/{variable})", () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  let logs: string[];

  beforeEach(async () => {
    logs = [];
    api = await startCluster();
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    den = await startDen(api, { log: (msg, fields) => logs.push(JSON.stringify({ msg, ...fields })) });
    alice = await login(den, 'alice', 'alice-password');
  });
  afterEach(() => stopAll(den, api));

  it('has none at first', async () => {
    expect(await call(den, 'GET', '/profile/env', { as: alice })).to.deep.include({ status: 200, body: { items: [] } });
  });

  it('keeps a secret variable in den-personal-env and lists only its name afterwards', async () => {
    const put = await call(den, 'PUT', '/profile/env/NPM_TOKEN', { as: alice, body: { value: 'npm_s3cr3t' } });
    expect(put).to.deep.include({ status: 200, body: { name: 'NPM_TOKEN', secret: true } });
    expect(decoded(stored(api, 'den-personal-env').data)).to.deep.equal({ NPM_TOKEN: 'npm_s3cr3t' });
    const list = await call(den, 'GET', '/profile/env', { as: alice });
    expect(list.body).to.deep.equal({ items: [{ name: 'NPM_TOKEN', secret: true }] });
    expect(JSON.stringify(list.body)).to.not.include('npm_s3cr3t');
  });

  it('shows the value of a variable saved as not secret, and turns it secret when saved again so', async () => {
    expect((await call(den, 'PUT', '/profile/env/EDITOR', { as: alice, body: { value: 'vim', secret: false } })).body).to.deep.equal({ name: 'EDITOR', secret: false, value: 'vim' });
    expect((await call(den, 'GET', '/profile/env', { as: alice })).body).to.deep.equal({ items: [{ name: 'EDITOR', secret: false, value: 'vim' }] });
    expect(stored(api, 'den-personal-env').metadata.annotations?.['den.dev/plain-names']).to.equal('EDITOR');
    await call(den, 'PUT', '/profile/env/EDITOR', { as: alice, body: { value: 'nvim' } });
    expect((await call(den, 'GET', '/profile/env', { as: alice })).body).to.deep.equal({ items: [{ name: 'EDITOR', secret: true }] });
  });

  it('removes a variable with 204, and answers 404 for one it does not have', async () => {
    await call(den, 'PUT', '/profile/env/A_B', { as: alice, body: { value: '1', secret: false } });
    expect((await call(den, 'DELETE', '/profile/env/A_B', { as: alice })).status).to.equal(204);
    expect(stored(api, 'den-personal-env').data ?? {}).to.deep.equal({});
    expect(await call(den, 'DELETE', '/profile/env/A_B', { as: alice })).to.deep.include({ status: 404, body: { error: 'you have no variable named A_B' } });
  });

  const refused: [string, string, unknown, string][] = [
    ['a name that is no environment variable name', '1ABC', { value: 'x' }, 'name "1ABC" is not an environment variable name: use letters, digits and "_", not starting with a digit'],
    ['a name with a dash', 'MY-VAR', { value: 'x' }, 'name "MY-VAR" is not an environment variable name: use letters, digits and "_", not starting with a digit'],
    ['HOME, which Den sets', 'HOME', { value: '/tmp' }, 'name HOME is set by Den in every workspace: choose another name'],
    ["a name in Den's DEN_ prefix", 'DEN_X', { value: 'x' }, 'name DEN_X starts with DEN_, which Den reserves: choose another name'],
    ["git's configuration, which carries the credential helper", 'GIT_CONFIG_VALUE_0', { value: 'x' }, 'name GIT_CONFIG_VALUE_0 starts with GIT_CONFIG_VALUE_, which Den reserves: choose another name'],
    ['a name too long', 'A'.repeat(129), { value: 'x' }, 'name must be at most 128 characters'],
    ['a missing value', 'OK', {}, 'value is required'],
    ['a value that is not a string', 'OK', { value: 5 }, 'value must be a string'],
    ['a value over 16 KiB', 'OK', { value: 'é'.repeat(8193) }, 'value must be at most 16384 bytes'],
    ['a NUL in the value', 'OK', { value: 'a\u0000b' }, 'value must not contain a NUL character'],
    ['an unknown field', 'OK', { value: 'x', visible: true }, 'unknown field visible'],
  ];
  for (const [what, name, body, error] of refused) {
    it(`refuses ${what} with 400 naming the field, and keeps nothing`, async () => {
      const res = await call(den, 'PUT', `/profile/env/${encodeURIComponent(name)}`, { as: alice, body });
      expect(res).to.deep.include({ status: 400, body: { error } });
      expect(stored(api, 'den-personal-env').data ?? {}).to.deep.equal({});
    });
  }

  it('refuses the 51st variable, naming how many there are and what to do', async () => {
    for (let i = 0; i < 50; i++) await call(den, 'PUT', `/profile/env/V${i}`, { as: alice, body: { value: 'x' } });
    const res = await call(den, 'PUT', '/profile/env/ONE_MORE', { as: alice, body: { value: 'x' } });
    expect(res).to.deep.include({ status: 400, body: { error: 'name: you keep 50 variables, the most Den keeps: remove one (den env rm <name>) before adding ONE_MORE' } });
    expect((await call(den, 'PUT', '/profile/env/V0', { as: alice, body: { value: 'y' } })).status).to.equal(200);
  });

  it("answers another person's request for alice's variables with the cluster's 403", async () => {
    await call(den, 'PUT', '/profile/env/NPM_TOKEN', { as: alice, body: { value: 'npm_s3cr3t' } });
    const bob = await login(den, 'bob', 'bob-password');
    const res = await call(den, 'GET', '/profile/env?namespace=svc-alice', { as: bob });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.match(/^secrets "den-personal-env" is forbidden: User "system:serviceaccount:svc-bob:session" cannot get resource "secrets" in API group "" in the namespace "svc-alice"/);
  });

  it('refuses a namespace query that is no namespace name with 400, before asking the cluster', async () => {
    const res = await call(den, 'GET', '/profile/env?namespace=..%2Fsvc-bob', { as: alice });
    expect(res).to.deep.include({ status: 400, body: { error: 'namespace must be 1-63 lower-case letters, digits or "-", starting and ending with a letter or digit' } });
  });

  it('lets a read-scoped token list the names and refuses its writes with the cluster\'s 403', async () => {
    const issued = await call(den, 'POST', '/tokens?scope=read', { as: alice });
    expect((await call(den, 'GET', '/profile/env', { as: issued.body.token })).status).to.equal(200);
    const res = await call(den, 'PUT', '/profile/env/X', { as: issued.body.token, body: { value: 'x' } });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.include('cannot patch resource "secrets"');
  });

  it('never writes a value into a log line', async () => {
    await call(den, 'PUT', '/profile/env/NPM_TOKEN', { as: alice, body: { value: 'npm_s3cr3t' } });
    await call(den, 'PUT', '/profile/env/HOME', { as: alice, body: { value: 'npm_s3cr3t' } });
    expect(logs.join('\n')).to.not.include('npm_s3cr3t');
  });
});

describe("a person's git credentials (GET /profile/git-credentials, PUT and DELETE /profile/git-credentials/{host})", () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: {} }));
  });
  afterEach(() => stopAll(den, api));

  const file = () => Buffer.from(stored(api, 'den-git-credentials').data?.credentials ?? '', 'base64').toString('utf8');

  it("keeps a token per host as git-credential-store's file (sorted by host, user and token URL-encoded) and lists hosts and usernames, never tokens", async () => {
    const put = await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'ghp_abc123' } });
    expect(put).to.deep.include({ status: 200, body: { host: 'github.com', protocol: 'https', username: 'x-access-token' } });
    await call(den, 'PUT', '/profile/git-credentials/git.example.com:8443', { as: alice, body: { token: 'glpat-x/y', username: 'alice', protocol: 'http' } });
    expect(file()).to.equal('http://alice:glpat-x%2Fy@git.example.com:8443\nhttps://x-access-token:ghp_abc123@github.com\n');
    const list = await call(den, 'GET', '/profile/git-credentials', { as: alice });
    expect(list.body).to.deep.equal({ items: [{ host: 'git.example.com:8443', protocol: 'http', username: 'alice' }, { host: 'github.com', protocol: 'https', username: 'x-access-token' }], ssh_keys: [] });
    expect(JSON.stringify(list.body)).to.not.include('ghp_abc123');
  });

  it("replaces a host's token, and forgets it with 204 (404 once gone)", async () => {
    await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'old' } });
    await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'new' } });
    expect(file()).to.equal('https://x-access-token:new@github.com\n');
    expect((await call(den, 'DELETE', '/profile/git-credentials/github.com', { as: alice })).status).to.equal(204);
    expect(stored(api, 'den-git-credentials').data ?? {}).to.deep.equal({});
    expect(await call(den, 'DELETE', '/profile/git-credentials/github.com', { as: alice })).to.deep.include({ status: 404, body: { error: 'you have no git credential for github.com' } });
  });

  const refused: [string, string, unknown, string][] = [
    ['a host with a scheme', 'https:', { token: 't' }, 'host "https:" is not a git host: give a lower-case host name with an optional port, such as github.com or git.example.com:8443 (no scheme, no path)'],
    ['an upper-case host', 'GitHub.com', { token: 't' }, 'host "GitHub.com" is not a git host: give a lower-case host name with an optional port, such as github.com or git.example.com:8443 (no scheme, no path)'],
    ['a missing token', 'github.com', {}, 'token is required'],
    ['a token with a line break', 'github.com', { token: 'a\nb' }, 'token must be one word of printable ASCII characters (no spaces or line breaks)'],
    ['a username with "@"', 'github.com', { token: 't', username: 'a@b' }, 'username must not contain spaces, ":", "@" or "/"'],
    ['another protocol', 'github.com', { token: 't', protocol: 'ssh' }, 'protocol must be https or http'],
  ];
  for (const [what, host, body, error] of refused) {
    it(`refuses ${what} with 400 naming the field, and keeps nothing`, async () => {
      const res = await call(den, 'PUT', `/profile/git-credentials/${encodeURIComponent(host)}`, { as: alice, body });
      expect(res).to.deep.include({ status: 400, body: { error } });
      expect(stored(api, 'den-git-credentials').data ?? {}).to.deep.equal({});
    });
  }
});

describe("a person's dotfiles repository (GET, PUT and DELETE /profile/dotfiles)", () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  let bob: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice, bob } } = await startSignedIn({ alice: {}, bob: {} }));
  });
  afterEach(() => stopAll(den, api));

  it('keeps the URL as the dotfiles key of den-git-credentials beside the credentials, and forgets it with 204 (404 once gone)', async () => {
    expect((await call(den, 'GET', '/profile/dotfiles', { as: alice })).body).to.deep.equal({ url: null });
    await call(den, 'PUT', '/profile/git-credentials/github.com', { as: alice, body: { token: 'ghp_abc123' } });
    const put = await call(den, 'PUT', '/profile/dotfiles', { as: alice, body: { url: 'https://github.com/alice/dotfiles.git' } });
    expect(put).to.deep.include({ status: 200, body: { url: 'https://github.com/alice/dotfiles.git' } });
    expect(decoded(stored(api, 'den-git-credentials').data)).to.deep.equal({ credentials: 'https://x-access-token:ghp_abc123@github.com\n', dotfiles: 'https://github.com/alice/dotfiles.git' });
    expect((await call(den, 'GET', '/profile/dotfiles', { as: alice })).body).to.deep.equal({ url: 'https://github.com/alice/dotfiles.git' });
    expect((await call(den, 'DELETE', '/profile/dotfiles', { as: alice })).status).to.equal(204);
    expect(Object.keys(stored(api, 'den-git-credentials').data ?? {})).to.deep.equal(['credentials']);
    expect(await call(den, 'DELETE', '/profile/dotfiles', { as: alice })).to.deep.include({ status: 404, body: { error: 'you keep no dotfiles repository' } });
  });

  it('refuses a URL Den could not clone with 400 naming url, by the rule of spec.source.git.url, and keeps nothing', async () => {
    for (const [url, error] of [
      ['ftp://github.com/alice/dotfiles.git', 'url "ftp://github.com/alice/dotfiles.git" uses ftp; only https (or http) and SSH URLs can be cloned'],
      ['https://alice:tok@github.com/alice/dotfiles.git', 'url must not carry a user name or token: the Workspace is readable by anyone who can read your namespace'],
    ]) {
      expect(await call(den, 'PUT', '/profile/dotfiles', { as: alice, body: { url } })).to.deep.include({ status: 400, body: { error } });
    }
    expect(await call(den, 'PUT', '/profile/dotfiles', { as: alice, body: {} })).to.deep.include({ status: 400, body: { error: 'url is required' } });
    expect(stored(api, 'den-git-credentials').data ?? {}).to.deep.equal({});
  });

  it("answers another person's read of alice's dotfiles with the cluster's 403", async () => {
    const res = await call(den, 'GET', '/profile/dotfiles?namespace=svc-alice', { as: bob });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.contain('cannot get resource "secrets"');
  });
});
