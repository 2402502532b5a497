// scp and sftp through the gateway end, with exit status 0, on both exec protocols: on v5 the
// client's EOF reaches sftp-server as the stdin close frame; on v4 (Kubernetes before 1.29, no
// stdin close) the gateway ends the exec itself at the client's EOF. Real OpenSSH
// clients against the fake pods/exec, which runs the commands (and sftp-server) on this machine.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { V4, V5 } from '../support/fake-exec.js';
import { GatewayHarness, makeKey, pod, workspace, type UserKey } from './harness.js';

/** How long a transfer of a few hundred kilobytes may take on a loaded machine; a hang fails the test. */
const BOUND_MS = 10_000;

for (const [cluster, protocols] of [
  ['v5 (Kubernetes 1.29 and later)', [V5, V4]],
  ['v4 only (Kubernetes before 1.29)', [V4]],
] as const) {
  describe(`file transfer through the gateway, exec speaking ${cluster}`, function () {
    this.timeout(60_000);
    let h: GatewayHarness;
    let alice: UserKey;
    let local: string;

    beforeEach(async () => {
      h = await new GatewayHarness().start({ protocols: [...protocols] });
      alice = await makeKey(h.keys, 'alice');
      await h.seed(workspace('demo', [alice.publicKey], { podName: 'demo-0' }), pod('demo-0', 'demo'));
      local = await mkdtemp(join(tmpdir(), 'den-gw-local-'));
    });
    afterEach(async () => {
      await h.close();
      await rm(local, { recursive: true, force: true });
    });

    const scp = (args: string[]) => h.command('scp', [...h.sshOptions(alice), '-P', String(h.port), ...args], undefined, BOUND_MS);

    /** Waits until every command the "pod" ran has exited: nothing is left behind in it. */
    async function podIdle(): Promise<void> {
      const deadline = Date.now() + 5000;
      while (h.fake.execs.some((e) => e.exitCode === undefined)) {
        if (Date.now() > deadline) throw new Error(`still running in the pod: ${JSON.stringify(h.fake.execs.filter((e) => e.exitCode === undefined).map((e) => e.command.at(-1)))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it('scp uploads and downloads (SFTP protocol) and exits 0', async () => {
      const payload = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
      await writeFile(join(local, 'up.bin'), payload);
      const up = await scp([join(local, 'up.bin'), 'demo@127.0.0.1:up.bin']);
      expect(up.code, up.stderr).to.equal(0);
      expect((await readFile(join(h.home, 'up.bin'))).equals(payload)).to.equal(true);

      await writeFile(join(h.home, 'down.txt'), 'from the pod\n');
      const down = await scp(['demo@127.0.0.1:down.txt', join(local, 'down.txt')]);
      expect(down.code, down.stderr).to.equal(0);
      expect(await readFile(join(local, 'down.txt'), 'utf8')).to.equal('from the pod\n');
      expect(h.fake.execs.map((e) => [e.protocol, e.command.includes('den-sftp')])).to.deep.equal([
        [protocols[0], true],
        [protocols[0], true],
      ]);
      await podIdle();
    });

    it('sftp puts and gets in a batch and exits 0', async () => {
      await writeFile(join(local, 'put.txt'), 'put by sftp\n');
      await writeFile(join(h.home, 'get.txt'), 'got by sftp\n');
      const batch = join(local, 'batch');
      await writeFile(batch, `put ${join(local, 'put.txt')} put.txt\nget get.txt ${join(local, 'got.txt')}\nmkdir made\n`);
      const r = await h.command('sftp', [...h.sshOptions(alice), '-P', String(h.port), '-b', batch, 'demo@127.0.0.1'], undefined, BOUND_MS);
      expect(r.code, r.stderr).to.equal(0);
      expect(await readFile(join(h.home, 'put.txt'), 'utf8')).to.equal('put by sftp\n');
      expect(await readFile(join(local, 'got.txt'), 'utf8')).to.equal('got by sftp\n');
      await podIdle();
    });

    it('legacy scp -O uploads and downloads and exits 0', async () => {
      await writeFile(join(local, 'legacy.txt'), 'by the scp protocol\n');
      const up = await scp(['-O', join(local, 'legacy.txt'), 'demo@127.0.0.1:legacy.txt']);
      expect(up.code, up.stderr).to.equal(0);
      expect(await readFile(join(h.home, 'legacy.txt'), 'utf8')).to.equal('by the scp protocol\n');

      const down = await scp(['-O', 'demo@127.0.0.1:legacy.txt', join(local, 'back.txt')]);
      expect(down.code, down.stderr).to.equal(0);
      expect(await readFile(join(local, 'back.txt'), 'utf8')).to.equal('by the scp protocol\n');
      expect(h.fake.execs.map((e) => e.command.at(-1))).to.deep.equal(['scp -t legacy.txt', 'scp -f legacy.txt']);
      await podIdle();
    });

    it('legacy scp -O still fails, exit 1, when the pod cannot write the file', async () => {
      await writeFile(join(local, 'refused.txt'), 'nowhere to go\n');
      const up = await scp(['-O', join(local, 'refused.txt'), 'demo@127.0.0.1:missing/refused.txt']);
      expect(up.code).to.equal(1);
      expect(up.stderr).to.contain('missing/refused.txt: No such file or directory');
    });

    it('lets any other command run past the client EOF', async () => {
      const r = await h.ssh(alice, 'demo', ['head -c 6; sleep 1; echo " done"'], { input: 'abcdef' });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal('abcdef done\n');
    });
  });
}
