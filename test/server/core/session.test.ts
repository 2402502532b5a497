// SPEC 4.1 and 5 over a real loopback HTTP server: login, the session, logout.
import http from 'node:http';
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { sessionSecretName } from '../../../server/auth/sessions.js';
import { DEFAULT_LOGIN_THROTTLE } from '../../../server/auth/throttle.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, seedLocalUser, startDen, startWith, stopAll, until, type Den } from './cluster.js';

describe('sessions (POST /login, GET /session, POST /logout)', () => {
  let api: FakeApiServer;
  let den: Den;

  beforeEach(async () => {
    ({ api, den } = await startWith({ alice: {} }));
  });
  afterEach(() => stopAll(den, api));

  it('signs in with 204, an HttpOnly SameSite cookie holding only an id, and the CSRF token in a header', async () => {
    const res = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
    expect(res.status).to.equal(204);
    expect(await res.text()).to.equal('');
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).to.match(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(res.headers.get('x-csrf-token')).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('keeps the session in a Secret named by the hash of the id, which holds neither the id nor a password', async () => {
    const signed = await login(den, 'alice', 'alice-password');
    const id = signed.cookie.split('=')[1]!;
    const secret = api.object<{ metadata: { labels: Record<string, string> }; data: Record<string, string> }>(RESOURCES.secret, sessionSecretName(id), 'svc-system');
    expect(secret?.metadata.labels['den.dev/kind']).to.equal('session');
    const stored = JSON.stringify(Object.values(secret!.data).map((v) => Buffer.from(v, 'base64').toString()));
    expect(stored).to.not.contain(id);
    expect(stored).to.not.contain('alice-password');
    expect(api.requests.filter((r) => r.path.includes('/secrets')).every((r) => r.user === 'system:serviceaccount:svc-system:den-server')).to.equal(true);
  });

  it('sets Secure on the cookie when the base URL is https', async () => {
    const secure = await startDen(api, { baseUrl: 'https://den.example.com' });
    try {
      const res = await fetch(`${secure.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
      expect(res.headers.getSetCookie()[0]).to.match(/; Secure$/);
      expect(res.headers.get('strict-transport-security')).to.equal('max-age=31536000');
    } finally {
      await secure.close();
    }
  });

  it('describes the session with GET /session, the CSRF token included', async () => {
    const signed = await login(den, 'alice', 'alice-password');
    const res = await call(den, 'GET', '/session', { as: signed });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ email: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', role: 'user', csrf_token: signed.csrf, auth: 'local' });
  });

  it('answers 401 with the same message for a wrong password and an unknown username', async () => {
    const wrong = await call(den, 'POST', '/login', { body: { username: 'alice', password: 'nope-nope' } });
    const unknown = await call(den, 'POST', '/login', { body: { username: 'mallory', password: 'nope-nope' } });
    expect(wrong).to.deep.include({ status: 401, body: { error: 'invalid username or password' } });
    expect(unknown).to.deep.include({ status: 401, body: { error: 'invalid username or password' } });
    expect(wrong.headers.get('set-cookie')).to.equal(null);
  });

  it('answers 400 naming the field for a malformed LoginRequest', async () => {
    expect((await call(den, 'POST', '/login', { body: { username: 'alice' } })).body).to.deep.equal({ error: 'password is required' });
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 5 } })).body).to.deep.equal({ error: 'password must be a string' });
    const extra = await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password', admin: true } });
    expect(extra).to.deep.include({ status: 400, body: { error: 'unknown field admin' } });
  });

  it('answers 400 naming an unknown query parameter on login, session, logout and password change, changing nothing', async () => {
    expect(await call(den, 'POST', '/login?remember=1', { body: { username: 'alice', password: 'alice-password' } })).to.deep.include({ status: 400, body: { error: 'unknown field remember' } });
    const signed = await login(den, 'alice', 'alice-password');
    expect(await call(den, 'GET', '/session?verbose=1', { as: signed })).to.deep.include({ status: 400, body: { error: 'unknown field verbose' } });
    expect(await call(den, 'POST', '/logout?all=true', { as: signed })).to.deep.include({ status: 400, body: { error: 'unknown field all' } });
    const change = await call(den, 'POST', '/profile/password?user=bob', { as: signed, body: { current_password: 'alice-password', new_password: 'another-password' } });
    expect(change).to.deep.include({ status: 400, body: { error: 'unknown field user' } });
    expect((await call(den, 'GET', '/session', { as: signed })).status, 'still signed in').to.equal(200);
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).status, 'password unchanged').to.equal(204);
  });

  it('answers 404 on POST /login when local login is off', async () => {
    const off = await startDen(api, { localAuth: false });
    try {
      const res = await call(off, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } });
      expect(res).to.deep.include({ status: 404, body: { error: 'local login is disabled' } });
    } finally {
      await off.close();
    }
  });

  it('refuses a disabled person with 403 once the password is right, and with 401 when it is not', async () => {
    await addPerson(api, 'bob', { disabled: true });
    await until(async () => (await call(den, 'POST', '/login', { body: { username: 'bob', password: 'bob-password' } })).status === 403, 'bob to be known');
    const right = await call(den, 'POST', '/login', { body: { username: 'bob', password: 'bob-password' } });
    expect(right.body).to.deep.equal({ error: 'the account bob@example.com is disabled; ask an administrator to enable it' });
    expect((await call(den, 'POST', '/login', { body: { username: 'bob', password: 'wrong-password' } })).status).to.equal(401);
  });

  it('answers 403 when the password is right but nobody has a UserSpace for the owner', async () => {
    await seedLocalUser(api, 'carol', 'carol@example.com', 'carol-password');
    await until(async () => (await den.auth.localUsers.list()).some((u) => u.username === 'carol'), 'carol stored');
    const res = await call(den, 'POST', '/login', { body: { username: 'carol', password: 'carol-password' } });
    expect(res).to.deep.include({ status: 403, body: { error: 'no UserSpace belongs to carol@example.com; ask an administrator to create one' } });
  });

  it('answers 401 without a cookie or token, and for a cookie of no session', async () => {
    expect(await call(den, 'GET', '/session')).to.deep.include({
      status: 401,
      body: { error: 'authentication required: sign in with POST /api/v1/login or send Authorization: Bearer <API token>' },
    });
    const forged = { cookie: `svc_session=${'A'.repeat(43)}`, csrf: 'x' };
    expect(await call(den, 'GET', '/session', { as: forged })).to.deep.include({ status: 401, body: { error: 'your session has ended; sign in again' } });
    expect((await call(den, 'GET', '/session', { headers: { Authorization: 'Bearer not-a-den-token' } })).status).to.equal(401);
  });

  it('ends the session with POST /logout: 204, cookie cleared, Secret deleted, cookie refused after', async () => {
    const signed = await login(den, 'alice', 'alice-password');
    const id = signed.cookie.split('=')[1]!;
    const res = await call(den, 'POST', '/logout', { as: signed });
    expect(res.status).to.equal(204);
    expect(res.headers.getSetCookie()[0]).to.match(/^svc_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    expect(api.object(RESOURCES.secret, sessionSecretName(id), 'svc-system')).to.equal(undefined);
    expect((await call(den, 'GET', '/session', { as: signed })).status).to.equal(401);
  });

  it('answers 400 to POST /logout with a bearer token', async () => {
    const signed = await login(den, 'alice', 'alice-password');
    const { body } = await call(den, 'POST', '/tokens', { as: signed });
    const res = await call(den, 'POST', '/logout', { as: body.token });
    expect(res).to.deep.include({ status: 400, body: { error: 'logout ends cookie sessions only; revoke an API token with DELETE /api/v1/tokens/{name}' } });
  });

  it('keeps sessions across a restart and between replicas, since they live in the cluster', async () => {
    const signed = await login(den, 'alice', 'alice-password');
    await den.close();
    den = await startDen(api);
    const replica = await startDen(api);
    try {
      expect((await call(den, 'GET', '/session', { as: signed })).status).to.equal(200);
      expect((await call(replica, 'GET', '/session', { as: signed })).status).to.equal(200);
      const fresh = await login(replica, 'alice', 'alice-password');
      expect((await call(den, 'GET', '/session', { as: fresh })).status, 'a session made on another replica a moment ago').to.equal(200);
    } finally {
      await replica.close();
    }
  });

  it('ends a session idle for 12 hours and deletes its Secret', async () => {
    let clock = Date.now();
    const timed = await startDen(api, { now: () => clock });
    try {
      const signed = await login(timed, 'alice', 'alice-password');
      const id = signed.cookie.split('=')[1]!;
      clock += 11 * 3_600_000;
      expect((await call(timed, 'GET', '/session', { as: signed })).status).to.equal(200);
      clock += 11 * 3_600_000;
      expect((await call(timed, 'GET', '/session', { as: signed })).status, 'used 11 h ago').to.equal(200);
      clock += 12 * 3_600_000;
      expect((await call(timed, 'GET', '/session', { as: signed })).status).to.equal(401);
      expect(api.object(RESOURCES.secret, sessionSecretName(id), 'svc-system')).to.equal(undefined);
    } finally {
      await timed.close();
    }
  });

  it('ends a session 7 days after sign-in however busy, and the sweep deletes abandoned ones', async () => {
    let clock = Date.now();
    const timed = await startDen(api, { now: () => clock });
    try {
      const busy = await login(timed, 'alice', 'alice-password');
      const abandoned = await login(timed, 'alice', 'alice-password');
      for (let step = 0; step < 16; step++) {
        clock += 10 * 3_600_000;
        expect((await call(timed, 'GET', '/session', { as: busy })).status, `after ${(step + 1) * 10} h`).to.equal(200);
      }
      clock += 10 * 3_600_000;
      expect((await call(timed, 'GET', '/session', { as: busy })).status, 'after 170 h').to.equal(401);
      const abandonedSecret = sessionSecretName(abandoned.cookie.split('=')[1]!);
      expect(api.object(RESOURCES.secret, abandonedSecret, 'svc-system')).to.not.equal(undefined);
      expect(await timed.auth.sessions.sweep(clock)).to.equal(1);
      expect(api.object(RESOURCES.secret, abandonedSecret, 'svc-system')).to.equal(undefined);
    } finally {
      await timed.close();
    }
  });

  it('answers 401, not 404, when the session was logged out elsewhere just as it is refreshed', async () => {
    let clock = Date.now();
    const timed = await startDen(api, { now: () => clock });
    try {
      const signed = await login(timed, 'alice', 'alice-password');
      clock += 10 * 60_000;
      api.failNext('PATCH', /\/secrets\/session-/, 404, { reason: 'NotFound', message: 'secrets "session-x" not found' });
      expect(await call(timed, 'GET', '/session', { as: signed })).to.deep.include({ status: 401, body: { error: 'your session has ended; sign in again' } });
    } finally {
      await timed.close();
    }
  });

  it('replaces the session a browser already had when it signs in again', async () => {
    const first = await login(den, 'alice', 'alice-password');
    const res = await fetch(`${den.api}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: first.cookie },
      body: JSON.stringify({ username: 'alice', password: 'alice-password' }),
    });
    expect(res.status).to.equal(204);
    expect((await call(den, 'GET', '/session', { as: first })).status).to.equal(401);
  });

  it('slows down guessing: after 5 failures even the right password waits, with 429 and Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: `guess-${i}-x` } })).status).to.equal(401);
    const locked = await call(den, 'POST', '/login', { body: { username: 'Alice', password: 'alice-password' } });
    expect(locked.status).to.equal(429);
    expect(locked.body.error).to.equal('too many failed sign-in attempts; retry in 1 s');
    expect(locked.headers.get('retry-after')).to.equal('1');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).status).to.equal(204);
  });

  describe('throttling by client address', () => {
    // Lockouts of a minute, so that slow password checks on a busy machine never outlast one;
    // six attempts per address instead of the default thirty, which only take longer to make.
    const policy = {
      perUsernameAndAddress: { ...DEFAULT_LOGIN_THROTTLE.perUsernameAndAddress, baseLockMs: 60_000 },
      perAddress: { ...DEFAULT_LOGIN_THROTTLE.perAddress, freeFailures: 6, baseLockMs: 60_000 },
    };
    let strict: Den;
    beforeEach(async () => {
      strict = await startDen(api, { throttlePolicy: policy });
    });
    afterEach(() => strict.close());

    /** POST /login from the loopback address `from` (the TCP peer the server sees). */
    function loginFrom(target: Den, from: string, username: string, password: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
      const url = new URL(`${target.api}/login`);
      const body = JSON.stringify({ username, password });
      return new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    }
    const guesses = (target: Den, from: string, username: string, n: number, headers?: (i: number) => Record<string, string>) =>
      Promise.all(Array.from({ length: n }, (_, i) => loginFrom(target, from, username, `guess-${i}-x`, headers?.(i))));

    it("cannot lock alice out: guesses at her username from elsewhere slow only the guesser", async () => {
      await guesses(strict, '127.0.0.2', 'alice', 6);
      expect((await loginFrom(strict, '127.0.0.2', 'alice', 'alice-password')).status).to.equal(429);
      expect((await loginFrom(strict, '127.0.0.1', 'alice', 'alice-password')).status).to.equal(204);
    });

    it('answers alike for a username that exists and one that does not, throttled or not', async () => {
      const known = await guesses(strict, '127.0.0.3', 'alice', 6);
      const unknown = await guesses(strict, '127.0.0.4', 'nobody-here', 6);
      const shape = (answers: { status: number; body: string }[]) => answers.map((a) => `${a.status} ${a.body}`).sort();
      expect(shape(unknown)).to.deep.equal(shape(known));
      expect(shape(known)).to.deep.equal([...Array(5).fill('401 {"error":"invalid username or password"}'), '429 {"error":"too many failed sign-in attempts; retry in 60 s"}']);
    });

    it('slows an address that tries many usernames, for every username, and no other address', async () => {
      await Promise.all(Array.from({ length: 6 }, (_, i) => loginFrom(strict, '127.0.0.5', `user${i}`, 'guess-x')));
      expect((await loginFrom(strict, '127.0.0.5', 'alice', 'alice-password')).status).to.equal(429);
      expect((await loginFrom(strict, '127.0.0.1', 'alice', 'alice-password')).status).to.equal(204);
    });

    it('ignores X-Forwarded-For by default: a guesser cannot escape by naming other addresses', async () => {
      await guesses(strict, '127.0.0.6', 'alice', 5, (i) => ({ 'X-Forwarded-For': `198.51.100.${i}` }));
      const next = await loginFrom(strict, '127.0.0.6', 'alice', 'alice-password', { 'X-Forwarded-For': '198.51.100.99' });
      expect(next.status).to.equal(429);
    });

    it('behind a trusted proxy takes the right-most address that is not a trusted proxy', async () => {
      const proxied = await startDen(api, { trustedProxies: ['127.0.0.1', '10.0.0.0/8'], throttlePolicy: policy });
      try {
        // The guesser's own left-most entries change every time; the proxies' entries do not.
        await guesses(proxied, '127.0.0.1', 'alice', 5, (i) => ({ 'X-Forwarded-For': `192.0.2.${i}, 198.51.100.1, 10.1.2.3` }));
        expect((await loginFrom(proxied, '127.0.0.1', 'alice', 'alice-password', { 'X-Forwarded-For': '192.0.2.77, 198.51.100.1, 10.1.2.3' })).status).to.equal(429);
        expect((await loginFrom(proxied, '127.0.0.1', 'alice', 'alice-password', { 'X-Forwarded-For': '198.51.100.2, 10.1.2.3' })).status).to.equal(204);
        // From a peer that is no trusted proxy the header counts for nothing.
        await guesses(proxied, '127.0.0.7', 'alice', 5, (i) => ({ 'X-Forwarded-For': `198.51.100.${100 + i}` }));
        expect((await loginFrom(proxied, '127.0.0.7', 'alice', 'alice-password', { 'X-Forwarded-For': '198.51.100.200' })).status).to.equal(429);
      } finally {
        await proxied.close();
      }
    });
  });

  it('counts guesses still being checked, so twenty sent at once get only five password checks', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(den, 'POST', '/login', { body: { username: 'alice', password: `parallel-${i}-x` } })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([...Array(5).fill(401), ...Array(15).fill(429)]);
  });
});
