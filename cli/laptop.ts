// The entry of the `den` a laptop installs from its Den (`<base-url>/cli/install.sh` or
// `npm install -g <base-url>/cli/den.tgz`): the developer commands alone, bundled into one file
// by server/cli/bundle.ts. The platform roles stay in the image; asking for one says so.
import { DEV_COMMANDS, isDevCommand, runDevCommand } from './dev-commands.js';
import { LAPTOP_NODE } from '../process/version.js';

function usage(): string {
  const lines = ['Usage: den <command> [flags]', '', 'Commands (your workspaces, through the REST API with your own API token):'];
  for (const [name, c] of Object.entries(DEV_COMMANDS)) lines.push(`  ${name.padEnd(10)} ${c.summary}`);
  lines.push('', 'Run `den <command> --help` for its flags.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < LAPTOP_NODE) {
    process.stderr.write(`den: needs Node.js ${LAPTOP_NODE} or newer, not ${process.version}: install a current one from https://nodejs.org/\n`);
    return 2;
  }
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  if (name === '--version') return runDevCommand('version', rest);
  if (!name) {
    process.stderr.write(usage() + '\n');
    return 2;
  }
  if (isDevCommand(name)) return runDevCommand(name, rest);
  if (name === 'server' || name === 'manager' || name === 'gateway' || name === 'users') {
    process.stderr.write(`den: '${name}' runs in Den's container image, not in this laptop's den (see den --help)\n`);
    return 2;
  }
  process.stderr.write(`den: unknown command '${name}' (one of ${Object.keys(DEV_COMMANDS).join(', ')}; see den --help)\n`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`den: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
});
