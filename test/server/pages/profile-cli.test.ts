// The profile page tells a person how to install den from this Den: the curl line and the npm
// one, built from the configured base URL and escaped like every other value on the page.
import { expect } from 'chai';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fetchPage, postLoginForm } from '../../support/web.js';
import { addPerson, startCluster, startDen, type Den } from '../core/cluster.js';

async function profileOf(den: Den): Promise<string> {
  const answer = await postLoginForm(den.url, { username: 'alice', password: 'alice-password' });
  expect(answer.status, answer.text).to.equal(302);
  const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
  const page = await fetchPage(`${den.url}/profile`, { cookie });
  expect(page.status).to.equal(200);
  return page.text;
}

describe('the profile page shows how to install den', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  const dens: Den[] = [];

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
  });
  after(async () => {
    for (const den of dens) await den.close();
    await api.close();
  });

  it('shows curl -fsSL <base-url>/cli/install.sh | sh with a copy button, and npm install -g <base-url>/cli/den.tgz', async () => {
    const den = await startDen(api, { baseUrl: 'https://den.example.com' });
    dens.push(den);
    const page = await profileOf(den);
    expect(page).to.contain('<code id="cli-install">curl -fsSL https://den.example.com/cli/install.sh | sh</code>');
    expect(page).to.contain('data-copy="curl -fsSL https://den.example.com/cli/install.sh | sh"');
    expect(page).to.contain('<code id="cli-npm">npm install -g https://den.example.com/cli/den.tgz</code>');
    expect(page).to.contain('It needs Node.js 22 or newer.');
  });

  it('escapes the base URL in the line and in the copy button', async () => {
    const den = await startDen(api, { baseUrl: 'https://den.example.com/a&b"<i>' });
    dens.push(den);
    const page = await profileOf(den);
    expect(page).to.contain('<code id="cli-install">curl -fsSL https://den.example.com/a&amp;b&quot;&lt;i&gt;/cli/install.sh | sh</code>');
    expect(page).to.contain('data-copy="curl -fsSL https://den.example.com/a&amp;b&quot;&lt;i&gt;/cli/install.sh | sh"');
    expect(page).not.to.contain('"<i>');
  });
});
