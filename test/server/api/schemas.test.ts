import { expect } from 'chai';
import type { AnySchema } from 'yup';
import {
  createImageRegistryRequest,
  createWorkspaceImageRequest,
  createWorkspaceRequest,
  logsQuery,
  membershipRequest,
  namespaceQuery,
  patchImageRegistryRequest,
  patchWorkspaceImageRequest,
  quotaRequest,
  userSpaceRequest,
} from '../../../server/api/schemas.js';
import { HttpError } from '../../../koa/errors.js';
import { validate } from '../../../server/http/validate.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBv3J1ZSGmkN1PjLWbEmQ1xW7i1hl8XG0Pqf4dm8Iuo5 alice@laptop';
const WORKSPACE = { name: 'dev', image: 'python', storage: '10Gi', ssh_public_key: KEY };

function refusal(schema: AnySchema, value: unknown): string {
  try {
    validate(schema, value);
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return err.message;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('request schemas', () => {
  const refused: { shape: string; schema: AnySchema; value: unknown; message: string }[] = [
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, name: 'Dev_1' }, message: 'name must be an RFC 1123 label' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, name: 'a'.repeat(53) }, message: 'name must be at most 52 characters' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, name: '1dev' }, message: "name must start with a lower-case letter (it also names the workspace's Service)" },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, cpu: 'two' }, message: 'cpu must be a Kubernetes quantity' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, memory: '-1Gi' }, message: 'memory must be a Kubernetes quantity' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, gpu: '0.5' }, message: 'gpu must be a whole number of GPUs, such as 1 (0 for none)' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, storage: 10 }, message: 'storage must be a string' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, ssh_public_key: 'hello' }, message: 'ssh_public_key must be one OpenSSH public key line' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { name: 'dev', image: 'python', ssh_public_key: KEY }, message: 'storage is required' },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, running: false }, message: 'unknown field running' },
    { shape: 'WorkspaceImageRequest (create)', schema: createWorkspaceImageRequest, value: { name: 'python' }, message: 'image is required' },
    { shape: 'WorkspaceImageRequest (create)', schema: createWorkspaceImageRequest, value: { name: 'python', image: 'python:3', tags: 'py' }, message: 'tags must be an array of strings' },
    { shape: 'WorkspaceImageRequest (patch)', schema: patchWorkspaceImageRequest, value: { name: 'other' }, message: 'name is create-only' },
    { shape: 'WorkspaceImageRequest (patch)', schema: patchWorkspaceImageRequest, value: { deprecated: 'yes' }, message: 'deprecated must be true or false' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr' }, message: 'region is required' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'r'.repeat(33) }, message: 'region must be at most 32 characters' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', registry_id: '1234567890123' }, message: 'registry_id must be at most 12 characters' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', role_arn: 'a'.repeat(2049) }, message: 'role_arn must be at most 2048 characters' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', interval_seconds: 59 }, message: 'interval_seconds must be at least 60' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', tag_limit: 0 }, message: 'tag_limit must be at least 1' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', tag_mode: 'all' }, message: 'tag_mode must be one of latest, pattern' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', provider: 'docker-hub' }, message: 'provider must be one of cloud-registry' },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'x', include: ['(?=lookahead)'] }, message: 'include[0] is not a valid RE2 pattern' },
    { shape: 'ImageRegistryRequest (patch)', schema: patchImageRegistryRequest, value: { provider: 'cloud-registry' }, message: 'provider is create-only' },
    { shape: 'ImageRegistryRequest (patch)', schema: patchImageRegistryRequest, value: { name: 'ecr' }, message: 'name is create-only' },
    { shape: 'UserSpaceRequest', schema: userSpaceRequest, value: { name: 'alice' }, message: 'owner is required' },
    { shape: 'UserSpaceRequest', schema: userSpaceRequest, value: { name: 'alice', owner: '' }, message: 'owner must not be empty' },
    { shape: 'UserSpaceRequest', schema: userSpaceRequest, value: { name: 'alice', owner: 'a', role: 'root' }, message: 'role must be one of user, admin' },
    { shape: 'UserSpaceRequest', schema: userSpaceRequest, value: { name: 'system', owner: 'a' }, message: 'name "system" is reserved' },
    { shape: 'UserSpaceRequest', schema: userSpaceRequest, value: { name: 'a'.repeat(60), owner: 'a' }, message: 'name must be at most 59 characters' },
    { shape: 'MembershipRequest', schema: membershipRequest, value: { disabled: 'true' }, message: 'disabled must be true or false' },
    { shape: 'MembershipRequest', schema: membershipRequest, value: { owner: 'x' }, message: 'unknown field owner' },
    { shape: 'QuotaRequest', schema: quotaRequest, value: { workspaces: -1 }, message: 'workspaces must be at least 0' },
    { shape: 'QuotaRequest', schema: quotaRequest, value: { gpu: 1.5 }, message: 'gpu must be an integer' },
    { shape: 'QuotaRequest', schema: quotaRequest, value: { cpu: 4 }, message: 'cpu must be a string' },
    { shape: 'QuotaRequest', schema: quotaRequest, value: { memory: '8 GiB' }, message: 'memory must be a Kubernetes quantity' },
    { shape: 'logs query', schema: logsQuery, value: { tail: '0' }, message: 'tail must be an integer of at least 1' },
    { shape: 'logs query', schema: logsQuery, value: { tail: 'ten' }, message: 'tail must be an integer of at least 1' },
    { shape: 'logs query', schema: logsQuery, value: { tail: ['1', '2'] }, message: 'tail must be a string' },
    { shape: 'namespace query', schema: namespaceQuery, value: { namespace: 'Svc_Alice' }, message: 'namespace must be an RFC 1123 label' },
    { shape: 'namespace query', schema: namespaceQuery, value: { limit: '5' }, message: 'unknown field limit' },
  ];

  for (const c of refused) {
    it(`refuses ${c.shape} ${JSON.stringify(c.value).slice(0, 80)} with "${c.message}"`, () => {
      expect(refusal(c.schema, c.value)).to.contain(c.message);
    });
  }

  const accepted: { shape: string; schema: AnySchema; value: unknown }[] = [
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, cpu: '500m', memory: '1.5Gi', gpu: '1' } },
    { shape: 'CreateWorkspaceRequest', schema: createWorkspaceRequest, value: { ...WORKSPACE, cpu: '1e3', storage: '10G' } },
    { shape: 'WorkspaceImageRequest (patch)', schema: patchWorkspaceImageRequest, value: {} },
    { shape: 'ImageRegistryRequest (create)', schema: createImageRegistryRequest, value: { name: 'ecr', region: 'eu-west-1', provider: 'cloud-registry', tag_patterns: ['^v[0-9]+$'], image_pull_secret: 'pull.secret' } },
    { shape: 'ImageRegistryRequest (patch)', schema: patchImageRegistryRequest, value: { registry_id: '', image_pull_secret: '' } },
    { shape: 'QuotaRequest', schema: quotaRequest, value: { workspaces: 0, gpu: 0, cpu: '0', memory: '512Mi', storage: '1Ti' } },
    { shape: 'logs query', schema: logsQuery, value: { tail: '1', namespace: 'svc-alice' } },
  ];

  for (const c of accepted) {
    it(`accepts ${c.shape} ${JSON.stringify(c.value).slice(0, 80)}`, () => {
      expect(validate(c.schema, c.value)).to.deep.equal(c.value);
    });
  }
});
