import { expect } from 'chai';
import { denCrds } from '../../contract/index.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';

// What a person sees after `kubectl apply` of the CRDs: defaults read back and limits refused,
// with the API server's messages, through the shared fake that applies CRD schemas.
describe('the CRDs as the API server applies them', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } });
    api.installCrds(denCrds() as unknown[] as KubeObject[]);
  });
  afterEach(() => api.close());

  async function create(r: ResourceType, name: string, spec: unknown, namespace?: string): Promise<any> {
    return api.client().create(r, { apiVersion: 'den.dev/v1alpha1', kind: r.kind, metadata: { name }, spec } as KubeObject, namespace);
  }

  async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
    const err = await promise.then(
      () => {
        throw new Error('the API server accepted it');
      },
      (e: { status: number; message: string }) => e,
    );
    return { status: err.status, message: err.message };
  }

  const userSpaceSpec = {
    owner: 'alice@example.com',
    quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 },
    networkPolicy: 'Isolated',
  };

  it('reads an omitted spec.running back as true, idleTimeout as 4h and both observability flags as true', async () => {
    const ws = await create(RESOURCES.workspace, 'dev', { imageRef: { name: 'python' }, storage: '10Gi' }, 'svc-alice');
    expect(ws.spec).to.deep.equal({
      imageRef: { name: 'python' },
      storage: '10Gi',
      running: true,
      idleTimeout: '4h',
      observability: { logsEnabled: true, metricsEnabled: true },
    });
  });

  it('fills every WorkspaceImage default', async () => {
    const image = await create(RESOURCES.workspaceImage, 'python', { displayName: 'Python', image: 'python:3.12' });
    expect(image.spec).to.deep.equal({
      displayName: 'Python',
      image: 'python:3.12',
      deprecated: false,
      imagePullPolicy: 'IfNotPresent',
      shell: '/bin/bash',
      homePath: '/home/dev',
      runAsUser: 1000,
      command: ['sleep', 'infinity'],
      allowRoot: false,
    });
  });

  it('fills the ImageRegistry sync defaults even when spec.sync is omitted', async () => {
    const registry = await create(RESOURCES.imageRegistry, 'ecr', { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } });
    expect(registry.spec.sync).to.deep.equal({ intervalSeconds: 900, tags: { mode: 'latest', limit: 1 }, prune: false });
  });

  it('refuses spec.sync.intervalSeconds: 30 and spec.sync.tags.limit: 0', async () => {
    const err = await refusal(
      create(RESOURCES.imageRegistry, 'ecr', {
        provider: 'cloud-registry',
        cloud: { region: 'eu-west-1' },
        sync: { intervalSeconds: 30, tags: { limit: 0 } },
      }),
    );
    expect(err.status).to.equal(422);
    expect(err.message).to.equal(
      'ImageRegistry.den.dev "ecr" is invalid: [spec.sync.intervalSeconds: Invalid value: 30: spec.sync.intervalSeconds in body should be greater than or equal to 60, spec.sync.tags.limit: Invalid value: 0: spec.sync.tags.limit in body should be greater than or equal to 1]',
    );
  });

  it('refuses a provider other than cloud-registry and a region over 32 characters', async () => {
    const err = await refusal(
      create(RESOURCES.imageRegistry, 'x', { provider: 'docker-hub', cloud: { region: 'r'.repeat(33) } }),
    );
    expect(err.message).to.contain('spec.provider: Unsupported value: "docker-hub": supported values: "cloud-registry"');
    expect(err.message).to.contain('spec.cloud.region: Too long: may not be longer than 32');
  });

  it('defaults spec.quota.gpu to 0 and refuses a negative workspace count and an unknown network policy', async () => {
    const us = await create(RESOURCES.userSpace, 'alice', userSpaceSpec);
    expect(us.spec.quota.gpu).to.equal(0);
    const err = await refusal(
      create(RESOURCES.userSpace, 'bob', { ...userSpaceSpec, owner: 'bob', quota: { ...userSpaceSpec.quota, workspaces: -1 }, networkPolicy: 'Open' }),
    );
    expect(err.message).to.contain('spec.quota.workspaces: Invalid value: -1: spec.quota.workspaces in body should be greater than or equal to 0');
    expect(err.message).to.contain('spec.networkPolicy: Unsupported value: "Open": supported values: "Isolated", "ClusterEgress"');
  });

  it('refuses a UserSpace without quota and a Workspace with an empty image name', async () => {
    const us = await refusal(create(RESOURCES.userSpace, 'carol', { owner: 'carol', networkPolicy: 'Isolated' }));
    expect(us.message).to.equal('UserSpace.den.dev "carol" is invalid: spec.quota: Required value');
    const ws = await refusal(create(RESOURCES.workspace, 'dev', { imageRef: { name: '' } }, 'svc-alice'));
    expect(ws.message).to.equal(
      'Workspace.den.dev "dev" is invalid: spec.imageRef.name: Invalid value: "": spec.imageRef.name in body should be at least 1 chars long',
    );
  });

  it('refuses a change of UserSpace spec.owner and of Workspace spec.storage', async () => {
    const us = await create(RESOURCES.userSpace, 'alice', userSpaceSpec);
    const owner = await refusal(api.client().replace(RESOURCES.userSpace, { ...us, spec: { ...us.spec, owner: 'mallory' } }));
    expect(owner.status).to.equal(422);
    expect(owner.message).to.contain('spec.owner is immutable');

    const ws = await create(RESOURCES.workspace, 'dev', { imageRef: { name: 'python' }, storage: '10Gi' }, 'svc-alice');
    const storage = await refusal(api.client().replace(RESOURCES.workspace, { ...ws, spec: { ...ws.spec, storage: '20Gi' } }));
    expect(storage.message).to.contain('spec.storage is immutable');
    const running = await api.client().replace<any>(RESOURCES.workspace, { ...ws, spec: { ...ws.spec, running: false } });
    expect(running.spec.running).to.equal(false);
  });
});
