import { expect } from 'chai';
import { imageRegistryViolations } from '../../contract/image-registry-rules.js';
import { reviewImageRegistry } from '../../hooks/admission/webhooks.js';
import { createImageRegistryRequest } from '../../server/api/schemas.js';

const base = { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } };

/** Each rule of SPEC 2.3 and 8 as the object says it and as REST's request says it. */
const RULES: { rule: string; spec: Record<string, unknown>; field: string; rest: Record<string, unknown>; restField: string }[] = [
  { rule: 'include is RE2', spec: { ...base, sync: { include: ['(unclosed'] } }, field: 'spec.sync.include[0]', rest: { include: ['(unclosed'] }, restField: 'include[0]' },
  { rule: 'exclude is RE2', spec: { ...base, sync: { exclude: ['ok', '(?!lookahead)'] } }, field: 'spec.sync.exclude[1]', rest: { exclude: ['ok', '(?!lookahead)'] }, restField: 'exclude[1]' },
  { rule: 'tag patterns are RE2', spec: { ...base, sync: { tags: { patterns: ['(a)\\1'] } } }, field: 'spec.sync.tags.patterns[0]', rest: { tag_patterns: ['(a)\\1'] }, restField: 'tag_patterns[0]' },
  { rule: 'intervalSeconds is at least 60', spec: { ...base, sync: { intervalSeconds: 59 } }, field: 'spec.sync.intervalSeconds', rest: { interval_seconds: 59 }, restField: 'interval_seconds' },
  { rule: 'tags.limit is at least 1', spec: { ...base, sync: { tags: { limit: 0 } } }, field: 'spec.sync.tags.limit', rest: { tag_limit: 0 }, restField: 'tag_limit' },
  { rule: 'region is at most 32 characters', spec: { ...base, cloud: { region: 'r'.repeat(33) } }, field: 'spec.cloud.region', rest: { region: 'r'.repeat(33) }, restField: 'region' },
  { rule: 'registryId is at most 12 characters', spec: { ...base, cloud: { region: 'eu-west-1', registryId: '1'.repeat(13) } }, field: 'spec.cloud.registryId', rest: { registry_id: '1'.repeat(13) }, restField: 'registry_id' },
  { rule: 'roleArn is at most 2048 characters', spec: { ...base, cloud: { region: 'eu-west-1', roleArn: 'a'.repeat(2049) } }, field: 'spec.cloud.roleArn', rest: { role_arn: 'a'.repeat(2049) }, restField: 'role_arn' },
];

function review(spec: Record<string, unknown>, operation: 'CREATE' | 'UPDATE' = 'CREATE') {
  return reviewImageRegistry({
    uid: 'u1',
    kind: { group: 'den.dev', version: 'v1alpha1', kind: 'ImageRegistry' },
    operation,
    userInfo: { username: 'carol' },
    object: { apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name: 'ecr' }, spec },
  });
}

async function restError(body: Record<string, unknown>): Promise<string | undefined> {
  try {
    await createImageRegistryRequest.validate({ name: 'ecr', region: 'eu-west-1', ...body }, { abortEarly: false });
    return undefined;
  } catch (err) {
    return (err as Error).message + ' ' + ((err as { errors?: string[] }).errors ?? []).join(' ');
  }
}

describe('ImageRegistry rules (SPEC 2.3, 8): one home, read by the webhook and by REST', () => {
  for (const r of RULES) {
    it(`${r.rule}: the webhook denies naming ${r.field}, REST refuses naming ${r.restField}`, async () => {
      expect(imageRegistryViolations(r.spec).map((v) => v.field)).to.deep.equal([r.field]);
      for (const operation of ['CREATE', 'UPDATE'] as const) {
        const response = review(r.spec, operation);
        expect(response.allowed).to.equal(false);
        expect(response.status?.code).to.equal(422);
        expect(response.status?.message).to.match(new RegExp(`^${r.field.replace(/[.[\]]/g, '\\$&')}: `));
      }
      expect(await restError(r.rest)).to.contain(r.restField);
    });
  }

  it('lets a valid registry through both', async () => {
    const spec = { ...base, cloud: { region: 'eu-west-1', registryId: '111122223333', roleArn: 'arn:aws:iam::111122223333:role/x' }, sync: { intervalSeconds: 60, include: ['^team/'], exclude: ['tmp$'], tags: { mode: 'pattern', patterns: ['^v\\d+$'], limit: 1 }, prune: true } };
    expect(imageRegistryViolations(spec)).to.deep.equal([]);
    expect(review(spec).allowed).to.equal(true);
    expect(await restError({ registry_id: '111122223333', interval_seconds: 60, include: ['^team/'], tag_mode: 'pattern', tag_patterns: ['^v\\d+$'], tag_limit: 1 })).to.equal(undefined);
  });

  it('names every broken field at once', () => {
    const fields = imageRegistryViolations({ provider: 'cloud-registry', sync: { intervalSeconds: 1, include: ['('], tags: { mode: 'newest', limit: 0 } } }).map((v) => v.field);
    expect(fields).to.deep.equal(['spec.cloud', 'spec.sync.intervalSeconds', 'spec.sync.include[0]', 'spec.sync.tags.mode', 'spec.sync.tags.limit']);
  });

  it('refuses a review of another kind as a misconfiguration', () => {
    const response = reviewImageRegistry({ uid: 'u', kind: { group: 'den.dev', version: 'v1alpha1', kind: 'Workspace' }, operation: 'CREATE', userInfo: { username: 'x' }, object: {} });
    expect(response.allowed).to.equal(false);
    expect(response.status?.message).to.contain('check the webhook configuration');
  });
});
