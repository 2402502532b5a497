// REST and SSH as a person's script uses them, for the journey (journey.ts) and the other
// integration tests: a caller signed in with a cookie and CSRF token or holding an API token,
// and `ssh` with one key only.
import { expect } from 'chai';
import { runCommand, type CommandResult, type PlatformEnvironment } from '../support/platform.js';

type Json = Record<string, any>;

export interface RestAnswer {
  status: number;
  body: Json;
  headers: Headers;
}

/** A signed-in browser-like caller: the session cookie and the CSRF token from the login answer. */
export interface Session {
  cookie: string;
  csrf: string;
}

export type Credential = { session: Session; csrf?: boolean } | { token: string } | undefined;

/** REST as a script with curl would use it. */
export class Rest {
  constructor(private readonly baseUrl: string) {}

  async call(method: string, path: string, opts: { body?: unknown; as?: Credential } = {}): Promise<RestAnswer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const as = opts.as;
    if (as && 'session' in as) {
      headers.Cookie = as.session.cookie;
      if (as.csrf !== false) headers['X-CSRF-Token'] = as.session.csrf;
    } else if (as && 'token' in as) {
      headers.Authorization = `Bearer ${as.token}`;
    }
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    let body: Json = {};
    if (text) {
      try {
        body = JSON.parse(text) as Json;
      } catch {
        body = { text };
      }
    }
    return { status: res.status, body, headers: res.headers };
  }

  async login(username: string, password: string): Promise<Session> {
    const answer = await this.call('POST', '/login', { body: { username, password } });
    expect(answer.status, `login of ${username}: ${JSON.stringify(answer.body)}`).to.equal(204);
    const cookies = answer.headers.getSetCookie().map((c) => c.split(';')[0]!);
    expect(cookies.some((c) => c.startsWith('svc_session=')), `cookies set: ${cookies.join(', ')}`).to.equal(true);
    const csrf = answer.headers.get('x-csrf-token');
    expect(csrf, 'X-CSRF-Token header of the login answer').to.be.a('string').and.not.equal('');
    return { cookie: cookies.join('; '), csrf: csrf! };
  }
}

/** `ssh` as a person runs it: their key only, no agent, no prompts, the gateway's host key accepted on first use. */
export function sshOptions(env: Pick<PlatformEnvironment, 'ssh'>, keyFile: string): string[] {
  return [
    '-F', '/dev/null',
    '-i', keyFile,
    '-p', String(env.ssh.port),
    '-o', 'IdentitiesOnly=yes',
    '-o', 'IdentityAgent=none',
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=no',
    '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'ConnectTimeout=10',
  ];
}

export function ssh(env: PlatformEnvironment, keyFile: string, user: string, command: string): Promise<CommandResult> {
  return runCommand('ssh', [...sshOptions(env, keyFile), `${user}@${env.ssh.host}`, command], { timeoutMs: 30_000 });
}

