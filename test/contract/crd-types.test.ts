import { expect } from 'chai';
import { workspaceCrd, type WorkspaceSpec, type WorkspaceStatusFields } from '../../contract/workspace.js';
import { workspaceImageCrd, type WorkspaceImageSpec, type WorkspaceImageStatusFields } from '../../contract/workspace-image.js';
import type { JsonSchema } from '../../contract/index.js';
import { schemaAt } from './schema-paths.js';

// The one hand-written type of each kind (contract/workspace.ts, workspace-image.ts) against its CRD schema. Each
// table below must name every field of its TypeScript type (the compiler refuses a missing or
// an extra key), and the test compares the table with the schema: a field added to one and
// not the other fails here.

type Kind = 'string' | 'boolean' | 'integer' | 'object' | 'array' | 'quantity' | 'preserved';
type Fields<T> = { [K in keyof Required<T>]: Kind };

const SPEC: Fields<WorkspaceSpec> = {
  imageRef: 'object',
  resources: 'object',
  nodeSelector: 'object',
  tolerations: 'array',
  affinity: 'preserved',
  env: 'array',
  envFrom: 'array',
  volumes: 'array',
  volumeMounts: 'array',
  storage: 'quantity',
  sshAuthorizedKeys: 'array',
  running: 'boolean',
  idleTimeout: 'string',
  observability: 'object',
  source: 'object',
  sharedPorts: 'array',
  schedule: 'object',
};

const STATUS: Fields<WorkspaceStatusFields> = {
  phase: 'string',
  endpoint: 'string',
  podName: 'string',
  lastActivityTime: 'string',
  observedGeneration: 'integer',
  dormancy: 'object',
  conditions: 'array',
  devcontainer: 'preserved',
  dotfiles: 'preserved',
};

const NESTED: Record<string, Record<string, Kind>> = {
  'spec.imageRef': { name: 'string' } satisfies Fields<NonNullable<WorkspaceSpec['imageRef']>>,
  'spec.resources': { limits: 'object', requests: 'object', claims: 'array' } satisfies Fields<NonNullable<WorkspaceSpec['resources']>>,
  'spec.schedule': { timeZone: 'string', autostart: 'object', autostop: 'object', maxRunning: 'string' } satisfies Fields<NonNullable<WorkspaceSpec['schedule']>>,
  'spec.schedule.autostart': { days: 'array', time: 'string' } satisfies Fields<NonNullable<NonNullable<WorkspaceSpec['schedule']>['autostart']>>,
  'status.dormancy': { stopAfterDays: 'integer', deleteAfterDays: 'integer', home: 'string' } satisfies Fields<NonNullable<WorkspaceStatusFields['dormancy']>>,
  'spec.observability': { logsEnabled: 'boolean', metricsEnabled: 'boolean' } satisfies Fields<NonNullable<WorkspaceSpec['observability']>>,
};

function kindOf(schema: JsonSchema): Kind {
  if (schema['x-kubernetes-int-or-string']) return 'quantity';
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return 'preserved';
  return schema.type as Kind;
}

const IMAGE_SPEC: Fields<WorkspaceImageSpec> = {
  displayName: 'string',
  description: 'string',
  icon: 'string',
  tags: 'array',
  maintainer: 'string',
  deprecated: 'boolean',
  image: 'string',
  imagePullPolicy: 'string',
  shell: 'string',
  homePath: 'string',
  runAsUser: 'integer',
  command: 'array',
  allowRoot: 'boolean',
  deprecateAt: 'string',
  placement: 'object',
  imagePullSecretRef: 'object',
  apps: 'array',
};

const IMAGE_STATUS: Fields<WorkspaceImageStatusFields> = { conditions: 'array' };

const IMAGE_NESTED: Record<string, Record<string, Kind>> = {
  'spec.placement': { nodeSelector: 'object', tolerations: 'array' } satisfies Fields<NonNullable<WorkspaceImageSpec['placement']>>,
  'spec.imagePullSecretRef': { name: 'string' } satisfies Fields<NonNullable<WorkspaceImageSpec['imagePullSecretRef']>>,
};

function schemaFields(path: string, crd = workspaceCrd()): Record<string, Kind> {
  const node = schemaAt(crd, path);
  return Object.fromEntries(Object.entries(node.properties ?? {}).map(([name, child]) => [name, kindOf(child)]));
}

describe('the Workspace type', () => {
  it('has every field of the CRD spec, of the same kind, and no other', () => {
    expect(SPEC).to.deep.equal(schemaFields('spec'));
  });

  it('has every field of the CRD status, of the same kind, and no other', () => {
    expect(STATUS).to.deep.equal(schemaFields('status'));
  });

  for (const [path, fields] of Object.entries(NESTED)) {
    it(`has every field of ${path} and no other`, () => {
      expect(fields).to.deep.equal(schemaFields(path));
    });
  }
});

describe('the WorkspaceImage type', () => {
  it('has every field of the CRD spec, of the same kind, and no other', () => {
    expect(IMAGE_SPEC).to.deep.equal(schemaFields('spec', workspaceImageCrd()));
  });

  it('has every field of the CRD status, of the same kind, and no other', () => {
    expect(IMAGE_STATUS).to.deep.equal(schemaFields('status', workspaceImageCrd()));
  });

  for (const [path, fields] of Object.entries(IMAGE_NESTED)) {
    it(`has every field of ${path} and no other`, () => {
      expect(fields).to.deep.equal(schemaFields(path, workspaceImageCrd()));
    });
  }
});
