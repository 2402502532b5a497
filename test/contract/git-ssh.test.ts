import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { hostOfKeyPart, knownHostName, knownHostsLine, parseKnownHost, privateKeyProblem, publicLineOf, sshKeyName, type KnownHostKey } from '../../contract/git-ssh.js';
import { generateHostKey } from '../../ssh/host-key.js';

const hostKey = generateHostKey('host').publicKey.split(' ').slice(0, 2).join(' ');

describe("a person's SSH key and known host for a git host (contract/git-ssh.ts)", () => {
  it('names the Secret keys after the host, a port as _port, and reads the host back', () => {
    expect([sshKeyName('github.com'), knownHostName('git.example.com:2222')]).to.deep.equal(['ssh-key.github.com', 'ssh-known-host.git.example.com_2222']);
    expect(hostOfKeyPart('git.example.com_2222')).to.equal('git.example.com:2222');
  });

  it('takes an unencrypted private key and answers its public half', () => {
    const key = generateHostKey('me');
    expect(privateKeyProblem(key.privateKey)).to.equal(undefined);
    expect(publicLineOf(key.privateKey)).to.equal(key.publicKey.split(' ').slice(0, 2).join(' '));
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    expect(privateKeyProblem(pem)).to.equal(undefined);
  });

  it('refuses a key protected by a passphrase in PKCS#8 and in PEM\'s Proc-Type form, as in OpenSSH\'s', () => {
    const encrypted = (type: 'pkcs1' | 'pkcs8') => generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type, format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    for (const text of [encrypted('pkcs8'), encrypted('pkcs1')]) expect(privateKeyProblem(text)).to.match(/^ssh_private_key is protected by a passphrase, and Den cannot type one/);
  });

  it('reads one ssh-keyscan line with or without the host, a comment, a port in brackets or a hashed name, and keeps it naming the host', () => {
    const read = (line: string, host: string) => {
      const key = parseKnownHost(line, host);
      return typeof key === 'string' ? key : knownHostsLine(host, key as KnownHostKey);
    };
    expect(read(`github.com ${hostKey} a comment`, 'github.com')).to.equal(`github.com ${hostKey}`);
    expect(read(hostKey, 'github.com')).to.equal(`github.com ${hostKey}`);
    expect(read(`# a comment\n[git.example.com]:2222,[10.0.0.5]:2222 ${hostKey}\n`, 'git.example.com:2222')).to.equal(`[git.example.com]:2222 ${hostKey}`);
    expect(read(`|1|c2FsdA==|aGFzaA== ${hostKey}`, 'github.com')).to.equal(`github.com ${hostKey}`);
    expect(read(`[github.com]:22 ${hostKey}`, 'github.com')).to.equal(`github.com ${hostKey}`);
    expect(read(`gitlab.com ${hostKey}`, 'github.com')).to.equal('ssh_known_host is the key of gitlab.com, not of github.com: give the line ssh-keyscan prints for github.com');
    expect(read('', 'git.example.com:2222')).to.equal('ssh_known_host is empty: give one line of "ssh-keyscan -p 2222 git.example.com" (the host\'s public key), so Den can tell the real git.example.com:2222 from an impostor');
  });
});
