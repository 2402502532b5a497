import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { runCloneCommand, cloneReport } from '../../../source/command.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import { lifecycleCondition } from '../../../hooks/workspace/lifecycle-status.js';
import type { ObservedPod } from '../../../hooks/workspace/types.js';
import { parseCloneReport } from '../../../contract/devcontainer.js';
import type { KubeObject } from '../../../kube/client.js';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.js';
import { input, observedService, observedStatefulSet, pod, POD_STATUS, workspace, workspaceImage } from './inputs.js';

type Json = Record<string, any>;

/** Runs argv with a real /bin/sh as the container would: the home, the rendered env, a file standing in for /dev/termination-log. */
function run(argv: string[], env: Record<string, string>, waitMs = 0): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    // The background postStartCommand keeps the pipe open until it ends; wait for that, bounded.
    child.on('close', (code) => setTimeout(() => resolve({ code: code ?? -1, out }), waitMs));
  });
}

function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => (check() ? resolve() : Date.now() > until ? reject(new Error('timed out')) : setTimeout(tick, 50));
    tick();
  });
}

describe('the lifecycle commands of devcontainer.json run by /bin/sh as the pod runs them (against git http-backend)', function () {
  this.timeout(30_000);
  let server: GitHttpServer;
  let home: string;
  let statusFile: string;
  before(async () => {
    server = await startGitHttpServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'den-lifecycle-home-'));
    statusFile = `${home}-termination`;
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(statusFile, { force: true });
  });

  /** Clones as `den clone-source` does, then renders the pod as the hook would from that pod's report. */
  async function cloneAndRender(devcontainer?: string): Promise<{ lifecycle: string[]; start: string[]; env: Record<string, string>; report: string }> {
    const code = await runCloneCommand(
      { DEN_SOURCE_URL: `${server.base}/lifecycle.git`, DEN_SOURCE_DIRECTORY: 'lifecycle', HOME: home, DEN_SOURCE_STATUS_FILE: statusFile, ...(devcontainer ? { DEN_SOURCE_DEVCONTAINER: devcontainer } : {}) },
      () => {},
    );
    expect(code).to.equal(0);
    const report = readFileSync(statusFile, 'utf8');
    const clone = { name: 'clone', state: { terminated: { exitCode: 0, reason: 'Completed', message: report } }, ready: true, restartCount: 0 };
    const base = input({
      parent: workspace({ source: { git: { url: `${server.base}/lifecycle.git` }, ...(devcontainer ? { devcontainer } : {}) } }),
      image: workspaceImage({ homePath: home }),
      service: observedService(),
      statefulSet: observedStatefulSet(),
      pods: [pod({ ...POD_STATUS.ready(), initContainerStatuses: [clone] })],
    });
    const out = syncWorkspace(base);
    const spec = (out.children.find((c: KubeObject) => c.kind === 'StatefulSet') as Json).spec.template.spec;
    const container = spec.containers[0];
    const env = Object.fromEntries((container.env as { name: string; value?: string }[]).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
    const lifecycle = spec.initContainers.find((c: Json) => c.name === 'lifecycle');
    // The entry's `sleep infinity` stands for the workspace's own process: a short sleep here.
    const start = [...container.command.slice(0, -2), 'sleep', '0.2'];
    return { lifecycle: lifecycle?.command ?? [], start, env: { ...env, DEN_TERMINATION_LOG: statusFile }, report };
  }

  it('runs onCreateCommand and postCreateCommand once in the workspace folder with containerEnv, keeps their output, and checks the users', async () => {
    const { lifecycle, env } = await cloneAndRender();
    const first = await run(lifecycle, env);
    expect(first.code).to.equal(0);
    const folder = join(home, 'lifecycle/src');
    expect(readFileSync(join(folder, 'created.txt'), 'utf8')).to.equal('created\n');
    expect(readFileSync(join(folder, 'post-create.txt'), 'utf8')).to.equal('hello\n');
    expect(readFileSync(join(folder, 'where.txt'), 'utf8')).to.equal(`${folder}\n`);
    expect(first.out).to.include('den: running postCreateCommand in').and.include('post-create ran').and.include('den: postCreateCommand finished');
    expect(readFileSync(join(home, '.den/logs/postCreateCommand.log'), 'utf8')).to.include('post-create ran');
    const me = userInfo();
    const root = me.uid === 0 ? `remoteUser "root": the workspace runs as root (uid 0).` : `remoteUser "root" is uid 0 in the image, but the workspace runs as uid ${me.uid}`;
    const said = readFileSync(statusFile, 'utf8');
    expect(said.split('\n')[0]).to.equal('ok');
    expect(said).to.include(`containerUser "no-such-user": the image has no such user; the workspace runs as uid ${me.uid} (its catalog entry's).`).and.include(root).and.include('onCreateCommand ran. postCreateCommand ran.');
    expect(lifecycleCondition({ metadata: {}, status: { initContainerStatuses: [{ name: 'lifecycle', state: { terminated: { exitCode: 0, message: said } } }] } } as ObservedPod, undefined)).to.include({ status: 'True', reason: 'Ran' });

    const second = await run(lifecycle, env);
    expect(second.code).to.equal(0);
    expect(readFileSync(join(folder, 'created.txt'), 'utf8')).to.equal('created\n');
    expect(readFileSync(join(folder, 'post-create.txt'), 'utf8')).to.equal('hello\n');
    expect(readFileSync(statusFile, 'utf8')).to.include('onCreateCommand and postCreateCommand ran on an earlier start');
  });

  it('the workspace container replays that output into its log once, and starts postStartCommand on every start', async () => {
    const { lifecycle, start, env } = await cloneAndRender();
    await run(lifecycle, env);
    const first = await run(start, env);
    expect(first.out).to.include('den: running postCreateCommand').and.include('post-create ran').and.include('den: running postStartCommand');
    const folder = join(home, 'lifecycle/src');
    await waitFor(() => existsSync(join(folder, 'started.txt')));
    const second = await run(start, env);
    expect(second.out).not.to.include('post-create ran');
    await waitFor(() => readFileSync(join(folder, 'started.txt'), 'utf8') === 'started\nstarted\n');
    await waitFor(() => (readFileSync(join(home, '.den/logs/postStartCommand.log'), 'utf8').match(/postStartCommand finished/g) ?? []).length === 2);
  });

  it('reports a failing command with its last line, keeps going, and still never runs it again', async () => {
    const { lifecycle, start, env } = await cloneAndRender('failing');
    const first = await run(lifecycle, env);
    expect(first.code).to.equal(0);
    const said = readFileSync(statusFile, 'utf8');
    expect(said).to.equal('failed\npostCreateCommand failed (exit 3): about to fail. Its output is in ~/.den/logs/postCreateCommand.log and the workspace log; the workspace runs anyway.\n');
    const condition = lifecycleCondition({ metadata: {}, status: { initContainerStatuses: [{ name: 'lifecycle', state: { terminated: { exitCode: 0, message: said } } }] } } as ObservedPod, undefined);
    expect(condition).to.include({ status: 'False', reason: 'CommandFailed' });
    expect(readFileSync(join(home, '.den/logs/postCreateCommand.log'), 'utf8')).to.equal('about to fail\n');
    await run(start, env);
    await waitFor(() => existsSync(join(home, '.den/logs/postStartCommand.log')) && readFileSync(join(home, '.den/logs/postStartCommand.log'), 'utf8').includes('postStartCommand failed (exit 4); the workspace runs anyway'));
    await run(lifecycle, env);
    expect(readFileSync(join(home, '.den/logs/postCreateCommand.log'), 'utf8')).to.equal('about to fail\n');
    expect(readFileSync(statusFile, 'utf8').split('\n')[0]).to.equal('ok');
  });

  it('hands the summary over in the termination message, and refuses one that would not fit in words', async () => {
    const { report } = await cloneAndRender();
    expect(parseCloneReport(report).devcontainer?.postStartCommand).to.equal('echo started >> started.txt');
    const huge = cloneReport({ message: 'Cloned x into ~/api. Read ~/api/.devcontainer.json; the workspace applies it.', devcontainer: { file: 'api/.devcontainer.json', postCreateCommand: 'x'.repeat(5000) } });
    expect(Buffer.byteLength(huge)).to.be.below(4096);
    const parsed = parseCloneReport(huge);
    expect(parsed.devcontainer).to.deep.equal({
      file: 'api/.devcontainer.json',
      problem: 'what Den would apply from it takes 5056 bytes, more than the 3500 the clone step can hand to the workspace: move long commands into a script in the repository (postCreateCommand: "sh .devcontainer/setup.sh") and keep the environment short',
    });
    expect(parsed.message).to.match(/^Cloned x into ~\/api\. ~\/api\/\.devcontainer\.json: what Den would apply/);
  });
});
