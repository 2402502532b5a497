// `den` as a developer runs it on their laptop: bin/den.js in a child process with its own
// HOME and XDG_CONFIG_HOME, and the system's OpenSSH told only where the gateway's host key
// is known (as after the person accepted it once).
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { REPO_ROOT, runCommand, type CommandResult } from '../../support/platform.js';
import { call, login, type Den } from '../../server/core/cluster.js';

const execFileAsync = promisify(execFile);
export const DEN = join(REPO_ROOT, 'bin/den.js');

export interface Laptop {
  home: string;
  config: string;
  keyFile: string;
  publicKey: string;
  knownHosts: string;
  /** Runs `den <args>` as this person. */
  den(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<CommandResult>;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export async function laptop(): Promise<Laptop> {
  const home = await mkdtemp(join(tmpdir(), 'den-laptop-'));
  await mkdir(join(home, '.ssh'), { mode: 0o700 });
  const keyFile = join(home, '.ssh', 'id_ed25519');
  await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice@laptop', '-f', keyFile]);
  const publicKey = (await readFile(`${keyFile}.pub`, 'utf8')).trim();
  const config = join(home, 'xdg');
  const knownHosts = join(home, 'known_hosts');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const clean: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DEN_') && k !== 'KUBECONFIG' && k !== 'BROWSER' && k !== 'NO_COLOR') clean[k] = v;
    return { ...clean, HOME: home, XDG_CONFIG_HOME: config, ...extra };
  };
  return {
    home,
    config,
    keyFile,
    publicKey,
    knownHosts,
    env,
    den: (args, opts = {}) => runCommand(process.execPath, [DEN, ...args], { stdin: opts.stdin, env: env(opts.env), timeoutMs: 60_000 }),
  };
}

/** `den login --token-stdin` on `on`, with an API token den server issues to `person` signed in with their password. */
export async function signInWithToken(den: Den, person: string, on: Laptop, extraArgs: string[] = []): Promise<void> {
  const issued = await call(den, 'POST', '/tokens', { as: await login(den, person, `${person}-password`) });
  const signedIn = await on.den(['login', den.url, '--token-stdin', ...extraArgs], { stdin: `${issued.body.token}\n` });
  expect(signedIn.code, signedIn.stderr).to.equal(0);
}

/** The gateway's host key in known_hosts (from ssh-keyscan): the person checked its fingerprint once. */
export async function trustGateway(knownHosts: string, host: string, port: number): Promise<void> {
  const { stdout } = await execFileAsync('ssh-keyscan', ['-T', '10', '-p', String(port), host]);
  await writeFile(knownHosts, stdout);
}

/** OpenSSH options a test adds to a config written by den config-ssh: that file, the known host, no agent, no prompt. */
export function sshFlags(file: string, knownHosts: string): string[] {
  return ['-F', file, '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10'];
}
