// The one-time listener den login waits on (cli/dev/loopback.ts), over real HTTP on loopback.
import { expect } from 'chai';
import { listenForToken, type LoopbackListener } from '../../../cli/dev/loopback.js';

const STATE = 'a'.repeat(43);

describe('den login loopback listener', () => {
  let listener: LoopbackListener;

  beforeEach(async () => {
    listener = await listenForToken(STATE);
  });

  afterEach(() => listener.close());

  const post = (body: string, type = 'application/x-www-form-urlencoded') =>
    fetch(`http://127.0.0.1:${listener.port}/callback`, { method: 'POST', headers: { 'Content-Type': type }, body });

  it('takes the token posted with its state, and says so in the page', async () => {
    const res = await post(new URLSearchParams({ state: STATE, name: 'den-cli-1234abcd', token: 'svc_secret' }).toString());
    expect(res.status).to.equal(200);
    expect(await res.text()).to.include('den is signed in');
    expect(await listener.delivered).to.deep.equal({ token: 'svc_secret', name: 'den-cli-1234abcd' });
  });

  it('refuses another state, a GET, another path, another body type and a large body, taking nothing', async () => {
    const answers = [
      await post(new URLSearchParams({ state: 'b'.repeat(43), name: 'x', token: 'svc_secret' }).toString()),
      await fetch(`http://127.0.0.1:${listener.port}/callback?state=${STATE}&token=svc_secret&name=x`),
      await fetch(`http://127.0.0.1:${listener.port}/`, { method: 'POST', body: `state=${STATE}&name=x&token=svc_secret`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }),
      await post(JSON.stringify({ state: STATE, name: 'x', token: 'svc_secret' }), 'application/json'),
      await post(`state=${STATE}&name=x&token=svc_${'x'.repeat(5000)}`),
    ];
    expect(answers.map((a) => a.status)).to.deep.equal([400, 404, 404, 400, 400]);
    const late = await Promise.race([listener.delivered, new Promise((resolve) => setImmediate(() => resolve('nothing')))]);
    expect(late).to.equal('nothing');
  });

  it('listens on 127.0.0.1 only', async () => {
    const other = await fetch(`http://[::1]:${listener.port}/callback`, { method: 'POST' }).then(() => 'answered', () => 'refused');
    expect(other).to.equal('refused');
  });
});
