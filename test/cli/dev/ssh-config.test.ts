// The block den config-ssh owns in someone's OpenSSH config, as pure functions.
import { expect } from 'chai';
import { beginMarker, BlockError, endMarker, lineDiff, placeBlock, renderBlock, sshHosts } from '../../../cli/dev/ssh-config.js';

const block = (hosts: string) => `${beginMarker('den')}\n${hosts}${endMarker('den')}\n`;

describe('den config-ssh block', () => {
  it('is appended after a blank line to a file without one, the file ending in a newline or not', () => {
    expect(placeBlock('', 'den', block('A\n'))).to.equal(block('A\n'));
    expect(placeBlock('Host x\n', 'den', block('A\n'))).to.equal(`Host x\n\n${block('A\n')}`);
    expect(placeBlock('Host x', 'den', block('A\n'))).to.equal(`Host x\n\n${block('A\n')}`);
  });

  it('replaces only its own block, leaving every byte around it', () => {
    const before = 'Host a\r\n\tUser me  \n\n';
    const after = '\n# mine\nHost *\n  ServerAliveInterval 30';
    expect(placeBlock(before + block('OLD\n') + after, 'den', block('NEW\n'))).to.equal(before + block('NEW\n') + after);
  });

  it("leaves another deployment's block alone", () => {
    const other = `${beginMarker('work')}\nW\n${endMarker('work')}\n`;
    expect(placeBlock(other + block('OLD\n'), 'den', block('NEW\n'))).to.equal(other + block('NEW\n'));
  });

  it('refuses a begin line without its end, or two blocks, instead of guessing', () => {
    expect(() => placeBlock(`${beginMarker('den')}\nHost x\n`, 'den', block('A\n'))).to.throw(BlockError, 'the file holds 1 begin and 0 end lines');
    expect(() => placeBlock(block('A\n') + block('B\n'), 'den', block('C\n'))).to.throw(BlockError, 'the file holds 2 begin and 2 end lines');
    expect(() => placeBlock(`${endMarker('den')}\n${beginMarker('den')}\n`, 'den', block('C\n'))).to.throw(BlockError);
  });

  it('has one Host per workspace, named <workspace>.<context>, through the host of status.endpoint', () => {
    const hosts = sshHosts(
      [
        { metadata: { name: 'web' }, status: { endpoint: 'web@ssh.example.com' } },
        { metadata: { name: 'dev' } },
      ],
      'corp',
      { host: 'den.example.com', port: 2222 },
    );
    expect(hosts).to.deep.equal([
      { alias: 'dev.corp', hostName: 'den.example.com', port: 2222, user: 'dev' },
      { alias: 'web.corp', hostName: 'ssh.example.com', port: 2222, user: 'web' },
    ]);
    expect(renderBlock('corp', 'https://den.example.com', hosts.slice(0, 1), '/home/a b/.ssh/id_ed25519')).to.include('  IdentityFile "/home/a b/.ssh/id_ed25519"\n');
  });

  it('shows a change as the removed and added lines', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\n')).to.equal('@@ line 2 @@\n-b\n+B\n');
    expect(lineDiff('same', 'same')).to.equal('');
  });
});
