import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RESOURCES } from '../../kube/resources.js';
import { HostKeyError, loadHostKey } from '../../gateway/host-key.js';
import { ensureHostKeySecret } from '../../hooks/host-key-secret.js';
import { generateHostKey, HOST_KEY_SECRET, HOST_KEY_SECRET_KEY, HOST_KEY_SECRET_PUBLIC_KEY } from '../../ssh/host-key.js';
import { FakeApiServer } from '../support/fake-apiserver.js';

const run = promisify(execFile);

interface Secret {
  data: Record<string, string>;
  metadata: { resourceVersion: string };
}

describe('gateway host key', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-hostkey-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('loadHostKey', () => {
    it('generates a missing key outside the cluster once, as an OpenSSH ed25519 key with mode 0600 in new folders', async () => {
      const file = join(dir, 'nested', 'ssh', 'ssh_host_ed25519_key');
      const first = await loadHostKey(file, { generateIfMissing: true });
      expect(first).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
      const parsed = ssh2.utils.parseKey(first);
      expect(parsed).not.to.be.instanceOf(Error);
      expect((parsed as ssh2.ParsedKey).type).to.equal('ssh-ed25519');
      expect((await stat(file)).mode & 0o777).to.equal(0o600);
      expect(await readFile(`${file}.pub`, 'utf8')).to.match(/^ssh-ed25519 AAAA\S+ den-gateway\n$/);

      const second = await loadHostKey(file, { generateIfMissing: true });
      expect(second).to.equal(first);
    });

    it('writes keys OpenSSH itself reads back (ssh-keygen -y gives the same public key)', async () => {
      for (let i = 0; i < 20; i++) {
        const pair = generateHostKey(`key-${i}`);
        const file = join(dir, `k${i}`);
        await writeFile(file, pair.privateKey, { mode: 0o600 });
        const { stdout } = await run('ssh-keygen', ['-y', '-f', file]);
        expect(stdout.trim()).to.equal(pair.publicKey);
      }
    });

    it('refuses to start in the cluster when the mounted key is missing, naming the Secret', async () => {
      const err = await loadHostKey(join(dir, 'absent'), { generateIfMissing: false }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(HostKeyError);
      expect((err as Error).message).to.contain(`${join(dir, 'absent')} does not exist`).and.contain(HOST_KEY_SECRET);
    });

    it('refuses a file that holds no private key', async () => {
      const file = join(dir, 'junk');
      await writeFile(file, 'not a key\n');
      const err = await loadHostKey(file, { generateIfMissing: true }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(HostKeyError);
      expect((err as Error).message).to.contain(`host key file ${file} is not a private key`);
      expect(await readFile(file, 'utf8')).to.equal('not a key\n');
    });
  });

  describe('ensureHostKeySecret', () => {
    let api: FakeApiServer;
    beforeEach(async () => {
      api = new FakeApiServer();
      await api.start();
    });
    afterEach(async () => {
      await api.close();
    });

    it('creates den-gateway-host-key with a usable ed25519 key when absent', async () => {
      await ensureHostKeySecret(api.client(), 'svc-system');
      const secret = api.object<Secret>(RESOURCES.secret, HOST_KEY_SECRET, 'svc-system')!;
      const key = Buffer.from(secret.data[HOST_KEY_SECRET_KEY]!, 'base64').toString('utf8');
      const parsed = ssh2.utils.parseKey(key) as ssh2.ParsedKey;
      expect(parsed.type).to.equal('ssh-ed25519');
      expect(parsed.isPrivateKey()).to.equal(true);
    });

    it('stores a pair OpenSSH reads: ssh-keygen -y of the private key gives the stored public key, which ssh-keygen -l reads', async () => {
      await ensureHostKeySecret(api.client(), 'svc-system');
      const data = api.object<Secret>(RESOURCES.secret, HOST_KEY_SECRET, 'svc-system')!.data;
      const text = (k: string) => Buffer.from(data[k]!, 'base64').toString('utf8');
      await writeFile(join(dir, 'key'), text(HOST_KEY_SECRET_KEY), { mode: 0o600 });
      await writeFile(join(dir, 'key.pub'), text(HOST_KEY_SECRET_PUBLIC_KEY));
      const derived = (await run('ssh-keygen', ['-y', '-f', join(dir, 'key')])).stdout.trim();
      expect(text(HOST_KEY_SECRET_PUBLIC_KEY).trim().split(' ').slice(0, 2)).to.deep.equal(derived.split(' ').slice(0, 2));
      expect((await run('ssh-keygen', ['-l', '-f', join(dir, 'key.pub')])).stdout).to.match(/^256 SHA256:\S+ .*\(ED25519\)\n$/);
    });

    it('never overwrites an existing key', async () => {
      await ensureHostKeySecret(api.client(), 'svc-system');
      const before = api.object<Secret>(RESOURCES.secret, HOST_KEY_SECRET, 'svc-system')!;
      await ensureHostKeySecret(api.client(), 'svc-system');
      const after = api.object<Secret>(RESOURCES.secret, HOST_KEY_SECRET, 'svc-system')!;
      expect(after.data).to.deep.equal(before.data);
      expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    });

    it('takes a 409 from a replica that created it a moment earlier as success', async () => {
      api.failNext('POST', /\/secrets$/, 409, { reason: 'AlreadyExists', message: `secrets "${HOST_KEY_SECRET}" already exists` });
      await ensureHostKeySecret(api.client(), 'svc-system');
      expect(api.object(RESOURCES.secret, HOST_KEY_SECRET, 'svc-system')).to.equal(undefined);
    });

    it('passes on any other refusal', async () => {
      api.failNext('POST', /\/secrets$/, 403, { reason: 'Forbidden', message: 'secrets is forbidden' });
      const err = await ensureHostKeySecret(api.client(), 'svc-system').catch((e: unknown) => e);
      expect((err as Error).message).to.equal('secrets is forbidden');
    });
  });
});
