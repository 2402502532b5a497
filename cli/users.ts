// `den users add`: the first administrator (and any later person) without editing
// Secrets by hand. Run with a cluster-admin kubeconfig; creates the local user Secret the
// server reads and the UserSpace the manager provisions.
import type { Readable, Writable } from 'node:stream';
import { KubeClient } from '../kube/client.js';
import { KUBECONFIG_LOOKUP, KubeconfigError, loadConnection } from '../kube/connection.js';
import { isNotFound, KubeApiError, KubeUnavailableError } from '../kube/errors.js';
import { SYSTEM_NAMESPACE, userNamespace } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';
import { DEFAULT_QUOTA } from '../server/api/userspaces.js';
import { userSpaceObject } from '../server/api/mapping.js';
import { userSpaceRequest } from '../server/api/schemas.js';
import { localUserSecretName, renderLocalUserSecret, USERNAME_PATTERN } from '../server/auth/local-users.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../server/auth/passwords.js';
import { HttpError } from '../koa/errors.js';
import { validate } from '../server/http/validate.js';
import { parsers, readSettings, settingsHelp, SettingsError, type Setting } from '../process/settings.js';
import { durationInWords, waitForReady } from './userspace-ready.js';

export interface CommandIo {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
}

const setting = <T>(s: Setting<T>) => s;

const addSettings = {
  owner: setting({ flag: 'owner', env: 'DEN_USERS_OWNER', describe: "the person's e-mail or cluster username (UserSpace spec.owner)", parse: parsers.nonEmpty }),
  admin: setting({ flag: 'admin', env: 'DEN_USERS_ADMIN', describe: 'make the person an administrator (label den.dev/role: admin)', parse: parsers.boolean, default: false, boolean: true }),
  username: setting({ flag: 'username', env: 'DEN_USERS_USERNAME', describe: 'local username to sign in with; default: the UserSpace name', parse: parsers.string, default: '' }),
  passwordStdin: setting({ flag: 'password-stdin', env: 'DEN_USERS_PASSWORD_STDIN', describe: 'read the password from standard input instead of asking on the terminal', parse: parsers.boolean, default: false, boolean: true }),
  kubeconfig: setting({ flag: 'kubeconfig', env: 'DEN_KUBECONFIG', describe: `kubeconfig of a cluster administrator; empty: ${KUBECONFIG_LOOKUP}`, parse: parsers.string, default: '' }),
  namespace: setting({ flag: 'namespace', env: 'DEN_NAMESPACE', describe: "the platform's own namespace, where local users live", parse: parsers.nonEmpty, default: SYSTEM_NAMESPACE }),
  wait: setting({ flag: 'wait', env: 'DEN_USERS_WAIT', describe: 'how long to wait for the UserSpace to be Ready (den manager makes its namespace, quota and RBAC, Kubernetes counts its quota), e.g. 30s or 2m; 0: do not wait', parse: parsers.duration, default: 120_000 }),
};

const USAGE = `Usage: den users add <name> --owner <email> [--admin] [--username <name>] [--password-stdin] [--wait <duration>]

Creates the UserSpace <name> (namespace svc-<name>, quota cpu ${DEFAULT_QUOTA.cpu}, memory ${DEFAULT_QUOTA.memory},
storage ${DEFAULT_QUOTA.storage}, ${DEFAULT_QUOTA.workspaces} workspaces, no GPU, network policy Isolated) and a local user who signs in
as that person. Asks for the password on the terminal, or reads it from stdin with --password-stdin.
Then waits until the UserSpace is Ready (its children exist and Kubernetes has counted its quota, so
the person's first workspace is admitted): exit 1 if it is not Ready within --wait, saying why.

Flags:
${settingsHelp(addSettings)}`;

/** Exit codes: 0 done, 1 refused by the cluster, already there, or not Ready within the wait, 2 bad usage. */
export async function runUsers(argv: string[], io: CommandIo): Promise<number> {
  const [sub, name, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || rest.includes('--help') || name === '--help') {
    io.stdout.write(USAGE + '\n');
    return sub ? 0 : 2;
  }
  if (sub !== 'add') return usageError(io, `unknown subcommand '${sub}'`);
  if (!name || name.startsWith('--')) return usageError(io, 'the UserSpace name is missing');
  let settings;
  try {
    settings = readSettings(addSettings, rest, io.env);
  } catch (err) {
    if (err instanceof SettingsError) return usageError(io, err.message);
    throw err;
  }
  const username = settings.username || name;
  let request;
  try {
    request = validate(userSpaceRequest, { name, owner: settings.owner, role: settings.admin ? 'admin' : 'user' }, 'arguments');
  } catch (err) {
    if (err instanceof HttpError) return usageError(io, err.message);
    throw err;
  }
  if (!USERNAME_PATTERN.test(username)) return usageError(io, `username '${username}' must be 1-63 lower-case letters, digits, "-" or ".", starting and ending with a letter or digit`);

  let password: string;
  try {
    password = settings.passwordStdin ? await readAll(io.stdin) : await askPassword(io, username);
  } catch (err) {
    return usageError(io, (err as Error).message);
  }
  if (password.length < PASSWORD_MIN_LENGTH) return usageError(io, `the password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) return usageError(io, `the password must be at most ${PASSWORD_MAX_LENGTH} characters`);

  let client: KubeClient;
  try {
    client = new KubeClient(loadConnection(settings.kubeconfig || undefined, io.env));
    if (await exists(client.get(RESOURCES.userSpace, name))) return failure(io, `UserSpace ${name} already exists; nothing was changed`);
    if (await exists(client.get(RESOURCES.secret, localUserSecretName(username), settings.namespace))) {
      return failure(io, `local user ${username} already exists in ${settings.namespace}; nothing was changed`);
    }
    const secret = renderLocalUserSecret(settings.namespace, { username, owner: settings.owner, passwordHash: await hashPassword(password) }, Date.now());
    await client.create(RESOURCES.secret, secret, settings.namespace);
    try {
      await client.create(RESOURCES.userSpace, userSpaceObject(request, DEFAULT_QUOTA));
    } catch (err) {
      // Leave nothing half-made behind, so the same command can simply be run again.
      await client.delete(RESOURCES.secret, localUserSecretName(username), settings.namespace);
      throw err;
    }
  } catch (err) {
    // The API server's refusal, an unreachable cluster or an unreadable kubeconfig: one line, no stack.
    if (err instanceof KubeconfigError) {
      io.stderr.write(`den users: ${err.message}\n`);
      return 2;
    }
    if (err instanceof KubeApiError || err instanceof KubeUnavailableError) return failure(io, err.message);
    return failure(io, `cannot reach the cluster: ${(err as Error).message}`);
  }
  const role = settings.admin ? 'admin' : 'user';
  io.stdout.write(`created UserSpace ${name} (owner ${settings.owner}, role ${role}, namespace ${userNamespace(name)}) and local user ${username}\n`);
  if (settings.wait === 0) return 0;
  const wait = durationInWords(settings.wait);
  io.stdout.write(`waiting up to ${wait} for UserSpace ${name} to be Ready (den manager makes its namespace, quota and RBAC, and Kubernetes counts its quota)\n`);
  const outcome = await waitForReady(client, name, settings.wait, io.stdout);
  if (outcome.ready) {
    io.stdout.write(`UserSpace ${name} is Ready: ${username} can sign in and create workspaces\n`);
    return 0;
  }
  return failure(
    io,
    `UserSpace ${name} is not Ready after ${wait}: ${outcome.said}. It and local user ${username} were created and stay; ` +
      `check that den manager runs (kubectl -n ${settings.namespace} get pods) and what the UserSpace says (kubectl get userspace ${name} -o yaml), ` +
      `or wait longer with --wait. ${username} can sign in meanwhile; creating a workspace may be refused until it is Ready.`,
  );
}

function usageError(io: CommandIo, message: string): number {
  io.stderr.write(`den users: ${message}\n(see den users --help)\n`);
  return 2;
}

function failure(io: CommandIo, message: string): number {
  io.stderr.write(`den users: ${message}\n`);
  return 1;
}

async function exists(lookup: Promise<unknown>): Promise<boolean> {
  try {
    await lookup;
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** All of stdin, without the one trailing newline `echo` or a here-string adds. */
async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function askPassword(io: CommandIo, username: string): Promise<string> {
  if (!io.stdin.isTTY || !io.stdin.setRawMode) throw new Error('standard input is not a terminal: pass the password with --password-stdin');
  const first = await readHidden(io, `Password for ${username}: `);
  const second = await readHidden(io, 'Repeat the password: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}

/** One line from the terminal with echo off; Ctrl-C or Ctrl-D gives up. */
function readHidden(io: CommandIo, prompt: string): Promise<string> {
  const { stdin, stdout } = io;
  stdout.write(prompt);
  stdin.setRawMode!(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let line = '';
    const finish = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      stdout.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** `den users …` on the process's own terminal and environment. */
export function runUsersCommand(argv: string[]): Promise<number> {
  return runUsers(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}
