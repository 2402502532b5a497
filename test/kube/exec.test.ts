import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { KubeClient } from '../../kube/client.js';
import { staticConnection } from '../../kube/connection.js';
import { KubeApiError } from '../../kube/errors.js';
import { exitFromStatus, parseStatusFrame, resizeFrame, startExec, type ExecStreams } from '../../kube/exec.js';
import { FakeExec, V4, V5 } from '../support/fake-exec.js';
import { fixtureLines } from '../support/fixtures.js';

const target = { namespace: 'svc-demo', pod: 'demo-0', container: 'workspace' };

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

function streams(withStdin = true): { io: ExecStreams; stdin: PassThrough; out: () => string; err: () => string } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  return { io: { stdin: withStdin ? stdin : undefined, stdout, stderr }, stdin, out: collect(stdout), err: collect(stderr) };
}

describe('gateway exec client', () => {
  let home: string;
  let fake: FakeExec;
  let client: KubeClient;

  async function startFake(protocols?: string[]): Promise<void> {
    fake = new FakeExec({ cwd: home, protocols, podExists: (_ns, pod) => pod !== 'nope-0' });
    client = new KubeClient(staticConnection(await fake.listen(), 'gateway-token'));
  }

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-exec-'));
  });
  afterEach(async () => {
    await fake.close();
    await rm(home, { recursive: true, force: true });
  });

  describe('exit status frames (recorded shapes)', () => {
    it('reads the recorded NonZeroExitCode Status as exit code 3', () => {
      const status = fixtureLines<{ channel?: number; text?: string; dir: string }>('exec-v4-command.jsonl').find((f) => f.channel === 3)!;
      expect(parseStatusFrame(Buffer.from(status.text!))).to.deep.equal({ exitCode: 3 });
    });

    it('reads the recorded Success Status as exit code 0', () => {
      const status = fixtureLines<{ channel?: number; text?: string }>('exec-v4-tty-resize.jsonl').find((f) => f.channel === 3)!;
      expect(parseStatusFrame(Buffer.from(status.text!))).to.deep.equal({ exitCode: 0 });
    });

    it('reports a failure without an exit code as 255 with the API server message', () => {
      expect(exitFromStatus({ status: 'Failure', reason: 'InternalError', message: 'container not found ("workspace")' })).to.deep.equal({
        exitCode: 255,
        message: 'container not found ("workspace")',
      });
    });

    it('writes resize frames in the recorded shape', () => {
      expect(resizeFrame(80, 24).toString()).to.equal('{"Width":80,"Height":24}');
    });
  });

  it('runs a command with separate stdout and stderr and its exit code', async () => {
    await startFake();
    const s = streams(false);
    const exec = await startExec(client, target, { command: ['sh', '-c', 'echo out; echo err 1>&2; exit 3'], tty: false }, s.io);
    expect(await exec.done).to.deep.equal({ exitCode: 3 });
    expect(s.out()).to.equal('out\n');
    expect(s.err()).to.equal('err\n');
    expect(fake.execs[0]).to.include({ namespace: 'svc-demo', pod: 'demo-0', container: 'workspace', tty: false, stdin: false, stderr: true });
  });

  it('offers v5 first and closes stdin with the [255, 0] frame so the command sees EOF', async () => {
    await startFake([V5, V4]);
    const s = streams();
    const exec = await startExec(client, target, { command: ['cat'], tty: false }, s.io);
    expect(exec.protocol).to.equal(V5);
    s.stdin.end('hello via stdin\n');
    expect(await exec.done).to.deep.equal({ exitCode: 0 });
    expect(s.out()).to.equal('hello via stdin\n');
    expect(fake.execs[0]!.stdinClosedByFrame).to.equal(true);
  });

  it('falls back to v4 on an API server that speaks only v4, where stdin cannot be closed alone', async () => {
    await startFake([V4]);
    const s = streams();
    // head ends on its own after 16 bytes: on v4 it never sees EOF.
    const exec = await startExec(client, target, { command: ['head', '-c', '16'], tty: false }, s.io);
    expect(exec.protocol).to.equal(V4);
    s.stdin.end('hello via stdin\n');
    expect(await exec.done).to.deep.equal({ exitCode: 0 });
    expect(s.out()).to.equal('hello via stdin\n');
    expect(fake.execs[0]!.stdinClosedByFrame).to.equal(false);
  });

  it('ends an exec that ends with its input at the end of stdin on v4, as exit 0, with its output delivered', async () => {
    await startFake([V4]);
    const s = streams();
    const exec = await startExec(client, target, { command: ['sh', '-c', 'cat; exit 3'], tty: false, endsWithInput: true }, s.io);
    s.stdin.write('answered\n');
    await waitFor(() => s.out() === 'answered\n');
    s.stdin.end();
    expect(await exec.done).to.deep.equal({ exitCode: 0 });
    await waitFor(() => fake.execs[0]!.exitCode !== undefined); // nothing left running in the pod
  });

  it('lets an exec that ends with its input see EOF on v5 and keeps its own exit status', async () => {
    await startFake([V5, V4]);
    const s = streams();
    const exec = await startExec(client, target, { command: ['sh', '-c', 'cat; echo " after EOF"; exit 3'], tty: false, endsWithInput: true }, s.io);
    s.stdin.end('input');
    expect(await exec.done).to.deep.equal({ exitCode: 3 });
    expect(s.out()).to.equal('input after EOF\n');
  });

  it("rejects with the API server's Status when the pod does not exist", async () => {
    await startFake();
    const s = streams();
    const err = await startExec(client, { ...target, pod: 'nope-0' }, { command: ['true'], tty: false }, s.io).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(KubeApiError);
    expect((err as KubeApiError).status).to.equal(404);
    expect((err as KubeApiError).message).to.equal('pods "nope-0" not found');
  });

  it('gives a terminal of the requested size and resizes it', async () => {
    await startFake();
    const s = streams();
    const exec = await startExec(client, target, { command: ['sh', '-c', 'stty size; read line; stty size'], tty: true, size: { cols: 100, rows: 40 } }, s.io);
    await waitFor(() => s.out().includes('40 100'));
    exec.resize(120, 50);
    await waitFor(() => fake.execs[0]!.resizesApplied === 2); // the first size, then this one
    s.stdin.write('\n');
    expect(await exec.done).to.deep.equal({ exitCode: 0 });
    expect(s.out()).to.match(/40 100\r\n[\s\S]*50 120\r\n/);
    expect(fake.execs[0]!.resizes).to.deep.equal([{ Width: 100, Height: 40 }, { Width: 120, Height: 50 }]);
    expect(fake.execs[0]!.stderr).to.equal(false);
  });
});

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
