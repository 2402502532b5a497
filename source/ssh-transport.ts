// Cloning over SSH with isomorphic-git, whose remotes are http and https only: an `http` plugin
// that answers isomorphic-git's two smart-HTTP requests from one SSH connection. The GET of
// `/info/refs?service=git-upload-pack` is answered with the service line and the ref
// advertisement `git-upload-pack '<path>'` prints up to its flush-pkt; the POST of
// `/git-upload-pack` writes the request (wants, flush, done) to the same channel and answers the
// channel's output (NAK and the side-band pack). The host must show the key the person kept for
// it (no trust on first use); the person's private key signs in.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { hostKeyAlgorithms, keyscanCommand, knownHostName, type KnownHostKey, parseKnownHost, sshKeyName } from '../contract/git-ssh.js';
import type { SshRemote } from '../contract/workspace-source.js';

/** A clone over SSH that failed for a reason the message says in the person's words. */
export class SshCloneError extends Error {}

/** The URL isomorphic-git is given in place of the SSH one: the plugin answers it from the SSH channel. */
export const STAND_IN_URL = 'http://ssh.den.invalid/repository.git';

export interface SshTransport {
  http: HttpClient;
  close(): void;
}

export interface SshKeys {
  privateKey?: string;
  knownHost?: string;
}

/** The key and known host key the person keeps for `host`, as mounted from den-git-credentials. */
export async function keptSshKeys(dir: string, host: string): Promise<SshKeys> {
  const read = (name: string) => readFile(join(dir, name), 'utf8').catch(() => undefined);
  return { privateKey: await read(sshKeyName(host)), knownHost: await read(knownHostName(host)) };
}

/** `'<path>'` for the remote shell, a `'` inside written as `'\''`, as git itself quotes it. */
function quoted(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The bytes of one channel, read as they come. */
class Output {
  private chunks: Buffer[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.wake?.();
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  /** The next chunk, or undefined once the channel has closed. */
  async next(): Promise<Buffer | undefined> {
    while (this.chunks.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    return this.chunks.shift();
  }
  unshift(chunk: Buffer): void {
    if (chunk.length > 0) this.chunks.unshift(chunk);
  }
}

/** Reads pkt-lines up to and including the first flush-pkt; undefined when the channel closes first. */
async function readAdvertisement(out: Output): Promise<Buffer | undefined> {
  let buffered = Buffer.alloc(0);
  let pos = 0;
  for (;;) {
    while (buffered.length - pos >= 4) {
      const length = parseInt(buffered.subarray(pos, pos + 4).toString('latin1'), 16);
      if (Number.isNaN(length)) return undefined;
      if (length === 0) {
        out.unshift(buffered.subarray(pos + 4));
        return buffered.subarray(0, pos + 4);
      }
      if (buffered.length - pos < length) break;
      pos += length;
    }
    const chunk = await out.next();
    if (chunk === undefined) return undefined;
    buffered = Buffer.concat([buffered, chunk]);
  }
}

/**
 * The advertisement without its peeled `<tag>^{}` lines: real git never asks for those commits by
 * id, and upload-pack over SSH (unlike HTTP's stateless mode) refuses a want it did not advertise.
 */
function withoutPeeledTags(advertisement: Buffer): Buffer {
  const kept: Buffer[] = [];
  for (let pos = 0; pos < advertisement.length; ) {
    const length = parseInt(advertisement.subarray(pos, pos + 4).toString('latin1'), 16) || 4;
    const line = advertisement.subarray(pos, pos + length);
    // The first line (an empty repository's `capabilities^{}` too) carries the capabilities after a NUL.
    if (line.includes(0) || !/\^\{\}\n?$/.test(line.toString('latin1'))) kept.push(line);
    pos += length;
  }
  return Buffer.concat(kept);
}

async function* bodyOf(...parts: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

async function* rest(out: Output): AsyncGenerator<Uint8Array> {
  for (let chunk = await out.next(); chunk !== undefined; chunk = await out.next()) yield chunk;
}

/** What the server said on stderr, on one line, for a message. */
function said(stderr: string): string {
  return stderr.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * The plugin for one clone of `url` (which names `remote`). Nothing connects until isomorphic-git
 * asks for the refs; `close` ends the connection.
 */
export function sshTransport(url: string, remote: SshRemote, keys: SshKeys, options: { readyTimeout?: number } = {}): SshTransport {
  const { host } = remote;
  const fail = (why: string) => new SshCloneError(`Cloning ${url} failed: ${why}`);
  const keyCommand = `den git-credential set ${host} --ssh-key-file <your key file> --known-host "$(${keyscanCommand(host)} | grep ed25519)"`;
  if (keys.privateKey === undefined) {
    throw fail(`you keep no SSH key for ${host}, and Den clones an SSH address with the key you keep for its host. Keep one (${keyCommand}, or your profile page) and start the workspace again, or use the repository's https address.`);
  }
  const parsed = keys.knownHost === undefined ? undefined : parseKnownHost(keys.knownHost, host);
  if (parsed === undefined || typeof parsed === 'string') {
    throw fail(`you keep no host key for ${host}, so Den cannot tell the real ${host} from an impostor and does not connect. Keep the host's key with your SSH key (${keyCommand}, or your profile page), then start the workspace again.`);
  }
  const known: KnownHostKey = parsed;
  const client = new ssh2.Client();
  let hostKeyShown: boolean | undefined;
  let stderr = '';
  let output: Output | undefined;
  let channel: ssh2.ClientChannel | undefined;

  const connected = new Promise<ssh2.ClientChannel>((resolve, reject) => {
    client.once('ready', () => {
      client.exec(`git-upload-pack ${quoted(remote.path)}`, (err, ch) => (err ? reject(fail(`${host} would not run git-upload-pack (${err.message}). Check that it is a git server's SSH address.`)) : resolve(ch)));
    });
    client.on('error', (err: Error & { level?: string; code?: string }) => reject(connectFailure(err)));
    client.on('close', () => reject(fail(`${host} closed the connection before git could start. Check the address and port.`)));
  });

  function connectFailure(err: Error & { level?: string; code?: string }): SshCloneError {
    const fix = `If ${host}'s key really changed (ask its administrators), keep the new one (${keyCommand}); otherwise do not clone from it: someone may be in between.`;
    if (hostKeyShown === false) return fail(`${host} showed a host key that is not the one you keep for it, so Den did not send your key. ${fix}`);
    if (/host key/i.test(err.message) && err.level === 'handshake') return fail(`${host} offers no ${known.type} host key, the type you keep for it, so Den cannot check it is the real ${host}. ${fix}`);
    if (err.level === 'client-authentication') {
      return fail(`${host} refused the SSH key you keep for it (publickey). Add the key's public half to your account or the repository's deploy keys on ${host}, or keep another key (${keyCommand}), then start the workspace again.`);
    }
    if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return fail(`the host ${remote.hostname} cannot be found (${err.code}). Check the address for a typo; if it is right, the cluster cannot resolve it: ask an administrator.`);
    if (err.code !== undefined || err.level === 'client-timeout') {
      return fail(`${host} cannot be reached over SSH (${err.code ?? 'timed out'}). Check the address and port; if they are right, the cluster cannot reach that host (a firewall or network policy): ask an administrator.`);
    }
    return fail(`the SSH connection to ${host} failed (${err.message}). Check the address and port, then start the workspace again.`);
  }

  async function open(): Promise<Output> {
    client.connect({
      host: remote.hostname,
      port: remote.port,
      username: remote.user,
      privateKey: keys.privateKey,
      readyTimeout: options.readyTimeout ?? 20_000,
      // A host that stops answering mid-clone ends the connection (and the clone) instead of hanging the start.
      keepaliveInterval: 15_000,
      keepaliveCountMax: 4,
      algorithms: { serverHostKey: hostKeyAlgorithms(known.type) as ssh2.ServerHostKeyAlgorithm[] },
      hostVerifier: (key: Buffer) => (hostKeyShown = key.equals(known.blob)),
    });
    channel = await connected;
    const out = new Output();
    channel.on('data', (chunk: Buffer) => out.push(chunk));
    channel.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
    channel.on('close', () => out.end());
    channel.on('error', () => out.end());
    return out;
  }

  async function request({ url: asked, method, body }: GitHttpRequest): Promise<GitHttpResponse> {
    const answer = (type: string, ...parts: Buffer[]) => ({ url: asked, method, statusCode: 200, statusMessage: 'OK', headers: { 'content-type': `application/x-git-upload-pack-${type}` }, body: bodyOf(...parts) });
    if (method === 'GET' && asked.endsWith('/info/refs?service=git-upload-pack')) {
      output ??= await open();
      const advertisement = await readAdvertisement(output);
      if (advertisement === undefined) {
        throw fail(`${host} has no repository at ${remote.path} that your key may read${stderr ? ` (it said: ${said(stderr)})` : ''}. Check the address, and that the key you keep for ${host} has access to the repository, then recreate the workspace.`);
      }
      return answer('advertisement', Buffer.from('001e# service=git-upload-pack\n0000'), withoutPeeledTags(advertisement));
    }
    if (method === 'POST' && asked.endsWith('/git-upload-pack') && output && channel) {
      for await (const chunk of body ?? []) channel.write(Buffer.from(chunk));
      const first = await output.next();
      const refusal = first && /^[0-9a-f]{4}ERR (.*)$/s.exec(first.toString('utf8'));
      if (refusal) throw fail(`${host} refused to send the repository (${said(refusal[1]!)}). Check the ref, then recreate the workspace.`);
      if (first) output.unshift(first);
      return { ...answer('result'), body: rest(output) };
    }
    throw fail(`Den's SSH transport was asked for ${method ?? 'GET'} ${asked}, which it does not serve.`);
  }

  return { http: { request }, close: () => client.end() };
}
