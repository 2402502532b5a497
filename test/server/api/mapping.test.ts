import { expect } from 'chai';
import {
  forceSyncPatch,
  imageRegistryObject,
  imageRegistryPatch,
  membershipOf,
  membershipPatch,
  quotaOf,
  quotaPatch,
  usageOf,
  userSpaceObject,
  workspaceImageObject,
  workspaceImagePatch,
  workspaceObject,
} from '../../../server/api/mapping.js';
import { DEFAULT_QUOTA } from '../../../server/api/userspaces.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBv3J1ZSGmkN1PjLWbEmQ1xW7i1hl8XG0Pqf4dm8Iuo5 alice@laptop';

describe('REST to cluster mapping', () => {
  describe('workspaceObject', () => {
    it('builds a running Workspace with request equal to limit and the GPU under the configured resource name', () => {
      const ws = workspaceObject({ name: 'dev', image: 'python', cpu: '2', memory: '4Gi', gpu: '1', storage: '20Gi', ssh_public_key: `${KEY}\n` }, 'svc-alice', 'example.com/gpu');
      expect(ws).to.deep.equal({
        apiVersion: 'den.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'dev', namespace: 'svc-alice' },
        spec: {
          imageRef: { name: 'python' },
          resources: { requests: { cpu: '2', memory: '4Gi', 'example.com/gpu': '1' }, limits: { cpu: '2', memory: '4Gi', 'example.com/gpu': '1' } },
          storage: '20Gi',
          sshAuthorizedKeys: [KEY],
          running: true,
        },
      });
    });

    it('leaves resources out when no size is asked for', () => {
      const ws = workspaceObject({ name: 'dev', image: 'python', storage: '1Gi', ssh_public_key: KEY }, 'svc-alice', 'nvidia.com/gpu');
      expect(ws.spec).to.not.have.property('resources');
    });

    it('sizes only what was asked for', () => {
      const ws = workspaceObject({ name: 'dev', image: 'python', memory: '1Gi', storage: '1Gi', ssh_public_key: KEY }, 'svc-alice', 'nvidia.com/gpu');
      expect((ws.spec as { resources?: unknown }).resources).to.deep.equal({ requests: { memory: '1Gi' }, limits: { memory: '1Gi' } });
    });
  });

  describe('catalog entries', () => {
    it('maps snake_case fields to the camelCase spec and titles an untitled entry by its name', () => {
      expect(workspaceImageObject({ name: 'python', image: 'python:3.12', tags: ['py'], deprecated: false })).to.deep.equal({
        apiVersion: 'den.dev/v1alpha1',
        kind: 'WorkspaceImage',
        metadata: { name: 'python' },
        spec: { displayName: 'python', tags: ['py'], deprecated: false, image: 'python:3.12' },
      });
    });

    it('patches only the keys sent, and removes description and icon sent empty', () => {
      expect(workspaceImagePatch({ display_name: 'Python 3', description: '' })).to.deep.equal({ spec: { displayName: 'Python 3', description: null } });
      expect(workspaceImagePatch({})).to.deep.equal({ spec: {} });
    });
  });

  describe('image registries', () => {
    it('maps every field to its place in the spec', () => {
      expect(
        imageRegistryObject({
          name: 'ecr',
          region: 'eu-west-1',
          registry_id: '123456789012',
          role_arn: 'arn:aws:iam::123456789012:role/reader',
          interval_seconds: 120,
          include: ['^team/'],
          exclude: ['-old$'],
          tag_mode: 'pattern',
          tag_patterns: ['^v\\d+'],
          tag_limit: 3,
          prune: true,
          image_pull_secret: 'ecr-pull',
        }),
      ).to.deep.equal({
        apiVersion: 'den.dev/v1alpha1',
        kind: 'ImageRegistry',
        metadata: { name: 'ecr' },
        spec: {
          provider: 'cloud-registry',
          cloud: { region: 'eu-west-1', registryId: '123456789012', roleArn: 'arn:aws:iam::123456789012:role/reader' },
          sync: { intervalSeconds: 120, include: ['^team/'], exclude: ['-old$'], prune: true, tags: { mode: 'pattern', patterns: ['^v\\d+'], limit: 3 } },
          imagePullSecretRef: { name: 'ecr-pull' },
        },
      });
    });

    it('creates a minimal registry with only the region', () => {
      expect(imageRegistryObject({ name: 'ecr', region: 'us-east-1' }).spec).to.deep.equal({ provider: 'cloud-registry', cloud: { region: 'us-east-1' } });
    });

    it('patches nested keys without touching their siblings, and removes a pull secret sent empty', () => {
      expect(imageRegistryPatch({ tag_limit: 5, role_arn: '', image_pull_secret: '' })).to.deep.equal({
        spec: { cloud: { roleArn: null }, sync: { tags: { limit: 5 } }, imagePullSecretRef: null },
      });
      expect(imageRegistryPatch({})).to.deep.equal({ spec: {} });
    });

    it('bumps the force-sync annotation to a value never used before', () => {
      const now = new Date('2026-11-22T10:00:00Z');
      expect(forceSyncPatch(now, 'ab12')).to.deep.equal({ metadata: { annotations: { 'den.dev/force-sync': '2026-11-22T10:00:00.000Z-ab12' } } });
      expect(forceSyncPatch(now, 'ab13')).to.not.deep.equal(forceSyncPatch(now, 'ab12'));
    });
  });

  describe('UserSpaces', () => {
    it('creates a UserSpace with the role label, the default quota and an isolated network', () => {
      expect(userSpaceObject({ name: 'alice', owner: 'alice@example.com', role: 'admin' }, DEFAULT_QUOTA)).to.deep.equal({
        apiVersion: 'den.dev/v1alpha1',
        kind: 'UserSpace',
        metadata: { name: 'alice', labels: { 'den.dev/role': 'admin' } },
        spec: { owner: 'alice@example.com', quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 }, networkPolicy: 'Isolated' },
      });
      expect(userSpaceObject({ name: 'bob', owner: 'bob' }, DEFAULT_QUOTA).metadata?.labels).to.deep.equal({ 'den.dev/role': 'user' });
    });

    it('writes membership as labels and removes the disabled label when re-enabled', () => {
      expect(membershipPatch({ role: 'admin' })).to.deep.equal({ metadata: { labels: { 'den.dev/role': 'admin' } } });
      expect(membershipPatch({ disabled: true })).to.deep.equal({ metadata: { labels: { 'den.dev/disabled': 'true' } } });
      expect(membershipPatch({ disabled: false })).to.deep.equal({ metadata: { labels: { 'den.dev/disabled': null } } });
    });

    it('reads membership back, a UserSpace without labels being an enabled user', () => {
      expect(membershipOf({ metadata: { name: 'a', labels: { 'den.dev/role': 'admin', 'den.dev/disabled': 'true' } } })).to.deep.equal({ name: 'a', role: 'admin', disabled: true });
      expect(membershipOf({ metadata: { name: 'b' } })).to.deep.equal({ name: 'b', role: 'user', disabled: false });
    });

    it('patches only the quota keys sent and reads the quota back with gpu defaulting to 0', () => {
      expect(quotaPatch({ cpu: '8', workspaces: 0 })).to.deep.equal({ spec: { quota: { cpu: '8', workspaces: 0 } } });
      expect(quotaOf({ spec: { quota: { cpu: '8', memory: '1Gi', storage: '5Gi', workspaces: 2 } } })).to.deep.equal({ cpu: '8', memory: '1Gi', storage: '5Gi', gpu: 0, workspaces: 2 });
    });

    it('reads usage from the ResourceQuota keys the UserSpace hook renders', () => {
      const rq = { status: { used: { 'requests.cpu': '1500m', 'requests.memory': '3Gi', 'requests.storage': '20Gi', 'requests.example.com/gpu': '1', 'count/workspaces.den.dev': '2' } } };
      expect(usageOf(rq, 'example.com/gpu')).to.deep.equal({ cpu: '1500m', memory: '3Gi', storage: '20Gi', gpu: 1, workspaces: 2 });
      expect(usageOf({}, 'nvidia.com/gpu')).to.deep.equal({ cpu: '0', memory: '0', storage: '0', gpu: 0, workspaces: 0 });
    });
  });
});
