import { expect } from 'chai';
import { clearedSessionCookie, sessionCookie, sessionIdFromCookieHeader } from '../../../server/auth/cookie.js';
import { randomSecret } from '../../../server/auth/secrets.js';

describe('the session cookie', () => {
  const id = randomSecret(32);

  it('is HttpOnly, SameSite=Lax, Path=/ and carries only the id', () => {
    expect(sessionCookie(id, { secure: false, maxAgeSeconds: 3600 })).to.equal(`svc_session=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600`);
  });

  it('is Secure when the base URL is https', () => {
    expect(sessionCookie(id, { secure: true, maxAgeSeconds: 60 })).to.match(/; Secure$/);
    expect(clearedSessionCookie({ secure: true })).to.match(/^svc_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure$/);
  });

  it('is read back from a Cookie header among others', () => {
    expect(sessionIdFromCookieHeader(`theme=dark; svc_session=${id}; other=1`)).to.equal(id);
  });

  it('is ignored when absent or not shaped like an id', () => {
    expect(sessionIdFromCookieHeader(undefined)).to.equal(undefined);
    expect(sessionIdFromCookieHeader('theme=dark')).to.equal(undefined);
    expect(sessionIdFromCookieHeader('svc_session=short')).to.equal(undefined);
    expect(sessionIdFromCookieHeader(`svc_session=${id.slice(0, 42)}!`)).to.equal(undefined);
  });
});
