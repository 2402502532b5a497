import { expect } from 'chai';
import { CreateRepositoryCommand, ECRClient, PutImageCommand } from '@aws-sdk/client-ecr';
import { cloudRegistryProvider, ROLE_SESSION_NAME } from '../../../hooks/registry/cloud-registry.js';
import { RegistryError } from '../../../hooks/registry/provider.js';
import { compileSyncPatterns, selectImages, wantsRepository } from '../../../hooks/registry/select.js';
import type { ImageRegistrySpec } from '../../../hooks/registry/types.js';
import { fakeAwsEnvironment, FakeEcr, useAwsEnvironment } from '../../support/fake-ecr.js';
import { startMoto, type Moto } from '../../support/moto.js';

interface SeedRepo {
  name: string;
  /** Oldest first; an empty tag list is an untagged image. */
  images: string[][];
}

interface Backend {
  name: string;
  /** The account the test credentials belong to. */
  account: string;
  seed(repos: SeedRepo[]): Promise<void>;
  reset(): Promise<void>;
  env(): Record<string, string | undefined>;
}

const ACCOUNT = '111122223333';
const OTHER_ACCOUNT = '444455556666';

function fakeBackend(fake: FakeEcr): Backend {
  return {
    name: 'the loopback ECR fake',
    account: ACCOUNT,
    async seed(repos) {
      for (const repo of repos) fake.putRepository(ACCOUNT, repo.name, repo.images.map((tags, i) => ({ tags, pushedAt: 1_750_000_000 + i * 60 })));
    },
    async reset() {
      fake.clear();
    },
    env: () => fakeAwsEnvironment(fake.url, 'AKIDDENTEST'),
  };
}

function motoBackend(moto: Moto): Backend {
  const client = () => new ECRClient({ region: 'eu-west-1', endpoint: moto.url, credentials: { accessKeyId: 'AKIDMOTO', secretAccessKey: 'x' } });
  let n = 0;
  return {
    name: 'moto_server',
    account: '123456789012',
    async seed(repos) {
      const ecr = client();
      for (const repo of repos) await ecr.send(new CreateRepositoryCommand({ repositoryName: repo.name }));
      const rounds = Math.max(...repos.map((r) => r.images.length));
      for (let round = 0; round < rounds; round++) {
        // moto stamps imagePushedAt in whole seconds: one second between rounds orders them.
        if (round > 0) await new Promise((ok) => setTimeout(ok, 1100));
        for (const repo of repos) {
          const tags = repo.images[round];
          if (!tags) continue;
          const digest = `sha256:${(++n).toString(16).padStart(64, '0')}`;
          const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 1, digest }, layers: [] });
          if (tags.length === 0) await ecr.send(new PutImageCommand({ repositoryName: repo.name, imageManifest: manifest }));
          for (const tag of tags) await ecr.send(new PutImageCommand({ repositoryName: repo.name, imageManifest: manifest, imageTag: tag }));
        }
      }
      ecr.destroy();
    },
    reset: () => moto.reset(),
    env: () => fakeAwsEnvironment(moto.url, 'AKIDMOTO'),
  };
}

function spec(sync: ImageRegistrySpec['sync'] = {}, cloud: ImageRegistrySpec['cloud'] = {}): ImageRegistrySpec {
  return { provider: 'cloud-registry', cloud: { region: 'eu-west-1', ...cloud }, sync };
}

async function listAndSelect(s: ImageRegistrySpec, opts: { signal?: AbortSignal; maxAttempts?: number } = {}) {
  const patterns = compileSyncPatterns(s);
  const listing = await cloudRegistryProvider({ maxAttempts: opts.maxAttempts ?? 1 }).list({
    spec: s,
    wantsRepository: (name) => wantsRepository(patterns, name),
    signal: opts.signal ?? new AbortController().signal,
  });
  return { listing, selected: selectImages(listing, s, patterns).map((i) => `${i.repository}:${i.tag}`).sort(), references: selectImages(listing, s, patterns).map((i) => i.reference) };
}

async function failureOf(promise: Promise<unknown>): Promise<RegistryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(RegistryError);
    return err as RegistryError;
  }
  throw new Error('the listing succeeded');
}

const CATALOG: SeedRepo[] = [
  { name: 'team/app', images: [['1.0'], [], ['1.1'], ['1.2', 'stable']] },
  { name: 'team/tools', images: [['v1'], ['v2']] },
  { name: 'base/ubuntu', images: [['22.04'], ['24.04']] },
  { name: 'scratch/junk', images: [[]] },
];

function sharedCases(backend: () => Backend): void {
  let restore: () => void;
  before(async function seedCatalog() {
    this.timeout(30_000);
    restore = useAwsEnvironment(backend().env());
    await backend().reset();
    await backend().seed(CATALOG);
  });
  after(() => restore());

  it('lists every repository with its tagged images and the pullable reference the API gives', async () => {
    const { listing, references } = await listAndSelect(spec({ tags: { limit: 10 } }));
    expect(listing.repositories.map((r) => r.name).sort()).to.deep.equal(['base/ubuntu', 'scratch/junk', 'team/app', 'team/tools']);
    expect(listing.repositories.find((r) => r.name === 'scratch/junk')!.images).to.deep.equal([]);
    expect(references).to.include(`${backend().account}.dkr.ecr.eu-west-1.amazonaws.com/team/app:1.1`);
  });

  it('takes the newest tag by push time in mode latest and ignores untagged images', async () => {
    const { selected } = await listAndSelect(spec());
    expect(selected).to.deep.equal(['base/ubuntu:24.04', 'team/app:1.2', 'team/tools:v2']);
  });

  it('takes the newest N tags with tags.limit', async () => {
    const { selected } = await listAndSelect(spec({ tags: { limit: 3 } }));
    expect(selected).to.deep.equal(['base/ubuntu:22.04', 'base/ubuntu:24.04', 'team/app:1.1', 'team/app:1.2', 'team/app:stable', 'team/tools:v1', 'team/tools:v2']);
  });

  it('keeps only tags matching a pattern in mode pattern', async () => {
    const { selected } = await listAndSelect(spec({ tags: { mode: 'pattern', patterns: ['^\\d+\\.\\d+$'], limit: 5 } }));
    expect(selected).to.deep.equal(['base/ubuntu:22.04', 'base/ubuntu:24.04', 'team/app:1.0', 'team/app:1.1', 'team/app:1.2']);
  });

  it('lets exclude win over include, and an empty include take every repository', async () => {
    expect((await listAndSelect(spec({ include: ['^team/'], exclude: ['tools$'] }))).selected).to.deep.equal(['team/app:1.2']);
    expect((await listAndSelect(spec({ exclude: ['^team/'] }))).selected).to.deep.equal(['base/ubuntu:24.04']);
  });

  it('assumes spec.cloud.roleArn through STS before listing', async () => {
    const { selected } = await listAndSelect(spec({}, { roleArn: `arn:aws:iam::${backend().account}:role/den-catalog` }));
    expect(selected).to.deep.equal(['base/ubuntu:24.04', 'team/app:1.2', 'team/tools:v2']);
  });
}

describe('cloud-registry provider', () => {
  describe('against the loopback ECR fake', () => {
    let fake: FakeEcr;
    before(async () => {
      fake = await new FakeEcr({ accounts: { AKIDDENTEST: ACCOUNT } }).start();
    });
    after(() => fake.stop());

    describe('the cases shared with moto_server', () => sharedCases(() => fakeBackend(fake)));

    describe('what only the fake can show', () => {
      let restore: () => void;
      beforeEach(() => {
        restore = useAwsEnvironment(fakeAwsEnvironment(fake.url, 'AKIDDENTEST'));
        fake.calls.length = 0;
        fake.clear();
      });
      afterEach(() => restore());

      it('follows nextToken through every page of repositories and images', async () => {
        const paged = await new FakeEcr({ accounts: { AKIDDENTEST: ACCOUNT }, maxPage: 2 }).start();
        const back = useAwsEnvironment(fakeAwsEnvironment(paged.url, 'AKIDDENTEST'));
        try {
          for (let r = 0; r < 5; r++) paged.putRepository(ACCOUNT, `r${r}`, Array.from({ length: 5 }, (_, i) => ({ tags: [`t${i}`], pushedAt: 1_750_000_000 + i })));
          const { listing, selected } = await listAndSelect(spec({ tags: { limit: 5 } }));
          expect(listing.repositories).to.have.length(5);
          expect(selected).to.have.length(25);
          expect(paged.callsOf('DescribeRepositories')).to.have.length(3);
          expect(paged.callsOf('DescribeImages')).to.have.length(15);
          expect(paged.callsOf('DescribeImages').every((c) => (c.body.filter as { tagStatus?: string }).tagStatus === 'TAGGED')).to.equal(true);
        } finally {
          back();
          await paged.stop();
        }
      });

      it('asks for images only of the repositories the patterns let through', async () => {
        await fakeBackend(fake).seed(CATALOG);
        await listAndSelect(spec({ include: ['^team/app$'] }));
        expect(fake.callsOf('DescribeImages').map((c) => c.body.repositoryName)).to.deep.equal(['team/app']);
      });

      it('lists the account named by registryId, and the credentials\' own account when it is empty', async () => {
        fake.putRepository(OTHER_ACCOUNT, 'shared/base', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
        fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['own'], pushedAt: 1_750_000_000 }]);
        expect((await listAndSelect(spec({}, { registryId: OTHER_ACCOUNT }))).references).to.deep.equal([`${OTHER_ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com/shared/base:1`]);
        expect((await listAndSelect(spec())).references).to.deep.equal([`${ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com/team/app:own`]);
        expect(fake.callsOf('DescribeRepositories').map((c) => c.body.registryId ?? '')).to.deep.equal([OTHER_ACCOUNT, '']);
      });

      it('signs the listing with the assumed role\'s temporary key, not the ambient one', async () => {
        fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
        const roleArn = `arn:aws:iam::${ACCOUNT}:role/den-catalog`;
        await listAndSelect(spec({}, { roleArn }));
        const [assume] = fake.callsOf('AssumeRole');
        expect(assume!.body).to.include({ RoleArn: roleArn, RoleSessionName: ROLE_SESSION_NAME });
        expect(assume!.accessKeyId).to.equal('AKIDDENTEST');
        const temporary = fake.assumed.get(roleArn);
        expect(temporary).to.match(/^ASIA/);
        expect(fake.callsOf('DescribeRepositories').map((c) => c.accessKeyId)).to.deep.equal([temporary]);
      });

      const failures: { what: string; operation: string; type: string; reason: string; roleArn?: string }[] = [
        { what: 'throttling', operation: 'DescribeRepositories', type: 'ThrottlingException', reason: 'Throttled' },
        { what: 'access denied', operation: 'DescribeRepositories', type: 'AccessDeniedException', reason: 'AccessDenied' },
        { what: 'throttling of one repository\'s images', operation: 'DescribeImages', type: 'ThrottlingException', reason: 'Throttled' },
        { what: 'expired credentials', operation: 'DescribeImages', type: 'ExpiredTokenException', reason: 'ExpiredCredentials' },
        { what: 'a role that may not be assumed', operation: 'AssumeRole', type: 'AccessDenied', reason: 'AccessDenied', roleArn: `arn:aws:iam::${ACCOUNT}:role/nope` },
      ];
      for (const f of failures) {
        it(`reports ${f.what} as ${f.reason}, with the service's message and no secret`, async () => {
          fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
          fake.fail({ operation: f.operation, type: f.type, message: `${f.type}: not today`, times: 1 });
          const err = await failureOf(listAndSelect(spec({}, f.roleArn ? { roleArn: f.roleArn } : {})));
          expect(err.reason).to.equal(f.reason);
          expect(err.message).to.contain('not today');
          expect(err.message).not.to.contain('fake-secret-for-tests');
        });
      }

      it('lets the SDK retry a throttled call with backoff when attempts allow', async () => {
        fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
        fake.fail({ operation: 'DescribeRepositories', type: 'ThrottlingException', times: 1 });
        const { selected } = await listAndSelect(spec(), { maxAttempts: 3 });
        expect(selected).to.deep.equal(['team/app:1']);
        expect(fake.callsOf('DescribeRepositories')).to.have.length(2);
      });

      it('skips a repository deleted between the two listings', async () => {
        fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
        fake.putRepository(ACCOUNT, 'base/ubuntu', [{ tags: ['24.04'], pushedAt: 1_750_000_000 }]);
        fake.fail({ operation: 'DescribeImages', type: 'RepositoryNotFoundException', times: 1 });
        const { listing } = await listAndSelect(spec());
        expect(listing.repositories).to.have.length(1);
      });

      it('reports an endpoint nobody answers as Unreachable', async () => {
        const back = useAwsEnvironment({ AWS_ENDPOINT_URL_ECR: 'http://127.0.0.1:9' });
        try {
          expect((await failureOf(listAndSelect(spec()))).reason).to.equal('Unreachable');
        } finally {
          back();
        }
      });

      it('reports a region without an endpoint as UnknownRegion', async () => {
        const back = useAwsEnvironment({ AWS_ENDPOINT_URL_ECR: undefined });
        try {
          const nowhere = await failureOf(listAndSelect(spec({}, { region: 'xx-nowhere-9' })));
          expect(nowhere.reason).to.equal('UnknownRegion');
          expect(nowhere.message).to.contain("'xx-nowhere-9'");
          expect((await failureOf(listAndSelect(spec({}, { region: 'not a region' })))).reason).to.equal('UnknownRegion');
        } finally {
          back();
        }
      });

      it('abandons a listing when its signal aborts, as TimedOut', async () => {
        fake.putRepository(ACCOUNT, 'team/app', [{ tags: ['1'], pushedAt: 1_750_000_000 }]);
        fake.delays.set(ACCOUNT, 2000);
        try {
          const err = await failureOf(listAndSelect(spec(), { signal: AbortSignal.timeout(100) }));
          expect(err.reason).to.equal('TimedOut');
        } finally {
          fake.delays.delete(ACCOUNT);
        }
      });
    });
  });

  describe('against moto_server, where the machine has it', function () {
    this.timeout(60_000);
    let moto: Moto | undefined;
    before(async function () {
      moto = await startMoto();
      if (!moto) {
        // eslint-disable-next-line no-console
        console.log('      moto_server is not installed: these cases ran against the loopback fake only');
      }
    });
    after(async () => {
      await moto?.stop();
    });
    describe('the cases shared with the loopback fake', () => {
      let backend: Backend | undefined;
      before(function () {
        if (!moto) return this.skip();
        backend = motoBackend(moto);
      });
      sharedCases(() => backend!);
    });
  });
});
