// Several deployments side by side: how a command picks its context (cli/dev/contexts.ts).
import { expect } from 'chai';
import { chooseContext, defaultContextName, parseBaseUrl, type ContextFile } from '../../../cli/dev/contexts.js';
import { UsageError } from '../../../cli/dev/io.js';

const context = (url: string) => ({ url, token: 'svc_x', tokenName: 't', email: 'a@example.com', sshPort: 22 });
const file: ContextFile = { current: 'den', contexts: { den: context('https://den.example.com'), work: context('https://den.work.example') } };

describe('den contexts', () => {
  it('names a deployment after its first host label, or address and port', () => {
    expect(defaultContextName(new URL('https://den.example.com'))).to.equal('den');
    expect(defaultContextName(new URL('http://127.0.0.1:8080'))).to.equal('127-0-0-1-8080');
    expect(defaultContextName(new URL('https://Dev.Corp.example:8443/den'))).to.equal('dev-8443');
  });

  it('picks --context, else --url, else DEN_CONTEXT, else the current one', () => {
    expect(chooseContext(file, { context: 'work' }, {}).name).to.equal('work');
    expect(chooseContext(file, { url: 'https://den.work.example/' }, {}).name).to.equal('work');
    expect(chooseContext(file, {}, { DEN_CONTEXT: 'work' }).name).to.equal('work');
    expect(chooseContext(file, {}, {}).name).to.equal('den');
  });

  it('says what it knows when the name or URL is not one of them', () => {
    expect(() => chooseContext(file, { context: 'nope' }, {})).to.throw(UsageError, 'no context named "nope" (known: den, work)');
    expect(() => chooseContext(file, { url: 'https://other.example' }, {})).to.throw(UsageError, 'not signed in to https://other.example (sign in with den login https://other.example)');
    expect(() => chooseContext({ contexts: {} }, {}, {})).to.throw(UsageError, 'not signed in to any Den');
  });

  it('takes only an http(s) base address without query, fragment or user', () => {
    expect(parseBaseUrl('https://den.example.com/').href).to.equal('https://den.example.com/');
    for (const bad of ['den.example.com', 'ftp://den.example.com', 'https://den.example.com/?x=1', 'https://me@den.example.com']) expect(() => parseBaseUrl(bad), bad).to.throw(UsageError);
  });
});
