// The `den` executable: one binary, one role per process (DESIGN.md "Processes"), and the
// developer commands (cli/dev/) that talk to Den's REST API from a laptop.
// Exit codes: 0 done, 1 the role or command failed, 2 bad usage or configuration.
// A developer command is dispatched before anything of the roles is loaded (no kube client).
import { alsoComplete, DEV_COMMANDS, isDevCommand, runDevCommand } from './dev-commands.js';
import { readSettings, settingsHelp, SettingsError } from '../process/settings.js';
import { COMMANDS, ROLE_SUMMARIES, ROLES } from './roles.js';

async function usage(): Promise<string> {
  const width = Math.max(...[...Object.keys(DEV_COMMANDS), ...Object.keys(ROLES), ...Object.keys(COMMANDS)].map((n) => n.length));
  const lines = ['Usage: den <command> [flags]', '', 'Developer commands (your workspaces, through the REST API with your own API token):'];
  for (const [name, c] of Object.entries(DEV_COMMANDS)) lines.push(`  ${name.padEnd(width)} ${c.summary}`);
  lines.push('', 'Platform roles (run by an installation, with a kubeconfig):');
  for (const name of Object.keys(ROLES)) lines.push(`  ${name.padEnd(width)} ${ROLE_SUMMARIES[name] ?? ''}`);
  if (Object.keys(COMMANDS).length) {
    lines.push('', 'Platform commands (with a cluster administrator\'s kubeconfig):');
    for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(width)} ${c.summary}`);
  }
  lines.push('', 'Run `den <command> --help` for its flags. Every flag of a role can also be set as a DEN_* variable.');
  return lines.join('\n');
}

/** The error's message, and its cause's unless the message already says it. */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : '';
  return cause && !err.message.includes(cause) ? `${err.message}: ${cause}` : err.message;
}

alsoComplete(() => [...Object.keys(ROLES), ...Object.keys(COMMANDS)]);

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write((await usage()) + '\n');
    return 0;
  }
  if (!name) {
    process.stderr.write((await usage()) + '\n');
    return 2;
  }
  if (isDevCommand(name)) return runDevCommand(name, rest);
  const command = COMMANDS[name];
  if (command) return command.run(rest);
  const load = ROLES[name];
  if (!load) {
    const known = [...Object.keys(DEV_COMMANDS), ...Object.keys(ROLES), ...Object.keys(COMMANDS)].join(', ');
    process.stderr.write(`den: unknown command '${name}' (one of ${known}; see den --help)\n`);
    return 2;
  }
  const role = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`den ${name}: ${role.summary}\n\nFlags:\n${settingsHelp(role.settings)}\n`);
    return 0;
  }
  let settings;
  try {
    settings = readSettings(role.settings, rest, process.env);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(`den ${name}: ${err.message}\n`);
    return 2;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await role.run(settings, stop.signal);
    return 0;
  } catch (err) {
    // Configuration a role can only check once it runs (files it reads): exit 2, one line per mistake.
    if (err instanceof SettingsError) {
      for (const line of err.message.split('\n')) process.stderr.write(`den ${name}: ${line}\n`);
      return 2;
    }
    process.stderr.write(`den ${name}: ${messageOf(err)}\n`);
    const { KubeconfigError } = await import('../kube/connection.js');
    return err instanceof KubeconfigError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`den: ${messageOf(err)}\n`);
  return 1;
});
