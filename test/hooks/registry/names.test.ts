import { expect } from 'chai';
import { entryName } from '../../../hooks/registry/names.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('entryName', () => {
  it('reads as registry, repository and tag, followed by a hash', () => {
    expect(entryName('ecr', 'team/app', '1.2')).to.match(/^ecr-team-app-1-2-[0-9a-f]{12}$/);
  });

  it('gives the same name for the same triple every time', () => {
    expect(entryName('ecr', 'team/app', 'v1')).to.equal(entryName('ecr', 'team/app', 'v1'));
  });

  it('keeps triples apart whose readable forms fold together', () => {
    const names = [
      entryName('ecr', 'team/app', '1.2'),
      entryName('ecr', 'team/app', '1-2'),
      entryName('ecr', 'team-app', '1.2'),
      entryName('ecr', 'Team/App', '1.2'),
      entryName('ecr2', 'team/app', '1.2'),
      entryName('ecr', 'team/app1', '.2'),
    ];
    expect(new Set(names).size).to.equal(names.length);
  });

  it('is a valid DNS label (so a subdomain) for long and odd repositories and tags', () => {
    const cases: [string, string, string][] = [
      ['ecr', `${'very-long-path/'.repeat(15)}image`, `${'T'.repeat(128)}`],
      ['r', '___/...', '__'],
      ['ecr', 'a'.repeat(256), 'b'.repeat(128)],
      ['ecr', 'x', '-'],
    ];
    for (const [registry, repository, tag] of cases) {
      const name = entryName(registry, repository, tag);
      expect(name, `${repository}:${tag}`).to.match(DNS_LABEL);
      expect(name.length).to.be.at.most(63);
    }
    expect(entryName('ecr', 'a'.repeat(256), 'b'.repeat(128))).not.to.equal(entryName('ecr', 'a'.repeat(256), 'b'.repeat(127)));
  });
});
