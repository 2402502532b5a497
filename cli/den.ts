// The `den` executable: one binary, one role per process (DESIGN.md "Processes").
import { readSettings, settingsHelp, SettingsError } from './settings.js';
import { COMMANDS, ROLES } from './roles.js';


async function usage(): Promise<string> {
  const lines = ['Usage: den <role> [flags]', '', 'Roles:'];
  for (const [name, load] of Object.entries(ROLES)) lines.push(`  ${name.padEnd(10)} ${(await load()).summary}`);
  if (Object.keys(COMMANDS).length) {
    lines.push('', 'Commands:');
    for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${c.summary}`);
  }
  lines.push('', 'Run `den <role> --help` for the flags of a role. Every flag can also be set as a DEN_* variable.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write((await usage()) + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (command) return command.run(rest);
  const load = ROLES[name];
  if (!load) {
    process.stderr.write(`den: unknown role '${name}'\n\n${await usage()}\n`);
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
    if (err instanceof SettingsError) {
      process.stderr.write(`den ${name}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await role.run(settings, stop.signal);
    return 0;
  } catch (err) {
    const e = err as Error;
    process.stderr.write(`den ${name}: ${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ''}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
