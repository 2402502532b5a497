// A git server over SSH on loopback for tests, as a forge runs one: an ssh2 Server with its own
// host key that lets in exactly one public key and, on `git-upload-pack '<path>'`, runs the real
// `git-upload-pack` on a bare repository under its root and pipes it to the channel.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { generateHostKey, type HostKeyPair } from '../../ssh/host-key.js';
import { makeRepository } from './git-http-server.js';

export interface GitSshServer {
  port: number;
  /** `[127.0.0.1]:<port> ssh-ed25519 AAAA…` (the bare address on port 22): what ssh-keyscan prints for it. */
  knownHostLine: string;
  /** The line of its second host key, an RSA one. */
  rsaKnownHostLine: string;
  /** The key pair the server lets in (OpenSSH private key, public line). */
  personKey: HostKeyPair;
  /** The commits of the `app.git` repository (makeRepository's). */
  commits: Record<string, string>;
  /** The commands the server was asked to run. */
  commands: string[];
  close(): Promise<void>;
}

/** The path a `git-upload-pack '<path>'` command names; undefined for any other command. */
function uploadPackPath(command: string): string | undefined {
  const m = /^git-upload-pack '((?:[^']|'\\'')*)'$/.exec(command);
  return m ? m[1]!.replace(/'\\''/g, "'") : undefined;
}

/** `host` and `port`: where it listens (port 22 on a loopback address of its own for an scp-like address, which names no port). */
export async function startGitSshServer(host = '127.0.0.1', listenPort = 0): Promise<GitSshServer> {
  const root = mkdtempSync(join(tmpdir(), 'den-git-ssh-'));
  const commits = makeRepository(root, 'app');
  const hostKey = generateHostKey('test-git-host');
  const rsaHostKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  const rsaPublic = (ssh2.utils.parseKey(rsaHostKey) as ssh2.ParsedKey).getPublicSSH().toString('base64');
  const personKey = generateHostKey('person');
  const allowed = ssh2.utils.parseKey(personKey.publicKey) as ssh2.ParsedKey;
  const commands: string[] = [];
  const server = new ssh2.Server({ hostKeys: [hostKey.privateKey, rsaHostKey] }, (client) => {
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey' || ctx.username !== 'git' || !ctx.key.data.equals(allowed.getPublicSSH())) return ctx.reject(['publickey']);
      if (ctx.signature && allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
      return ctx.accept();
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        acceptSession().on('exec', (accept, _reject, info) => {
          const stream = accept();
          commands.push(info.command);
          const path = uploadPackPath(info.command);
          if (path === undefined) {
            stream.stderr.write(`only git-upload-pack is served here\n`);
            stream.exit(1);
            stream.end();
            return;
          }
          const child = spawn('git-upload-pack', ['--strict', join(root, path.replace(/^\/+/, ''))], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' } });
          child.stdout.pipe(stream, { end: false });
          child.stderr.on('data', (chunk: Buffer) => stream.stderr.write(chunk));
          stream.on('data', (chunk: Buffer) => child.stdin.write(chunk));
          stream.on('close', () => child.kill());
          child.stdin.on('error', () => {});
          child.on('close', (code) => {
            stream.exit(code ?? 1);
            stream.end();
          });
        });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    knownHostLine: `${port === 22 ? host : `[${host}]:${port}`} ${hostKey.publicKey.split(' ').slice(0, 2).join(' ')}`,
    rsaKnownHostLine: `${port === 22 ? host : `[${host}]:${port}`} ssh-rsa ${rsaPublic}`,
    personKey,
    commits,
    commands,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
