// The commands run in a workspace pod through pods/exec, by the SSH gateway and the browser
// terminal alike. They are argv arrays, never strings built from client input: the client's command and environment
// travel as separate arguments to a fixed /bin/sh snippet, so nothing is re-parsed.
import type { SessionTarget } from './target.js';

/**
 * Starts in the workspace folder devcontainer.json names (`$1`, else the home), or the home
 * folder (`$2`) like sshd does, and says so when it cannot reach the home either; then runs "$@".
 */
const IN_HOME = 'cd -- "$1" 2>/dev/null || cd -- "$2" 2>/dev/null || { echo "den: could not chdir to home directory $2" >&2; cd /; }; shift 2; exec "$@"';

/** The places images put OpenSSH's sftp-server (Debian/Ubuntu/Alpine, Arch, Fedora/RHEL). */
export const SFTP_SERVER_PATHS = ['/usr/lib/openssh/sftp-server', '/usr/lib/sftp-server', '/usr/libexec/openssh/sftp-server'] as const;

const SFTP = [
  'cd -- "$1" 2>/dev/null || cd /',
  `for s in ${SFTP_SERVER_PATHS.join(' ')}; do if [ -x "$s" ]; then exec "$s"; fi; done`,
  'echo "den: this image has no sftp-server (install openssh-sftp-server) so sftp and scp cannot work" >&2',
  'exit 127',
].join('; ');

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_ENV_VARS = 64;
const MAX_ENV_NAME = 128;
const MAX_ENV_VALUE = 8192;
/** Set by the gateway from the session itself; a client `env` request cannot override them. */
const RESERVED_ENV = new Set(['HOME', 'SHELL', 'TERM', 'USER', 'LOGNAME']);

/** Why an `env` request is refused, or undefined when it is accepted. */
export function envRefusal(name: string, value: string, count: number): string | undefined {
  if (name.length === 0 || name.length > MAX_ENV_NAME || !ENV_NAME.test(name)) return 'not a plain variable name';
  if (RESERVED_ENV.has(name)) return 'set by the gateway';
  if (value.length > MAX_ENV_VALUE || value.includes('\0')) return 'value too long or contains NUL';
  if (count >= MAX_ENV_VARS) return `more than ${MAX_ENV_VARS} variables`;
  return undefined;
}

export interface SessionEnv {
  /** From `pty-req`; undefined without a terminal. */
  term?: string;
  /** Accepted `env` requests, in order. */
  vars: ReadonlyMap<string, string>;
}

/** `env` arguments: what sshd sets for a session, then the client's accepted variables. */
export function envArgs(target: SessionTarget, env: SessionEnv): string[] {
  const args = ['env', `HOME=${target.homePath}`, `SHELL=${target.shell}`];
  if (env.term) args.push(`TERM=${env.term}`);
  // devcontainer.json's remoteEnv, then what the client sent (the person's own choice wins).
  for (const [name, value] of target.remoteEnv ?? []) if (envRefusal(name, value, 0) === undefined) args.push(`${name}=${value}`);
  for (const [name, value] of env.vars) args.push(`${name}=${value}`);
  return args;
}

/** The image's shell as a login shell, started in the home folder. */
export function shellCommand(target: SessionTarget, env: SessionEnv): string[] {
  return ['/bin/sh', '-c', IN_HOME, 'den-shell', target.startDir ?? target.homePath, target.homePath, ...envArgs(target, env), target.shell, '-l'];
}

/**
 * The client's command run by the image's shell with `-c`, as sshd does, in the home folder:
 * only an interactive shell starts in devcontainer.json's workspace folder, so `scp file ws:`,
 * rsync and `ssh ws cmd` keep sshd's relative paths.
 */
export function execCommand(target: SessionTarget, env: SessionEnv, command: string): string[] {
  return ['/bin/sh', '-c', IN_HOME, 'den-exec', target.homePath, target.homePath, ...envArgs(target, env), target.shell, '-c', command];
}

/** OpenSSH's sftp-server from the image, in the home folder (scp uses it too since OpenSSH 9). */
export function sftpCommand(target: SessionTarget): string[] {
  return ['/bin/sh', '-c', SFTP, 'den-sftp', target.homePath];
}

/**
 * The command OpenSSH's legacy scp (`scp -O`) runs to receive files: `scp [-v] [-r] [-p] [-d] -t
 * [--] target`, one command with no shell control operator after it. Its source waits for the
 * sink's acknowledgement of every file before it ends its input, so the sink has nothing left to
 * do once its input ends; a compound command (`scp -t x; make`) is not one.
 */
export function isScpSink(command: string): boolean {
  return /^scp(?: -[vrpd])* -t (?:-- )?[^;&|\n\r]+$/.test(command);
}

/** A terminal type is shown to programs; keep it to what terminfo names look like. */
export function sanitizeTerm(term: string): string {
  return /^[A-Za-z0-9._+-]{1,64}$/.test(term) ? term : 'xterm';
}
