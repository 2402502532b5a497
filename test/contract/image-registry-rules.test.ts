import { expect } from 'chai';
import { imageRegistryViolations } from '../../contract/image-registry-rules.js';
import { reviewImageRegistry } from '../../hooks/admission/webhooks.js';
import { createImageRegistryRequest } from '../../server/api/schemas.js';

const base = { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } };

/** Each rule of SPEC 2.3 and 8 as the object says it and as REST's request says it. */
const RE2_WORDS = /^This is not a regular expression Den can use \(.+\)\. Den reads patterns as RE2, which has no lookahead, lookbehind or backreferences: rewrite it, such as \^team\/\.\*\$\.$/;
const RULES: { rule: string; spec: Record<string, unknown>; field: string; rest: Record<string, unknown>; restField: string; advice: string | RegExp }[] = [
  { rule: 'include is RE2', spec: { ...base, sync: { include: ['(unclosed'] } }, field: 'spec.sync.include[0]', rest: { include: ['(unclosed'] }, restField: 'include[0]', advice: RE2_WORDS },
  { rule: 'exclude is RE2', spec: { ...base, sync: { exclude: ['ok', '(?!lookahead)'] } }, field: 'spec.sync.exclude[1]', rest: { exclude: ['ok', '(?!lookahead)'] }, restField: 'exclude[1]', advice: RE2_WORDS },
  { rule: 'tag patterns are RE2', spec: { ...base, sync: { tags: { patterns: ['(a)\\1'] } } }, field: 'spec.sync.tags.patterns[0]', rest: { tag_patterns: ['(a)\\1'] }, restField: 'tag_patterns[0]', advice: RE2_WORDS },
  { rule: 'intervalSeconds is at least 60', spec: { ...base, sync: { intervalSeconds: 59 } }, field: 'spec.sync.intervalSeconds', rest: { interval_seconds: 59 }, restField: 'interval_seconds', advice: 'Den syncs a registry at most once a minute: give 60 seconds or more (900 when left out).' },
  { rule: 'tags.limit is at least 1', spec: { ...base, sync: { tags: { limit: 0 } } }, field: 'spec.sync.tags.limit', rest: { tag_limit: 0 }, restField: 'tag_limit', advice: 'The number of tags kept is at least 1: give 1 or more.' },
  { rule: 'region is at most 32 characters', spec: { ...base, cloud: { region: 'r'.repeat(33) } }, field: 'spec.cloud.region', rest: { region: 'r'.repeat(33) }, restField: 'region', advice: 'The region is at most 32 characters, and this one has 33: check what was pasted.' },
  { rule: 'registryId is at most 12 characters', spec: { ...base, cloud: { region: 'eu-west-1', registryId: '1'.repeat(13) } }, field: 'spec.cloud.registryId', rest: { registry_id: '1'.repeat(13) }, restField: 'registry_id', advice: 'The account id is at most 12 characters, and this one has 13: check what was pasted.' },
  { rule: 'roleArn is at most 2048 characters', spec: { ...base, cloud: { region: 'eu-west-1', roleArn: 'a'.repeat(2049) } }, field: 'spec.cloud.roleArn', rest: { role_arn: 'a'.repeat(2049) }, restField: 'role_arn', advice: 'The role ARN is at most 2048 characters, and this one has 2049: check what was pasted.' },
];

/** The rules REST's request shape cannot express (its fields are typed), as only an object can break them. */
const OBJECT_ONLY: { rule: string; spec: unknown; field: string; advice: string }[] = [
  { rule: 'a spec is required', spec: undefined, field: 'spec', advice: 'An image registry needs its settings (spec): the provider, and what to sync.' },
  { rule: 'a cloud registry needs cloud', spec: { provider: 'cloud-registry' }, field: 'spec.cloud', advice: 'A cloud registry needs its cloud settings: give at least its region, such as us-east-1.' },
  { rule: 'a region is required', spec: { provider: 'cloud-registry', cloud: {} }, field: 'spec.cloud.region', advice: 'Give the region the registry is in, such as us-east-1.' },
  { rule: 'a region is text', spec: { ...base, cloud: { region: 'eu-west-1', roleArn: 7 } }, field: 'spec.cloud.roleArn', advice: 'The role ARN is text: write it as such.' },
  { rule: 'an interval is whole', spec: { ...base, sync: { intervalSeconds: 90.5 } }, field: 'spec.sync.intervalSeconds', advice: 'The sync interval is a whole number. Den syncs a registry at most once a minute: give 60 seconds or more (900 when left out).' },
  { rule: 'patterns are a list', spec: { ...base, sync: { include: '^team/' } }, field: 'spec.sync.include', advice: 'Patterns are a list of regular expressions, one per entry, such as ^team/.*$.' },
  { rule: 'a pattern is text', spec: { ...base, sync: { exclude: [1] } }, field: 'spec.sync.exclude[0]', advice: 'Each pattern is a regular expression written as text, such as ^team/.*$.' },
  { rule: 'a tag mode is latest or pattern', spec: { ...base, sync: { tags: { mode: 'newest' } } }, field: 'spec.sync.tags.mode', advice: "Choose latest (each repository's newest tag) or pattern (the tags matching the tag patterns)." },
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

/** The field's cause carries the administrator's words (what happened, what to do), not the Status message again. */
function expectAdvice(causes: { field: string; message: string }[] | undefined, field: string, advice: string | RegExp): void {
  expect(causes?.map((c) => c.field)).to.deep.equal([field]);
  if (typeof advice === 'string') expect(causes![0]!.message).to.equal(advice);
  else expect(causes![0]!.message).to.match(advice);
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
        expectAdvice(response.status?.details?.causes, r.field, r.advice);
      }
      expect(await restError(r.rest)).to.contain(r.restField);
    });
  }

  for (const r of OBJECT_ONLY) {
    it(`${r.rule}: the webhook denies naming ${r.field}, with words for the administrator beside it`, () => {
      const response = review(r.spec as Record<string, unknown>);
      expect(response.status?.code).to.equal(422);
      expect(response.status?.message).to.match(new RegExp(`^${r.field.replace(/[.[\]]/g, '\\$&')}: `));
      expectAdvice(response.status?.details?.causes, r.field, r.advice);
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
