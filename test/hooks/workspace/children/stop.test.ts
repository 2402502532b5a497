// The workspace pod's preStop script run by a real `sh` in a PID namespace of its own whose
// PID 1 is `sleep infinity`, as in a workspace container with the default command: the
// processes get SIGTERM first, those that ignore it SIGKILL, and the script ends in time.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STOP_SCRIPT, STOP_WAIT_SECONDS } from '../../../../hooks/workspace/children/stop.js';

/** As root a plain PID namespace; otherwise inside a user namespace of our own. */
const USER_NS = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function exited(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

/** A pod-like PID namespace: PID 1 runs `sleep infinity`; `run` starts a process inside it. */
class PidNamespace {
  readonly init: ChildProcess;
  readonly started: Promise<void>;
  private initPid = 0;
  private readonly children: ChildProcess[] = [];

  constructor() {
    this.init = spawn('unshare', [...USER_NS, '--pid', '--fork', '--mount-proc', 'sleep', 'infinity'], { stdio: 'ignore' });
    this.started = this.findInit();
  }

  /** The pid (outside the namespace) of the namespace's PID 1, the child unshare forked. */
  private async findInit(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      try {
        const children = readFileSync(`/proc/${this.init.pid}/task/${this.init.pid}/children`, 'utf8').trim();
        if (children && readFileSync(`/proc/${children}/cmdline`, 'utf8').startsWith('sleep')) {
          this.initPid = Number(children);
          return;
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('unshare did not start sleep as PID 1 of a new PID namespace');
  }

  /** `sh -c script` inside the namespace (nsenter waits for it and reports how it ended). */
  run(script: string): ChildProcess {
    const child = spawn('nsenter', ['--target', String(this.initPid), ...(USER_NS.length ? ['--user', '--preserve-credentials'] : []), '--pid', '--mount', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    return child;
  }

  /** Whether PID 1 still runs: the script must not (cannot) end it. */
  get initRunning(): boolean {
    try {
      return readFileSync(`/proc/${this.initPid}/cmdline`, 'utf8').startsWith('sleep');
    } catch {
      return false; // gone: /proc has no entry for it
    }
  }

  async close(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // SIGKILL from outside the namespace ends its PID 1, and the kernel then ends every process in it.
    if (this.initPid) process.kill(this.initPid, 'SIGKILL');
    if (this.init.exitCode === null && this.init.signalCode === null) await exited(this.init);
  }
}

describe('the workspace preStop script', function () {
  this.timeout(20_000);
  let ns: PidNamespace;
  let dir: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'den-stop-'));
    ns = new PidNamespace();
    await ns.started;
  });

  afterEach(async () => {
    await ns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the preStop script in the namespace; resolves with how long it took, in ms. */
  async function preStop(): Promise<number> {
    const started = performance.now();
    const script = ns.run(STOP_SCRIPT);
    let stderr = '';
    script.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const end = await exited(script);
    expect(end, stderr).to.deep.equal({ code: 0, signal: null });
    expect(stderr).to.equal('');
    return performance.now() - started;
  }

  /** Waits until the process has written `ready` into its file (its trap is in place). */
  async function ready(file: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      try {
        if (readFileSync(file, 'utf8').includes('ready')) return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${file} never said ready`);
  }

  it('sends SIGTERM to every process but PID 1 and returns as soon as they are gone, orphaned zombies aside', async () => {
    const log = join(dir, 'session');
    // A session that cleans up on SIGTERM, a plain child, a shell with background jobs, and an
    // orphan reparented to PID 1 that stays a zombie (sleep never reaps).
    const session = exited(ns.run(`trap 'echo TERM >> ${log}; exit 0' TERM; echo ready > ${log}; while :; do sleep 0.05; done`));
    const plain = exited(ns.run('exec sleep 300'));
    const jobs = exited(ns.run('sleep 300 & sleep 300 & wait'));
    await exited(ns.run('sleep 0.01 & exit 0'));
    await ready(log);
    const ms = await preStop();
    expect(ms, 'less than the wait before SIGKILL').to.be.below(STOP_WAIT_SECONDS * 1000);
    expect(readFileSync(log, 'utf8')).to.equal('ready\nTERM\n');
    expect(await session).to.deep.equal({ code: 0, signal: null });
    expect((await plain).signal ?? (await plain).code).to.be.oneOf(['SIGTERM', 143]);
    expect((await jobs).signal ?? (await jobs).code).to.be.oneOf(['SIGTERM', 143]);
    expect(ns.initRunning).to.equal(true);
  });

  it(`sends SIGKILL after ${STOP_WAIT_SECONDS} s to a process that ignores SIGTERM, and ends then`, async () => {
    const log = join(dir, 'stubborn');
    const stubborn = exited(ns.run(`trap '' TERM; echo ready > ${log}; exec sleep 300`));
    await ready(log);
    const ms = await preStop();
    expect(ms).to.be.within(STOP_WAIT_SECONDS * 1000, STOP_WAIT_SECONDS * 1000 + 10_000);
    expect(await stubborn).to.deep.equal({ code: null, signal: 'SIGKILL' });
    expect(ns.initRunning).to.equal(true);
  });
});
