// The request bodies the OpenAPI description states are generated from the checks REST makes
// (server/api/openapi-requests.ts): the same bodies, fed to REST's check and to the published
// schema, are accepted or refused alike.
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { AnyObjectSchema } from 'yup';
import { requestBodySchema } from '../../../server/api/openapi-requests.js';
import { createImageRegistryRequest, createWorkspaceImageRequest, createWorkspaceRequest, quotaRequest, userSpaceRequest } from '../../../server/api/schemas.js';
import { localUserRequest } from '../../../server/api/account-schemas.js';
import { HttpError } from '../../../koa/errors.js';
import { validate } from '../../../server/http/validate.js';
import { doc } from './openapi-check.js';
import { KEY } from './support.js';

const ajv = new Ajv({ strict: false, validateFormats: false });
ajv.addSchema(doc, 'openapi-requests');

function restAccepts(schema: AnyObjectSchema, body: unknown): boolean {
  try {
    validate(schema, body);
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return false;
    throw err;
  }
}

const WORKSPACE = { name: 'dev', image: 'ubuntu', storage: '10Gi', ssh_public_key: KEY };

const CASES: [string, AnyObjectSchema, Record<string, unknown>[]][] = [
  [
    'CreateWorkspaceRequest',
    createWorkspaceRequest,
    [
      WORKSPACE,
      { ...WORKSPACE, cpu: '500m', memory: '1Gi', gpu: '1' },
      { ...WORKSPACE, name: '1dev' },
      { ...WORKSPACE, name: 'Dev' },
      { ...WORKSPACE, name: 'd'.repeat(53) },
      { ...WORKSPACE, image: 'no_such' },
      { ...WORKSPACE, cpu: '1.2.3' },
      { ...WORKSPACE, memory: '1KiB' },
      { ...WORKSPACE, gpu: 'one' },
      { ...WORKSPACE, ssh_public_key: 'not a key' },
      { ...WORKSPACE, ssh_public_key: 'ssh-ed25519 AAAA with\ttab' },
      { name: 'dev', image: 'ubuntu', ssh_public_key: KEY },
      { ...WORKSPACE, extra: true },
      { ...WORKSPACE, storage: 10 },
    ],
  ],
  [
    'WorkspaceImageRequest',
    createWorkspaceImageRequest,
    [{ name: 'ubuntu', image: 'ubuntu:24.04' }, { name: 'ubuntu', image: 'ubuntu 24' }, { name: 'ubuntu', image: '' }, { name: 'ubuntu', image: 'u', display_name: '' }, { name: 'ubuntu', image: 'u', tags: ['a', 1] }, { image: 'u' }],
  ],
  [
    'ImageRegistryRequest',
    createImageRegistryRequest,
    [{ name: 'ecr', region: 'eu-west-1' }, { name: 'ecr', region: 'eu-west-1', provider: 'dockerhub' }, { name: 'ecr', region: 'x', tag_mode: 'newest' }, { name: 'ecr', region: 'x', interval_seconds: 59 }, { name: 'ecr', region: 'x', tag_limit: 0 }, { name: 'ecr', region: 'x', registry_id: '12a' }, { name: 'ecr', region: '' }],
  ],
  ['UserSpaceRequest', userSpaceRequest, [{ name: 'alice', owner: 'alice@example.com' }, { name: 'system', owner: 'x' }, { name: 'alice', owner: 'x', role: 'root' }, { name: 'a'.repeat(60), owner: 'x' }, { name: 'alice' }]],
  ['QuotaRequest', quotaRequest, [{ cpu: '4', gpu: 1 }, { cpu: '-1' }, { gpu: -1 }, { workspaces: 1.5 }, { storage: '1.2.3' }, {}]],
  ['LocalUserRequest', localUserRequest, [{ username: 'alice', password: 'correct horse battery', owner: 'alice@example.com' }, { username: 'alice', owner: 'x' }]],
];

describe('the request bodies of the OpenAPI description', () => {
  for (const [name, schema, bodies] of CASES) {
    it(`states ${name} as REST checks it: the same bodies accepted and refused`, () => {
      const published = ajv.getSchema(`openapi-requests#/components/schemas/${name}`)!;
      const answers = bodies.map((body) => ({ body, rest: restAccepts(schema, body), document: published(body) }));
      expect(answers.filter((a) => a.rest !== a.document)).to.deep.equal([]);
      expect(answers.some((a) => a.rest) && answers.some((a) => !a.rest), 'the cases accept some bodies and refuse others').to.equal(true);
    });
  }

  it('refuses to describe a body whose prose names a field the check lacks, or misses one', () => {
    expect(() => requestBodySchema('QuotaRequest', quotaRequest, { cpu: 'CPU.' })).to.throw(/none for workspaces, memory, storage, gpu/);
    expect(() => requestBodySchema('QuotaRequest', quotaRequest, { workspaces: '', cpu: '', memory: '', storage: '', gpu: '', disk: '' })).to.throw(/prose for fields disk/);
  });
});
