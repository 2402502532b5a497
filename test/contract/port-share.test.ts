// The rules of a port's share (contract/port-share.ts), read by REST, the page, the CLI's
// server, the webhook and the preview proxy alike: who a level admits, how a change is applied
// to the stored list, and what a stored list the schema never checked is read as.
import { expect } from 'chai';
import { portShareOf, portShareProblem, shareAdmits, sharedPortsOf, withPortShare } from '../../contract/port-share.js';

describe('port share rules', () => {
  it('admits signed-in people to an authenticated port, only the named to a people port, and anyone to a public port only where public ports are allowed', () => {
    const bob = { userspace: 'bob' };
    expect(shareAdmits({ level: 'authenticated' }, bob, false)).to.equal(true);
    expect(shareAdmits({ level: 'authenticated' }, undefined, true)).to.equal(false);
    expect(shareAdmits({ level: 'people', people: ['carol'] }, bob, true)).to.equal(false);
    expect(shareAdmits({ level: 'people', people: ['carol', 'bob'] }, bob, false)).to.equal(true);
    expect(shareAdmits({ level: 'public' }, undefined, true)).to.equal(true);
    expect(shareAdmits({ level: 'public' }, undefined, false), 'public where not allowed is served as authenticated').to.equal(false);
    expect(shareAdmits({ level: 'public' }, bob, false)).to.equal(true);
    expect(shareAdmits({ level: 'owner' }, bob, true)).to.equal(false);
  });

  it('replaces a port\'s entry, removes it for owner, and keeps the list sorted by port', () => {
    const stored = [{ port: 8080, level: 'public' }, { port: 3000, level: 'authenticated' }];
    expect(withPortShare(stored, { port: 3000, level: 'people', people: ['carol', 'bob'] })).to.deep.equal([
      { port: 3000, level: 'people', people: ['bob', 'carol'] },
      { port: 8080, level: 'public' },
    ]);
    expect(withPortShare(stored, { port: 8080, level: 'owner', people: [] })).to.deep.equal([{ port: 3000, level: 'authenticated' }]);
    expect(withPortShare(undefined, { port: 1, level: 'authenticated', people: [] })).to.deep.equal([{ port: 1, level: 'authenticated' }]);
  });

  it('reads a stored list the schema never checked defensively: unknown levels and repeats are ignored, the first entry of a port counts', () => {
    const stored = [{ port: 3000, level: 'everyone' }, { port: 3000, level: 'authenticated' }, { port: 3000, level: 'public' }, 'junk', { port: '80', level: 'public' }];
    expect(sharedPortsOf(stored)).to.deep.equal([{ port: 3000, level: 'authenticated' }]);
    expect(portShareOf(stored, 3000)).to.deep.equal({ port: 3000, level: 'authenticated' });
    expect(portShareOf(stored, 80)).to.deep.equal({ port: 80, level: 'owner' });
    expect(sharedPortsOf({ port: 3000 })).to.deep.equal([]);
  });

  it('refuses a share where the install cannot serve it, naming the field and the setting', () => {
    const on = { hostBased: true, allowPublicPorts: false };
    expect(portShareProblem({ port: 3000, level: 'public', people: [] }, on)).to.deep.equal({ field: 'level', message: 'public ports are not allowed on this Den: an administrator must set server.apps.allowPublicPorts: true in the install configuration' });
    expect(portShareProblem({ port: 3000, level: 'authenticated', people: [] }, { hostBased: false, allowPublicPorts: false })?.message).to.match(/^this Den has no host-based previews \(server\.apps\.domain\), and path-based previews, on Den's own origin, serve only the owner/);
    expect(portShareProblem({ port: 3000, level: 'owner', people: [] }, { hostBased: false, allowPublicPorts: false })).to.equal(undefined);
    expect(portShareProblem({ port: 0, level: 'owner', people: [] }, on)).to.deep.equal({ field: 'port', message: 'must be a TCP port, 1 to 65535' });
    expect(portShareProblem({ port: 3000, level: 'people', people: Array.from({ length: 51 }, (_, i) => `p${i}`) }, on)).to.deep.equal({ field: 'people', message: 'at most 50 people' });
  });
});
