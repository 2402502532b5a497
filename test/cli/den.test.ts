// `den` as a person runs it: `node bin/den.js ...` in a child process, with no DEN_* variable
// or kubeconfig inherited from the machine running the tests.
import { join } from 'node:path';
import { expect } from 'chai';
import { defaultText } from '../../process/settings.js';
import { DEV_COMMANDS } from '../../cli/dev-commands.js';
import { COMMANDS, ROLES } from '../../cli/roles.js';
import { REPO_ROOT, runCommand, type CommandResult } from '../support/platform.js';

const DEN = join(REPO_ROOT, 'bin/den.js');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DEN_') && k !== 'KUBECONFIG' && k !== 'KUBERNETES_SERVICE_HOST') env[k] = v;
  return { ...env, ...extra };
}

const CASES = {
  help: { args: ['--help'] },
  bare: { args: [] },
  unknown: { args: ['shepherd'] },
  managerHelp: { args: ['manager', '--help'] },
  serverHelp: { args: ['server', '--help'] },
  gatewayHelp: { args: ['gateway', '--help'] },
  badFlag: { args: ['server', '--listen', 'nowhere', '--base-url', 'https://den.example.com'] },
  badVariable: { args: ['gateway'], env: { DEN_HEALTH_LISTEN: 'localhost' } },
  missing: { args: ['server'] },
  badProviders: {
    args: ['server', '--base-url', 'https://den.example.com', '--listen', '127.0.0.1:0'],
    env: { DEN_OIDC_CORP_CLIENT_ID: 'den', DEN_OIDC_CORP_CLIENT_SECRET: 'hunter2', DEN_GITHUB_GH_CLIENT_SECRET_FILE: '/nonexistent/secret' },
  },
  failedStart: { args: ['manager', '--kubeconfig', '/nonexistent/kubeconfig', '--health-listen', '127.0.0.1:0', '--webhook-listen', '127.0.0.1:0'] },
} satisfies Record<string, { args: string[]; env?: Record<string, string> }>;

function expectOneLine(result: CommandResult, line: string): void {
  expect(result.stdout).to.equal('');
  expect(result.stderr).to.equal(`${line}\n`);
}

describe('den', function () {
  // Generous: with the suite's other files running beside it, a role may take many seconds to load.
  this.timeout(300_000);
  const results = {} as Record<keyof typeof CASES, CommandResult>;

  // Each run loads a role's code (a second or two of CPU): two at a time keeps the suite short
  // without starving any of them on a busy machine.
  before(async () => {
    const queue = Object.entries(CASES);
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [name, c] = next;
        results[name as keyof typeof CASES] = await runCommand(process.execPath, [DEN, ...c.args], { env: cleanEnv('env' in c ? c.env : {}), timeoutMs: 90_000 });
      }
    };
    await Promise.all([worker(), worker()]);
  });

  it('den --help lists every role with its summary and exits 0', async () => {
    const { code, stdout, stderr } = results.help;
    expect(code).to.equal(0);
    expect(stderr).to.equal('');
    expect(stdout).to.match(/^Usage: den <command> \[flags\]\n/);
    // One column for every name, as wide as the longest (git-credential).
    const width = Math.max(...[...Object.keys(DEV_COMMANDS), ...Object.keys(ROLES), ...Object.keys(COMMANDS)].map((n) => n.length));
    for (const [name, load] of Object.entries(ROLES)) expect(stdout).to.include(`  ${name.padEnd(width)} ${(await load()).summary}\n`);
  });

  it('den --help puts the developer commands first, apart from the platform roles', () => {
    const sections = results.help.stdout.split('\n\n');
    const developer = sections.find((s) => s.startsWith('Developer commands'))!;
    const platform = sections.find((s) => s.startsWith('Platform roles'))!;
    const names = (section: string) => section.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0]);
    expect(names(developer)).to.deep.equal(Object.keys(DEV_COMMANDS));
    expect(names(platform)).to.deep.equal(Object.keys(ROLES));
    expect(sections.indexOf(developer)).to.be.below(sections.indexOf(platform));
    expect(results.help.stdout).to.include(`  ${'users'.padEnd('git-credential'.length)} ${COMMANDS.users!.summary}\n`);
  });

  it('den without a role prints the usage on stderr and exits 2', () => {
    expect(results.bare.code).to.equal(2);
    expect(results.bare.stdout).to.equal('');
    expect(results.bare.stderr).to.equal(results.help.stdout);
  });

  it('an unknown command is one line naming the commands and roles, exit 2', () => {
    expect(results.unknown.code).to.equal(2);
    expectOneLine(results.unknown, `den: unknown command 'shepherd' (one of ${Object.keys(DEV_COMMANDS).join(', ')}, gateway, manager, server, users, clone-source; see den --help)`);
  });

  for (const role of ['manager', 'server', 'gateway'] as const) {
    it(`den ${role} --help lists every flag with its variable and a default as it would be typed, and exits 0`, async () => {
      const { code, stdout, stderr } = results[`${role}Help`];
      expect(code).to.equal(0);
      expect(stderr).to.equal('');
      const { summary, settings } = await ROLES[role]!();
      expect(stdout).to.match(new RegExp(`^den ${role}: ${summary.replace(/[()]/g, '\\$&')}\n\nFlags:\n`));
      for (const s of Object.values(settings)) {
        expect(stdout).to.include(`  --${s.flag}${s.boolean ? '' : ' VALUE'}  [${s.env}]\n      ${s.describe}`);
      }
      // No parsed form leaks into the help: no JSON objects, no milliseconds.
      expect(stdout).to.not.match(/\(default [{"[]/);
      expect(stdout).to.not.match(/\(default \d{4,}\)/);
    });
  }

  it('shows listen addresses as host:port and durations with their unit', () => {
    expect(results.managerHelp.stdout).to.include('(default 0.0.0.0:8081)').and.include('(default 0.0.0.0:9443)').and.include('(default 5m)');
    expect(results.serverHelp.stdout).to.include('(default 0.0.0.0:8080)').and.include('(default 10m)');
    expect(results.serverHelp.stdout).to.include('public base URL; https makes cookies Secure (required)');
    expect(results.gatewayHelp.stdout).to.include('(default 0.0.0.0:2222)').and.include('(default 30s)');
  });

  it('every default shown in --help, typed back in, gives the default', async () => {
    for (const [role, load] of Object.entries(ROLES)) {
      for (const s of Object.values((await load()).settings)) {
        const shown = defaultText(s);
        if (shown === undefined || shown === '') continue;
        expect(s.parse(shown), `den ${role} --${s.flag} ${shown}`).to.deep.equal(s.default);
      }
    }
  });

  it('a malformed flag stops the role with one line naming flag and variable, exit 2', () => {
    expect(results.badFlag.code).to.equal(2);
    expectOneLine(results.badFlag, "den server: --listen (DEN_LISTEN): expected host:port, got 'nowhere'");
  });

  it('a malformed DEN_* variable stops the role the same way', () => {
    expect(results.badVariable.code).to.equal(2);
    expectOneLine(results.badVariable, "den gateway: --health-listen (DEN_HEALTH_LISTEN): expected host:port, got 'localhost'");
  });

  it('identity provider mistakes stop den server before it starts, one line each without secrets, exit 2', () => {
    expect(results.badProviders.code).to.equal(2);
    expect(results.badProviders.stdout).to.equal('');
    expect(results.badProviders.stderr).to.equal(
      [
        'den server: identity provider gh (DEN_GITHUB_GH_*): clientId is required',
        'den server: identity provider gh (DEN_GITHUB_GH_*): clientSecretFile /nonexistent/secret cannot be read (ENOENT)',
        'den server: identity provider corp (DEN_OIDC_CORP_*): issuer is required for preset generic (Keycloak: https://host/realms/<realm>)',
        '',
      ].join('\n'),
    );
  });

  it('a missing required setting names it and says what it is for, exit 2', () => {
    expect(results.missing.code).to.equal(2);
    expectOneLine(results.missing, 'den server: --base-url (DEN_BASE_URL) is required: public base URL; https makes cookies Secure');
  });

  it('a role whose kubeconfig cannot be read says why in one line, no stack trace, exit 2', () => {
    const { code, stderr } = results.failedStart;
    expect(code).to.equal(2);
    const lines = stderr.trimEnd().split('\n');
    const last = lines[lines.length - 1]!;
    expect(last).to.equal('den manager: kubeconfig /nonexistent/kubeconfig: no such file');
    expect(last.match(/\/nonexistent\/kubeconfig/g), 'the cause is said once').to.have.length(1);
    expect(stderr).to.not.match(/^\s+at /m);
    // Only the manager's own JSON log lines come before it.
    for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line), line).to.not.throw();
  });
});
