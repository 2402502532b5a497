import { expect } from 'chai';
import { RegistryError } from '../../../hooks/registry/provider.js';
import { compileSyncPatterns, selectImages, wantsRepository } from '../../../hooks/registry/select.js';
import type { ImageRegistrySpec, RegistryListing } from '../../../hooks/registry/types.js';

const URI = '111122223333.dkr.ecr.eu-west-1.amazonaws.com';

const listing: RegistryListing = {
  repositories: [
    {
      name: 'team/app',
      uri: `${URI}/team/app`,
      images: [
        { tags: ['1.0'], pushedAt: 1000 },
        { tags: ['1.1', 'stable'], pushedAt: 3000 },
        { tags: ['nightly-7'], pushedAt: 4000 },
        { tags: ['1.2-rc'], pushedAt: 2000 },
      ],
    },
    { name: 'base/ubuntu', uri: `${URI}/base/ubuntu`, images: [{ tags: ['24.04'], pushedAt: 5000 }] },
    { name: 'empty', uri: `${URI}/empty`, images: [] },
  ],
};

function select(sync: ImageRegistrySpec['sync']): string[] {
  const spec: ImageRegistrySpec = { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync };
  return selectImages(listing, spec, compileSyncPatterns(spec)).map((i) => i.reference.slice(URI.length + 1));
}

describe('registry image selection (SPEC 1.6, 2.3)', () => {
  const cases: [string, ImageRegistrySpec['sync'], string[]][] = [
    ['mode latest takes the newest tag of each repository', {}, ['team/app:nightly-7', 'base/ubuntu:24.04']],
    ['tags.limit takes the newest N, newest first', { tags: { limit: 3 } }, ['team/app:nightly-7', 'team/app:1.1', 'team/app:stable', 'base/ubuntu:24.04']],
    ['mode pattern keeps tags matching any pattern', { tags: { mode: 'pattern', patterns: ['^\\d+\\.\\d+$', '^stable$'], limit: 10 } }, ['team/app:1.1', 'team/app:stable', 'team/app:1.0', 'base/ubuntu:24.04']],
    ['mode pattern with limit 1 takes the newest matching tag', { tags: { mode: 'pattern', patterns: ['^\\d+\\.\\d+$'] } }, ['team/app:1.1', 'base/ubuntu:24.04']],
    ['mode pattern without patterns selects nothing', { tags: { mode: 'pattern' } }, []],
    ['include narrows to matching repositories', { include: ['^base/'] }, ['base/ubuntu:24.04']],
    ['exclude wins over include', { include: ['.*'], exclude: ['^team/'] }, ['base/ubuntu:24.04']],
    ['a pattern matches anywhere unless anchored', { include: ['app'] }, ['team/app:nightly-7']],
    ['an anchored pattern must match the whole name', { include: ['^app$'] }, []],
  ];
  for (const [what, sync, expected] of cases) {
    it(what, () => expect(select(sync)).to.deep.equal(expected));
  }

  it('breaks a tie in push time by tag, whatever the listing order', () => {
    const tied: RegistryListing = { repositories: [{ name: 'r', uri: `${URI}/r`, images: [{ tags: ['latest', '2.0'], pushedAt: 10 }] }] };
    const spec: ImageRegistrySpec = { sync: {} };
    expect(selectImages(tied, spec, compileSyncPatterns(spec)).map((i) => i.tag)).to.deep.equal(['2.0']);
  });

  it('refuses a pattern RE2 refuses as InvalidPattern naming the field', () => {
    for (const [sync, field] of [
      [{ include: ['ok', '(unclosed'] }, 'spec.sync.include[1]'],
      [{ exclude: ['(?<=lookbehind)x'] }, 'spec.sync.exclude[0]'],
      [{ tags: { patterns: ['(a)\\1'] } }, 'spec.sync.tags.patterns[0]'],
    ] as [ImageRegistrySpec["sync"], string][]) {
      let error: unknown;
      try {
        compileSyncPatterns({ sync });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(RegistryError);
      expect((error as RegistryError).reason).to.equal('InvalidPattern');
      expect((error as RegistryError).message).to.contain(field);
    }
  });

  it('lets the provider skip repositories before listing their images', () => {
    const patterns = compileSyncPatterns({ sync: { include: ['^team/'], exclude: ['secret'] } });
    expect(['team/app', 'team/secret', 'base/ubuntu'].filter((n) => wantsRepository(patterns, n))).to.deep.equal(['team/app']);
  });
});
