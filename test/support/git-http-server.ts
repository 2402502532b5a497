// A git smart-HTTP server on loopback for tests: real `git http-backend` run as CGI over bare
// repositories made with real git. Repositories under `private/` answer 401 without the
// server's Basic credential, as a private repository on a forge does.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitHttpServer {
  /** `http://<host>:<port>` */
  base: string;
  /** The directory holding the bare repositories (`<name>.git`). */
  root: string;
  /** The commit each branch and tag of a made repository points at. */
  commits: Record<string, string>;
  close(): Promise<void>;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

/**
 * A bare repository `<name>.git` with: main (README.md "main"), a branch `feature` (feature.txt),
 * an annotated tag `v1` on main's first commit, and a second commit on main (second.txt).
 */
export function makeRepository(root: string, name: string, files: Record<string, string> = {}): Record<string, string> {
  const work = mkdtempSync(join(tmpdir(), 'den-git-work-'));
  try {
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, 'README.md'), 'main\n');
    for (const [file, body] of Object.entries(files)) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      writeFileSync(join(work, file), body);
    }
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first');
    const first = git(work, 'rev-parse', 'HEAD');
    git(work, 'tag', '-a', 'v1', '-m', 'version 1');
    git(work, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(work, 'feature.txt'), 'feature\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'feature');
    const feature = git(work, 'rev-parse', 'HEAD');
    git(work, 'checkout', '-q', 'main');
    writeFileSync(join(work, 'second.txt'), 'second\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'second');
    const main = git(work, 'rev-parse', 'HEAD');
    git(root, 'clone', '-q', '--bare', work, `${name}.git`);
    return { first, feature, main };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `lifecycle.git`: a devcontainer.json using every setting Den applies and some it does not, and a `failing` configuration. */
export const LIFECYCLE_REPOSITORY: Record<string, string> = {
  '.devcontainer/devcontainer.json': `{
    "name": "lifecycle",
    "image": "registry.example/dev:1",
    "containerEnv": { "GREETING": "hello", "WHERE": "\${containerWorkspaceFolder}", "TOKEN": "\${localEnv:TOKEN:none}" },
    "remoteEnv": { "EDITOR": "vim", "PATH": "\${containerEnv:PATH}:/opt/tools" },
    "remoteUser": "root",
    "containerUser": "no-such-user",
    "workspaceFolder": "/workspaces/\${localWorkspaceFolderBasename}/src",
    "onCreateCommand": ["sh", "-c", "echo created >> created.txt"],
    "postCreateCommand": { "one": "echo post-create ran; echo \\"$GREETING\\" >> post-create.txt", "two": "pwd > where.txt" },
    "postStartCommand": "echo started >> started.txt",
    "forwardPorts": [3000, "localhost:8080", "db:5432"],
    "portsAttributes": { "3000": { "label": "Web" } },
    "customizations": { "vscode": { "extensions": ["dbaeumer.vscode-eslint", "not an id"] }, "jetbrains": {} },
    "hostRequirements": { "cpus": 4, "memory": "8gb", "storage": "32gb" },
    "features": { "ghcr.io/devcontainers/features/node:1": {} },
    "build": { "dockerfile": "Dockerfile" },
  }
`,
  'src/.keep': '',
  '.devcontainer/failing/devcontainer.json': '{ "postCreateCommand": "echo about to fail; exit 3", "postStartCommand": "exit 4" }\n',
};

/** `host`: where it listens (the cluster suites give the address pods reach this machine on). */
export async function startGitHttpServer(credential = 'person:secret', host = '127.0.0.1'): Promise<GitHttpServer> {
  const root = mkdtempSync(join(tmpdir(), 'den-git-http-'));
  const commits = makeRepository(root, 'app');
  git(root, 'init', '-q', '--bare', 'empty.git');
  makeRepository(root, 'devcontainer', {
    '.devcontainer.json': '{\n  // JSON with comments, as containers.dev writes it\n  "name": "api",\n  "image": "mcr.microsoft.com/devcontainers/base:ubuntu", /* the image */\n  "containerEnv": { "GREETING": "hello // not a comment" },\n  "forwardPorts": [3000, 8080,],\n  "postCreateCommand": "npm ci",\n}\n',
  });
  makeRepository(root, 'lifecycle', LIFECYCLE_REPOSITORY);
  makeRepository(root, 'dotfiles-script', { 'install.sh': 'echo "installing dotfiles from $PWD"\necho installed > "$HOME/installed.txt"\n', 'setup.sh': 'echo setup > "$HOME/setup.txt"\n', '.bashrc': 'export FROM_DOTFILES=1\n' });
  makeRepository(root, 'dotfiles-plain', { '.bashrc': 'export FROM_DOTFILES=1\n', '.vimrc': 'set number\n', '.gitignore': 'x\n' });
  makeRepository(root, 'broken-devcontainer', { '.devcontainer.json': '{ "image": "x", \n' });
  execFileSync('mkdir', ['-p', join(root, 'private')]);
  makeRepository(join(root, 'private'), 'secret');
  makeRepository(join(root, 'private'), 'dotfiles', { 'script/setup': 'echo private > "$HOME/private.txt"\n' });
  const expected = `Basic ${Buffer.from(credential).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/private/') && req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('sign in\n');
      return;
    }
    const cgi = spawn(BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        REMOTE_ADDR: '127.0.0.1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(key, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => {
      if (!headersDone) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://${host}:${port}`,
    root,
    commits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
