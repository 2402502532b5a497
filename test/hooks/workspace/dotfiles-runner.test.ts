import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCloneCommand } from '../../../source/command.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Condition, WorkspaceStatus } from '../../../hooks/workspace/types.js';
import { credentialStoreFile } from '../../../contract/personal.js';
import { parseCloneReport } from '../../../contract/devcontainer.js';
import type { KubeObject } from '../../../kube/client.js';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.js';
import { input, observedService, observedStatefulSet, pod, POD_STATUS, workspace, workspaceImage } from './inputs.js';

type Json = Record<string, any>;

describe('the person\'s dotfiles: cloned by the clone step, installed by /bin/sh in the workspace image (against git http-backend)', function () {
  this.timeout(30_000);
  let server: GitHttpServer;
  let home: string;
  let files: string;
  before(async () => {
    server = await startGitHttpServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'den-dotfiles-home-'));
    files = mkdtempSync(join(tmpdir(), 'den-dotfiles-secret-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  /** `den clone-source` in a workspace without spec.source, with the person's Secret's files as the pod mounts them. */
  async function cloneStep(url: string, credentials = ''): Promise<string> {
    writeFileSync(join(files, 'dotfiles'), `${url}\n`);
    writeFileSync(join(files, 'credentials'), credentials);
    const code = await runCloneCommand({ HOME: home, DEN_SOURCE_STATUS_FILE: join(files, 'status'), DEN_SOURCE_DOTFILES_FILE: join(files, 'dotfiles'), DEN_SOURCE_CREDENTIALS_FILE: join(files, 'credentials') }, () => {});
    expect(code).to.equal(0);
    return readFileSync(join(files, 'status'), 'utf8');
  }

  /** The hook's pod for that report, and its status. */
  function render(report: string): { lifecycle: string[] | undefined; status: WorkspaceStatus } {
    const clone = { name: 'clone', state: { terminated: { exitCode: 0, reason: 'Completed', message: report } }, ready: true, restartCount: 0 };
    const out = syncWorkspace(input({ parent: workspace(), image: workspaceImage({ homePath: home }), service: observedService(), statefulSet: observedStatefulSet(), pods: [pod({ ...POD_STATUS.ready(), initContainerStatuses: [clone] })] }));
    const spec = (out.children.find((c: KubeObject) => c.kind === 'StatefulSet') as Json).spec.template.spec;
    return { lifecycle: spec.initContainers.find((c: Json) => c.name === 'lifecycle')?.command, status: out.status as WorkspaceStatus };
  }

  function runLifecycle(argv: string[]): string {
    const run = spawnSync(argv[0]!, argv.slice(1), { env: { PATH: process.env.PATH!, HOME: home, DEN_TERMINATION_LOG: join(files, 'lifecycle') }, encoding: 'utf8' });
    expect(run.status).to.equal(0);
    return readFileSync(join(files, 'lifecycle'), 'utf8');
  }

  const dotfilesCondition = (status: WorkspaceStatus): Condition | undefined => status.conditions.find((c) => c.type === 'Dotfiles');

  it('clones into ~/.dotfiles without spec.source and runs the first install script once, its output kept', async () => {
    const report = await cloneStep(`${server.base}/dotfiles-script.git`);
    expect(parseCloneReport(report).dotfiles).to.deep.equal({ url: `${server.base}/dotfiles-script.git`, fresh: true, script: 'install.sh' });
    const { lifecycle, status } = render(report);
    expect(status.dotfiles).to.deep.equal(parseCloneReport(report).dotfiles);
    expect(dotfilesCondition(status)).to.include({ status: 'True', reason: 'Cloned', message: `Your dotfiles repository ${server.base}/dotfiles-script.git is in ~/.dotfiles; ~/.dotfiles/install.sh runs once in the workspace image (see the Lifecycle condition).` });
    expect(lifecycle!.at(-1)).to.equal('script:install.sh');
    expect(runLifecycle(lifecycle!)).to.equal('ok\ndotfiles ran.\n');
    expect(readFileSync(join(home, 'installed.txt'), 'utf8')).to.equal('installed\n');
    expect(existsSync(join(home, 'setup.txt'))).to.equal(false);
    expect(readFileSync(join(home, '.den/logs/dotfiles.log'), 'utf8')).to.equal(`installing dotfiles from ${home}/.dotfiles\n`);

    // The next start: nothing cloned again, the same pod rendered, the script not run again.
    rmSync(join(home, 'installed.txt'));
    const later = await cloneStep(`${server.base}/dotfiles-plain.git`);
    expect(parseCloneReport(later).dotfiles).to.deep.equal({ url: `${server.base}/dotfiles-script.git`, fresh: false, script: 'install.sh' });
    expect(render(later).lifecycle).to.deep.equal(lifecycle);
    expect(runLifecycle(lifecycle!)).to.equal('ok\nYour dotfiles were installed on an earlier start (delete ~/.den/dotfiles-installed.json to install them again on the next one).\n');
    expect(existsSync(join(home, 'installed.txt'))).to.equal(false);
  });

  it('links the top-level dot files into the home when there is no install script, leaving what is already there', async () => {
    writeFileSync(join(home, '.vimrc'), 'mine\n');
    const report = await cloneStep(`${server.base}/dotfiles-plain.git`);
    const { lifecycle } = render(report);
    expect(lifecycle!.at(-1)).to.equal('link');
    expect(runLifecycle(lifecycle!)).to.equal('ok\nDotfiles linked into the home: .bashrc. Already in the home, left alone: .vimrc.\n');
    expect(lstatSync(join(home, '.bashrc')).isSymbolicLink()).to.equal(true);
    expect(readlinkSync(join(home, '.bashrc'))).to.equal('.dotfiles/.bashrc');
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).to.equal('export FROM_DOTFILES=1\n');
    expect(readFileSync(join(home, '.vimrc'), 'utf8')).to.equal('mine\n');
    expect(existsSync(join(home, '.gitignore'))).to.equal(false);
    expect(existsSync(join(home, '.git'))).to.equal(false);
  });

  it('clones a private dotfiles repository with the git credential the person keeps for its host', async () => {
    const host = new URL(server.base).host;
    const report = await cloneStep(`${server.base}/private/dotfiles.git`, credentialStoreFile([{ protocol: 'http', host, username: 'person', token: 'secret' }]));
    expect(parseCloneReport(report).dotfiles).to.include({ script: 'script/setup' });
    runLifecycle(render(report).lifecycle!);
    expect(readFileSync(join(home, 'private.txt'), 'utf8')).to.equal('private\n');
  });

  it('says why dotfiles were not cloned and starts the workspace anyway, with no install step', async () => {
    const report = await cloneStep(`${server.base}/no-such-dotfiles.git`);
    const { lifecycle, status } = render(report);
    expect(lifecycle).to.equal(undefined);
    expect(dotfilesCondition(status)).to.include({ status: 'False', reason: 'CloneFailed' });
    expect(dotfilesCondition(status)!.message).to.match(/^Your dotfiles repository .*no-such-dotfiles\.git was not cloned: Cloning .* failed: .*404.* The workspace runs without them; they are tried again on the next start\.$/);
    expect(status.phase).to.equal('Running');
    expect(existsSync(join(home, '.dotfiles'))).to.equal(false);
  });
});
