import { expect } from 'chai';
import { cloneDirectory, repositoryName, sourceViolations, sshRemoteOf } from '../../contract/workspace-source.js';

const urlProblems = (url: string) => sourceViolations({ git: { url } }).map((v) => v.message);

describe('the spec.source.git.url rule for SSH addresses (contract/workspace-source.ts)', () => {
  it('reads both forms of an SSH address as the user, host (with a port other than 22), and the path git-upload-pack is given', () => {
    expect(sshRemoteOf('git@github.com:team/api.git')).to.deep.equal({ user: 'git', hostname: 'github.com', port: 22, host: 'github.com', path: 'team/api.git' });
    expect(sshRemoteOf('ssh://forgejo@Git.Example.com:2222/team/api.git')).to.deep.equal({ user: 'forgejo', hostname: 'git.example.com', port: 2222, host: 'git.example.com:2222', path: '/team/api.git' });
    expect(sshRemoteOf('ssh://git.example.com:22/team/api.git')).to.deep.equal({ user: 'git', hostname: 'git.example.com', port: 22, host: 'git.example.com', path: '/team/api.git' });
    expect(sshRemoteOf('https://github.com/team/api.git')).to.equal(undefined);
  });

  it('names the clone folder after an SSH address\'s repository', () => {
    expect(repositoryName('git@github.com:team/api.git')).to.equal('api');
    expect(repositoryName('ssh://git@git.example.com:2222/team/tool')).to.equal('tool');
    expect(cloneDirectory({ url: 'git@github.com:api.git' })).to.equal('api');
  });

  it('admits sound SSH addresses and refuses a password, a bad port, a missing repository or an unreadable form in words', () => {
    expect(urlProblems('git@github.com:team/api.git')).to.deep.equal([]);
    expect(urlProblems('ssh://git@git.example.com:2222/team/api.git')).to.deep.equal([]);
    expect(urlProblems('ssh://git:hunter2@github.com/team/api.git')).to.deep.equal(['must not carry a password: the Workspace is readable by anyone who can read your namespace']);
    expect(urlProblems('ssh://git@github.com:99999/team/api.git')[0]).to.equal('"ssh://git@github.com:99999/team/api.git" names no host Den can connect to ("github.com:99999"): a host name with an optional port 1-65535');
    expect(urlProblems('git@github.com:')[0]).to.equal('"git@github.com:" names no repository on github.com (its path is empty, starts with "-" or holds control characters)');
    expect(urlProblems('ssh://git@github.com:22/--upload-pack=x')[0]).to.match(/names no repository on github\.com/);
    expect(urlProblems('ssh://github.com')[0]).to.equal('"ssh://github.com" is not an SSH URL Den can read (ssh://[user@]host[:port]/path or user@host:path)');
    expect(urlProblems('ftp://git.example.com/api.git')[0]).to.equal('"ftp://git.example.com/api.git" uses ftp; only https (or http) and SSH URLs can be cloned');
  });
});
