// `den create --repo` and `den ssh`'s progress while the repository is cloned, against a small
// REST server that records what den sends and answers as Den's REST does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { create } from '../../../cli/dev/workspaces.js';
import { runningWorkspace } from '../../../cli/dev/ssh.js';
import { DenApi } from '../../../cli/dev/api.js';
import type { DevIo } from '../../../cli/dev/io.js';

type Json = Record<string, any>;

describe('den create --repo and den ssh while cloning (issue 34)', () => {
  let server: Server;
  let base: string;
  let home: string;
  let posted: Json[];
  /** What GET /workspaces/dev answers, one after the other (the last repeats). */
  let answers: Json[];

  before(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        if (req.method === 'POST' && req.url === '/api/v1/workspaces') {
          const body = JSON.parse(raw);
          posted.push(body);
          res.writeHead(201).end(JSON.stringify({ metadata: { name: body.name }, spec: {} }));
        } else if (req.method === 'GET' && req.url === '/api/v1/workspaces/dev') {
          res.writeHead(200).end(JSON.stringify(answers.length > 1 ? answers.shift() : answers[0]));
        } else {
          res.writeHead(404).end(JSON.stringify({ error: `no ${req.method} ${req.url}` }));
        }
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((ok) => server.close(() => ok())));

  beforeEach(() => {
    posted = [];
    home = mkdtempSync(join(tmpdir(), 'den-create-repo-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh/id_ed25519.pub'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop\n');
    writeFileSync(join(home, '.ssh/id_ed25519'), 'private\n');
    mkdirSync(join(home, 'xdg/den'), { recursive: true });
    writeFileSync(join(home, 'xdg/den/cli.json'), JSON.stringify({ current: 'den', contexts: { den: { url: base, token: 'svc_token', tokenName: 'cli', email: 'alice@example.com', sshPort: 22 } } }));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  function io(): DevIo & { err: () => string } {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => (err += c));
    return { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') }, err: () => err };
  }

  it('sends the repository, ref and folder as REST\'s source.git', async () => {
    const code = await create(['dev', '--image', 'ubuntu', '--repo', 'https://git.example.com/team/api.git', '--ref', 'v2', '--repo-path', 'src/api', '--devcontainer', 'python'], io());
    expect(code).to.equal(0);
    expect(posted[0]!.source).to.deep.equal({ git: { url: 'https://git.example.com/team/api.git', ref: 'v2', path: 'src/api' }, devcontainer: 'python' });
  });

  it('sends no source without --repo, and refuses --ref alone', async () => {
    await create(['dev', '--image', 'ubuntu'], io());
    expect(posted[0]).to.not.have.property('source');
    const refused = await create(['dev', '--image', 'ubuntu', '--ref', 'main'], io()).then(() => undefined, (e: Error) => e.message);
    expect(refused).to.equal('--ref, --repo-path and --devcontainer go with --repo (the repository to clone into the home)');
  });

  it("sends --env NAME=value, repeated, as REST's env (a value may hold = and $), and refuses one without a name", async () => {
    await create(['dev', '--image', 'ubuntu', '--env', 'EDITOR=vim', '--env', 'OPTS=a=b $HOME', '--env', 'EMPTY='], io());
    expect(posted[0]!.env).to.deep.equal({ EDITOR: 'vim', OPTS: 'a=b $HOME', EMPTY: '' });
    const refused = await create(['dev', '--image', 'ubuntu', '--env', '=x'], io()).then(() => undefined, (e: Error) => e.message);
    expect(refused).to.equal('--env takes NAME=value (got "=x")');
    await create(['dev', '--image', 'ubuntu'], io());
    expect(posted.at(-1)).to.not.have.property('env');
  });

  it('den ssh prints what the clone does while the workspace starts, then the clone\'s failure in its words', async () => {
    const cloning = { type: 'Cloned', status: 'False', reason: 'Cloning', message: 'Cloning https://git.example.com/team/api.git into ~/api; the workspace starts once it is in place.' };
    const failed = 'Cloning https://git.example.com/team/api.git failed: the repository has no branch, tag or commit "v9". Check the ref (it is case-sensitive), or leave it empty for the default branch, then recreate the workspace.';
    answers = [
      { spec: { running: true }, status: { phase: 'Starting', conditions: [cloning] } },
      { spec: { running: true }, status: { phase: 'Failed', conditions: [{ type: 'Ready', status: 'False', reason: 'CloneFailed', message: failed }, { ...cloning, reason: 'CloneFailed', message: failed }] } },
    ];
    const out = io();
    const err = await runningWorkspace(new DenApi(base, 'svc_token'), 'dev', out).then(() => undefined, (e: Error) => e.message);
    expect(out.err()).to.equal(`waiting for workspace dev to be Running (now Starting)\n${cloning.message}\n`);
    expect(err).to.equal(`workspace dev failed: ${failed}`);
  });

  it('den ssh says while the workspace applies the repository\'s devcontainer.json and runs its commands, then connects', async () => {
    const applying = 'Restarting the workspace with what the repository\'s devcontainer.json (and your dotfiles) ask for; it is Running again in a moment.';
    const running = 'Running the repository\'s onCreateCommand/postCreateCommand and your dotfiles in the workspace image; the workspace starts once they are done (output in ~/.den/logs and the workspace log).';
    answers = [
      { spec: { running: true }, status: { phase: 'Starting', conditions: [{ type: 'Ready', status: 'False', reason: 'ApplyingDevcontainer', message: applying }] } },
      { spec: { running: true }, status: { phase: 'Starting', conditions: [{ type: 'Ready', status: 'False', reason: 'RunningLifecycleCommands', message: running }] } },
      { spec: { running: true }, status: { phase: 'Running', endpoint: 'dev@den.example.com', conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: 'ready' }] } },
    ];
    const out = io();
    const ws = await runningWorkspace(new DenApi(base, 'svc_token'), 'dev', out);
    expect(ws.status.phase).to.equal('Running');
    expect(out.err()).to.equal(`waiting for workspace dev to be Running (now Starting)\n${applying}\n${running}\n`);
  });
});
