import { expect } from 'chai';
import { HttpError } from '../../../koa/errors.js';
import { validate } from '../../../server/http/validate.js';
import { issueTokenQuery, localUserRequest, loginRequest, passwordRequest } from '../../../server/api/account-schemas.js';

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return err.message;
    throw err;
  }
  throw new Error('expected a 400');
}

describe('request shapes of sessions, tokens and local users', () => {
  it('accepts a LoginRequest and names what is missing, mistyped or unknown', () => {
    expect(validate(loginRequest, { username: 'alice', password: 'pw' })).to.deep.equal({ username: 'alice', password: 'pw' });
    expect(problem(() => validate(loginRequest, {}))).to.equal('username is required; password is required');
    expect(problem(() => validate(loginRequest, { username: 1, password: 'x' }))).to.equal('username must be a string');
    expect(problem(() => validate(loginRequest, { username: 'a', password: 'x', remember: true }))).to.equal('unknown field remember');
  });

  it('requires new passwords of at least 8 characters', () => {
    expect(problem(() => validate(passwordRequest, { current_password: 'old', new_password: 'short' }))).to.equal('new_password must be at least 8 characters');
    expect(problem(() => validate(localUserRequest, { username: 'alice', password: '1234567', owner: 'a@x' }))).to.equal('password must be at least 8 characters');
  });

  it('keeps local usernames valid as part of a Secret name', () => {
    expect(validate(localUserRequest, { username: 'alice.b-1', password: '12345678', owner: 'a@x' }).username).to.equal('alice.b-1');
    expect(problem(() => validate(localUserRequest, { username: 'Alice', password: '12345678', owner: 'a@x' }))).to.match(/^username must be 1-63 lower-case/);
  });

  it('takes the token scope and name from the query', () => {
    expect(validate(issueTokenQuery, { scope: 'read', name: 'ci' }, 'query')).to.deep.equal({ scope: 'read', name: 'ci' });
    expect(problem(() => validate(issueTokenQuery, { scope: 'admin' }, 'query'))).to.equal('scope must be full or read');
    expect(problem(() => validate(issueTokenQuery, { scope: ['read', 'full'] }, 'query'))).to.contain('scope must be a string');
    expect(problem(() => validate(issueTokenQuery, { ttl: '1h' }, 'query'))).to.equal('unknown field ttl');
  });
});
