// The developer commands of `den` (cli/dev/): each talks only to Den's REST API with the person's own
// API token. Nothing here loads the server's, gateway's or manager's dependencies, so they
// start as fast as Node does. The laptop bundle (server/cli/bundle.ts) is these commands alone:
// the roles' names reach completion through `alsoComplete`, so this module never imports them.
import { complete, completion } from './dev/completion.js';
import { configSsh } from './dev/config-ssh.js';
import { CommandError, UsageError, type DevIo } from './dev/io.js';
import { login, logout } from './dev/login.js';
import { env, gitCredential } from './dev/personal.js';
import { dotfiles } from './dev/dotfiles.js';
import { code, forward, ssh } from './dev/ssh.js';
import { version } from './dev/version.js';
import { port } from './dev/ports.js';
import { share } from './dev/share.js';
import { denVersion } from '../process/version.js';
import { create, images, logs, ls, remove, start, stop } from './dev/workspaces.js';
import { schedule } from './dev/schedule.js';

type Run = (argv: string[], io: DevIo) => Promise<number>;

let otherCommands: () => string[] = () => [];

/** Names `den completion` offers besides the developer commands (`den`'s roles, given by cli/den.ts). */
export function alsoComplete(names: () => string[]): void {
  otherCommands = names;
}

export const DEV_COMMANDS: Record<string, { summary: string; run: Run }> = {
  login: { summary: 'sign in to a Den in the browser (or --token-stdin) and keep the token', run: login },
  logout: { summary: 'revoke the token on the server and forget it here', run: logout },
  ls: { summary: 'list your workspaces (-o json for scripts)', run: ls },
  create: { summary: 'create a workspace: den create <name> --image <entry>', run: create },
  start: { summary: 'start a stopped workspace', run: start },
  stop: { summary: 'stop a workspace (its home volume stays)', run: stop },
  delete: { summary: 'delete a workspace and, unless --keep-home, its home volume', run: remove },
  logs: { summary: "print a workspace's log", run: logs },
  schedule: { summary: "start and stop a workspace by the clock: den schedule <name> --autostart 'weekdays 08:30' --autostop 19:00", run: schedule },
  images: { summary: 'list the catalog entries you may use', run: images },
  share: { summary: 'share a workspace with a person, list its shares, or end one: den share <name> [<person> [--remove]]', run: share },
  'config-ssh': { summary: 'write Host entries for your workspaces into ~/.ssh/config', run: configSsh },
  ssh: { summary: 'open a shell (or run a command) in a workspace, starting it if stopped', run: ssh },
  code: { summary: "open VS Code's Remote-SSH in a workspace", run: code },
  port: { summary: 'share a port of a workspace: den port share <name> <port> --level owner|authenticated|people|public', run: port },
  forward: { summary: "forward a local port to a port in a workspace: den forward <name> 8080:3000", run: forward },
  version: { summary: "print this den's version and the server's, and warn when they differ", run: version },
  env: { summary: 'keep environment variables for all your workspaces: den env set|ls|rm', run: env },
  'git-credential': { summary: 'keep a token per git host for git in your workspaces: den git-credential set|ls|rm', run: gitCredential },
  dotfiles: { summary: 'keep a dotfiles repository for every new workspace: den dotfiles set|show|rm', run: dotfiles },
  completion: { summary: 'print bash or zsh completion: source <(den completion bash)', run: completion(() => [...Object.keys(DEV_COMMANDS), ...otherCommands()]) },
};

const HIDDEN: Record<string, Run> = { __complete: complete };

export function isDevCommand(name: string): boolean {
  return Object.hasOwn(DEV_COMMANDS, name) || Object.hasOwn(HIDDEN, name);
}

/** Runs one developer command: exit 0 done, 1 refused or unreachable, 2 bad usage; one line on stderr, never a stack. */
export async function runDev(name: string, argv: string[], io: DevIo): Promise<number> {
  const run = DEV_COMMANDS[name]?.run ?? HIDDEN[name]!;
  try {
    return await run(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`den ${name}: ${err.message}\n(see den ${name} --help)\n`);
      return 2;
    }
    if (err instanceof CommandError) {
      io.stderr.write(`den ${name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

export function runDevCommand(name: string, argv: string[]): Promise<number> {
  return runDev(name, argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, version: denVersion() });
}
