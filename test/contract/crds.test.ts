import { expect } from 'chai';
import { denCrds, type CustomResourceDefinition, type JsonSchema } from '../../contract/index.js';
import { QUANTITY_PATTERN } from '../../kube/quantity.js';
import { fieldsOf, rootSchema, schemaAt } from './schema-paths.js';

type Kind = 'WorkspaceImage' | 'ImageRegistry' | 'UserSpace' | 'Workspace';
type FieldType = 'string' | 'boolean' | 'integer' | 'object' | 'quantity' | 'timestamp' | 'duration' | 'string[]' | 'object[]' | 'map';

interface Row {
  kind: Kind;
  path: string;
  type: FieldType;
  required?: boolean;
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

// SPEC 2.2–2.5, one row per field; absent limits must be absent from the schema too.
const FIELDS: Row[] = [
  { kind: 'WorkspaceImage', path: 'spec.displayName', type: 'string', required: true },
  { kind: 'WorkspaceImage', path: 'spec.description', type: 'string' },
  { kind: 'WorkspaceImage', path: 'spec.icon', type: 'string' },
  { kind: 'WorkspaceImage', path: 'spec.tags', type: 'string[]' },
  { kind: 'WorkspaceImage', path: 'spec.maintainer', type: 'string' },
  { kind: 'WorkspaceImage', path: 'spec.deprecated', type: 'boolean', default: false },
  { kind: 'WorkspaceImage', path: 'spec.image', type: 'string', required: true },
  {
    kind: 'WorkspaceImage',
    path: 'spec.imagePullPolicy',
    type: 'string',
    default: 'IfNotPresent',
    enum: ['Always', 'IfNotPresent', 'Never'],
  },
  { kind: 'WorkspaceImage', path: 'spec.shell', type: 'string', default: '/bin/bash' },
  { kind: 'WorkspaceImage', path: 'spec.homePath', type: 'string', default: '/home/dev' },
  { kind: 'WorkspaceImage', path: 'spec.runAsUser', type: 'integer', default: 1000 },
  { kind: 'WorkspaceImage', path: 'spec.command', type: 'string[]', default: ['sleep', 'infinity'] },
  { kind: 'WorkspaceImage', path: 'spec.allowRoot', type: 'boolean', default: false },
  { kind: 'WorkspaceImage', path: 'spec.deprecateAt', type: 'timestamp' },
  { kind: 'WorkspaceImage', path: 'spec.placement', type: 'object' },
  { kind: 'WorkspaceImage', path: 'spec.placement.nodeSelector', type: 'map' },
  { kind: 'WorkspaceImage', path: 'spec.placement.tolerations', type: 'object[]' },
  { kind: 'WorkspaceImage', path: 'spec.imagePullSecretRef', type: 'object' },
  { kind: 'WorkspaceImage', path: 'status.conditions', type: 'object[]' },

  { kind: 'ImageRegistry', path: 'spec.provider', type: 'string', required: true, enum: ['cloud-registry'] },
  { kind: 'ImageRegistry', path: 'spec.cloud', type: 'object' },
  { kind: 'ImageRegistry', path: 'spec.cloud.region', type: 'string', required: true, maxLength: 32 },
  { kind: 'ImageRegistry', path: 'spec.cloud.registryId', type: 'string', maxLength: 12 },
  { kind: 'ImageRegistry', path: 'spec.cloud.roleArn', type: 'string', maxLength: 2048 },
  { kind: 'ImageRegistry', path: 'spec.sync', type: 'object', default: {} },
  { kind: 'ImageRegistry', path: 'spec.sync.intervalSeconds', type: 'integer', default: 900, minimum: 60 },
  { kind: 'ImageRegistry', path: 'spec.sync.include', type: 'string[]' },
  { kind: 'ImageRegistry', path: 'spec.sync.exclude', type: 'string[]' },
  { kind: 'ImageRegistry', path: 'spec.sync.tags', type: 'object', default: {} },
  { kind: 'ImageRegistry', path: 'spec.sync.tags.mode', type: 'string', default: 'latest', enum: ['latest', 'pattern'] },
  { kind: 'ImageRegistry', path: 'spec.sync.tags.patterns', type: 'string[]' },
  { kind: 'ImageRegistry', path: 'spec.sync.tags.limit', type: 'integer', default: 1, minimum: 1 },
  { kind: 'ImageRegistry', path: 'spec.sync.prune', type: 'boolean', default: false },
  { kind: 'ImageRegistry', path: 'spec.imagePullSecretRef', type: 'object' },
  { kind: 'ImageRegistry', path: 'status.conditions', type: 'object[]' },
  { kind: 'ImageRegistry', path: 'status.observedGeneration', type: 'integer', minimum: 0 },
  { kind: 'ImageRegistry', path: 'status.lastSyncTime', type: 'timestamp' },
  { kind: 'ImageRegistry', path: 'status.images', type: 'integer', minimum: 0 },

  { kind: 'UserSpace', path: 'spec.owner', type: 'string', required: true, minLength: 1 },
  { kind: 'UserSpace', path: 'spec.quota', type: 'object', required: true },
  { kind: 'UserSpace', path: 'spec.quota.cpu', type: 'quantity', required: true },
  { kind: 'UserSpace', path: 'spec.quota.memory', type: 'quantity', required: true },
  { kind: 'UserSpace', path: 'spec.quota.storage', type: 'quantity', required: true },
  { kind: 'UserSpace', path: 'spec.quota.gpu', type: 'integer', default: 0, minimum: 0 },
  { kind: 'UserSpace', path: 'spec.quota.workspaces', type: 'integer', required: true, minimum: 0 },
  { kind: 'UserSpace', path: 'spec.networkPolicy', type: 'string', required: true, enum: ['Isolated', 'ClusterEgress'] },
  { kind: 'UserSpace', path: 'spec.sshAuthorizedKeys', type: 'string[]' },
  { kind: 'UserSpace', path: 'status.namespace', type: 'string' },
  { kind: 'UserSpace', path: 'status.phase', type: 'string', enum: ['Pending', 'Ready', 'Failed'] },
  { kind: 'UserSpace', path: 'status.observedGeneration', type: 'integer', minimum: 0 },
  { kind: 'UserSpace', path: 'status.conditions', type: 'object[]' },

  { kind: 'Workspace', path: 'spec.imageRef', type: 'object', required: true },
  { kind: 'Workspace', path: 'spec.imageRef.name', type: 'string', required: true, minLength: 1 },
  { kind: 'Workspace', path: 'spec.resources', type: 'object' },
  { kind: 'Workspace', path: 'spec.nodeSelector', type: 'map' },
  { kind: 'Workspace', path: 'spec.tolerations', type: 'object[]' },
  { kind: 'Workspace', path: 'spec.affinity', type: 'object' },
  { kind: 'Workspace', path: 'spec.env', type: 'object[]' },
  { kind: 'Workspace', path: 'spec.envFrom', type: 'object[]' },
  { kind: 'Workspace', path: 'spec.volumes', type: 'object[]' },
  { kind: 'Workspace', path: 'spec.volumeMounts', type: 'object[]' },
  { kind: 'Workspace', path: 'spec.storage', type: 'quantity' },
  { kind: 'Workspace', path: 'spec.sshAuthorizedKeys', type: 'string[]' },
  { kind: 'Workspace', path: 'spec.running', type: 'boolean', default: true },
  { kind: 'Workspace', path: 'spec.idleTimeout', type: 'duration', default: '4h' },
  { kind: 'Workspace', path: 'spec.observability', type: 'object', default: {} },
  { kind: 'Workspace', path: 'spec.observability.logsEnabled', type: 'boolean', default: true },
  { kind: 'Workspace', path: 'spec.observability.metricsEnabled', type: 'boolean', default: true },
  {
    kind: 'Workspace',
    path: 'status.phase',
    type: 'string',
    enum: ['Pending', 'Starting', 'Running', 'Suspended', 'Failed'],
  },
  { kind: 'Workspace', path: 'status.endpoint', type: 'string' },
  { kind: 'Workspace', path: 'status.podName', type: 'string' },
  { kind: 'Workspace', path: 'status.lastActivityTime', type: 'timestamp' },
  { kind: 'Workspace', path: 'status.observedGeneration', type: 'integer', minimum: 0 },
  { kind: 'Workspace', path: 'status.conditions', type: 'object[]' },
];

function crdOf(kind: Kind): CustomResourceDefinition {
  const crd = denCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no CRD for ${kind}`);
  return crd;
}

function parentRequired(crd: CustomResourceDefinition, path: string): boolean {
  const dot = path.lastIndexOf('.');
  const parent = schemaAt(crd, path.slice(0, dot));
  return (parent.required ?? []).includes(path.slice(dot + 1));
}

function expectType(schema: JsonSchema, type: FieldType): void {
  switch (type) {
    case 'quantity':
      expect(schema['x-kubernetes-int-or-string']).to.equal(true);
      expect(schema.anyOf).to.deep.equal([{ type: 'integer' }, { type: 'string' }]);
      expect(schema.pattern).to.equal(QUANTITY_PATTERN);
      return;
    case 'timestamp':
      expect(schema).to.include({ type: 'string', format: 'date-time' });
      return;
    case 'duration':
      expect(schema.type).to.equal('string');
      expect(new RegExp(schema.pattern ?? '^$').test('4h')).to.equal(true);
      expect(new RegExp(schema.pattern ?? '^$').test('1h30m')).to.equal(true);
      expect(new RegExp(schema.pattern ?? '^$').test('four hours')).to.equal(false);
      return;
    case 'string[]':
      expect(schema.type).to.equal('array');
      expect(schema.items?.type).to.equal('string');
      return;
    case 'object[]':
      expect(schema.type).to.equal('array');
      expect(schema.items?.type).to.equal('object');
      return;
    case 'map':
      expect(schema.type).to.equal('object');
      expect(schema.additionalProperties).to.deep.equal({ type: 'string' });
      return;
    default:
      expect(schema.type).to.equal(type);
  }
}

describe('den.dev CRDs', () => {
  describe('fields of SPEC 2.2–2.5', () => {
    for (const row of FIELDS) {
      it(`${row.kind} ${row.path} is ${row.required ? 'a required' : 'an optional'} ${row.type} with exactly the spec's default and limits`, () => {
        const crd = crdOf(row.kind);
        const schema = schemaAt(crd, row.path);
        expectType(schema, row.type);
        expect(parentRequired(crd, row.path), 'required').to.equal(row.required === true);
        expect(schema.default, 'default').to.deep.equal(row.default);
        expect(schema.enum, 'enum').to.deep.equal(row.enum);
        expect(schema.minimum, 'minimum').to.equal(row.minimum);
        expect(schema.maximum, 'maximum').to.equal(row.maximum);
        expect(schema.minLength, 'minLength').to.equal(row.minLength);
        expect(schema.maxLength, 'maxLength').to.equal(row.maxLength);
      });
    }
  });

  it('declares no spec field the spec tables do not list', () => {
    // Den's extensions beside the SPEC's fields, each validated like them (docs/preview.md, docs/workspace-source.md).
    const extensions = [
      'WorkspaceImage spec.apps',
      'Workspace spec.sharedPorts',
      ...['', '.git', '.git.url', '.git.ref', '.git.path', '.devcontainer'].map((p) => `Workspace spec.source${p}`),
      // Schedules (docs/schedules.md).
      ...['', '.timeZone', '.autostart', '.autostart.days', '.autostart.time', '.autostop', '.autostop.days', '.autostop.time', '.maxRunning'].map((p) => `Workspace spec.schedule${p}`),
      ...['', '.maxRunningLimit', '.defaultMaxRunning', '.defaultAutostop', '.defaultAutostop.days', '.defaultAutostop.time', '.defaultAutostop.timeZone'].map((p) => `UserSpace spec.schedules${p}`),
    ];
    const listed = new Set([...FIELDS.map((r) => `${r.kind} ${r.path}`), ...extensions]);
    for (const crd of denCrds()) {
      const spec = schemaAt(crd, 'spec');
      for (const [path] of fieldsOf(spec, 'spec')) {
        // Only the top two levels are the spec's own fields; deeper ones are standard Kubernetes types.
        if (path.includes('[]') || path.includes('{}') || path.split('.').length > 4) continue;
        if (/^spec\.(resources|imagePullSecretRef|placement\.tolerations|tolerations|env|volumeMounts|volumes)\./.test(path)) continue;
        expect(listed.has(`${crd.spec.names.kind} ${path}`), `${crd.spec.names.kind} ${path}`).to.equal(true);
      }
    }
  });

  it('requires spec on every kind', () => {
    for (const crd of denCrds()) expect(rootSchema(crd).required).to.deep.equal(['spec']);
  });

  it('describes every field so kubectl explain answers', () => {
    for (const crd of denCrds()) {
      for (const [path, schema] of fieldsOf(rootSchema(crd))) {
        if (path === 'metadata') continue; // described by the API server's ObjectMeta
        expect(schema.description, `${crd.spec.names.kind} ${path}`).to.be.a('string').and.not.equal('');
      }
    }
  });

  it('uses the standard condition item with True, False and Unknown, keyed by type', () => {
    for (const crd of denCrds()) {
      const conditions = schemaAt(crd, 'status.conditions');
      expect(conditions['x-kubernetes-list-type']).to.equal('map');
      expect(conditions['x-kubernetes-list-map-keys']).to.deep.equal(['type']);
      const item = schemaAt(crd, 'status.conditions[]');
      expect(Object.keys(item.properties ?? {})).to.have.members([
        'type',
        'status',
        'reason',
        'message',
        'lastTransitionTime',
        'observedGeneration',
      ]);
      expect(item.required).to.have.members(['type', 'status', 'reason', 'message', 'lastTransitionTime']);
      expect(schemaAt(crd, 'status.conditions[].status').enum).to.deep.equal(['True', 'False', 'Unknown']);
      expect(schemaAt(crd, 'status.conditions[].lastTransitionTime').format).to.equal('date-time');
    }
  });

  it('serves v1alpha1 of den.dev with a status subresource', () => {
    for (const crd of denCrds()) {
      expect(crd.spec.group).to.equal('den.dev');
      expect(crd.metadata.name).to.equal(`${crd.spec.names.plural}.den.dev`);
      expect(crd.spec.versions).to.have.length(1);
      expect(crd.spec.versions[0]).to.include({ name: 'v1alpha1', served: true, storage: true });
      expect(crd.spec.versions[0]?.subresources).to.deep.equal({ status: {} });
    }
  });

  it('scopes Workspace to a namespace and the other kinds to the cluster', () => {
    const scopes = Object.fromEntries(denCrds().map((c) => [c.spec.names.kind, c.spec.scope]));
    expect(scopes).to.deep.equal({
      WorkspaceImage: 'Cluster',
      ImageRegistry: 'Cluster',
      UserSpace: 'Cluster',
      Workspace: 'Namespaced',
    });
  });

  it('lists every kind under `kubectl get den` with short names that no built-in uses', () => {
    const builtInShortNames = ['cm', 'cs', 'ds', 'ep', 'ev', 'hpa', 'ing', 'limits', 'netpol', 'no', 'ns', 'pdb', 'po', 'psp', 'pv', 'pvc', 'quota', 'rc', 'rs', 'sa', 'sc', 'sts', 'svc', 'crd', 'crds', 'csr', 'deploy', 'pc', 'ep', 'vwc', 'mwc'];
    const names = Object.fromEntries(denCrds().map((c) => [c.spec.names.kind, c.spec.names]));
    expect(names.Workspace?.shortNames).to.deep.equal(['ws']);
    expect(names.WorkspaceImage?.shortNames).to.deep.equal(['wsi']);
    expect(names.UserSpace?.shortNames).to.deep.equal(['us']);
    expect(names.ImageRegistry?.shortNames).to.deep.equal(['ireg']);
    for (const n of Object.values(names)) {
      expect(n.categories).to.deep.equal(['den']);
      for (const short of n.shortNames) expect(builtInShortNames).to.not.include(short);
    }
  });

  describe('printer columns', () => {
    const table: [Kind, [string, string, string][]][] = [
      [
        'Workspace',
        [
          ['Phase', 'string', '.status.phase'],
          ['Image', 'string', '.spec.imageRef.name'],
          ['Running', 'boolean', '.spec.running'],
          ['Endpoint', 'string', '.status.endpoint'],
          ['Age', 'date', '.metadata.creationTimestamp'],
        ],
      ],
      [
        'UserSpace',
        [
          ['Owner', 'string', '.spec.owner'],
          ['Namespace', 'string', '.status.namespace'],
          ['Phase', 'string', '.status.phase'],
          ['Age', 'date', '.metadata.creationTimestamp'],
        ],
      ],
      [
        'WorkspaceImage',
        [
          ['Display Name', 'string', '.spec.displayName'],
          ['Image', 'string', '.spec.image'],
          ['Deprecated', 'boolean', '.spec.deprecated'],
          ['Age', 'date', '.metadata.creationTimestamp'],
        ],
      ],
      [
        'ImageRegistry',
        [
          ['Region', 'string', '.spec.cloud.region'],
          ['Images', 'integer', '.status.images'],
          ['Last Sync', 'date', '.status.lastSyncTime'],
          ['Ready', 'string', '.status.conditions[?(@.type=="Ready")].status'],
          ['Age', 'date', '.metadata.creationTimestamp'],
        ],
      ],
    ];
    for (const [kind, columns] of table) {
      it(`kubectl get ${kind.toLowerCase()} shows ${columns.map((c) => c[0]).join(', ')}`, () => {
        const actual = crdOf(kind).spec.versions[0]?.additionalPrinterColumns ?? [];
        expect(actual.map((c) => [c.name, c.type, c.jsonPath])).to.deep.equal(columns);
        for (const column of actual) expect(column.description).to.be.a('string').and.not.equal('');
      });
    }
  });

  describe('CEL rules', () => {
    it('keeps UserSpace spec.owner immutable', () => {
      expect(schemaAt(crdOf('UserSpace'), 'spec.owner')['x-kubernetes-validations']).to.deep.equal([
        { rule: 'self == oldSelf', message: 'spec.owner is immutable' },
      ]);
    });

    it('keeps Workspace spec.storage immutable once set, including against removal', () => {
      const crd = crdOf('Workspace');
      expect(schemaAt(crd, 'spec.storage')['x-kubernetes-validations']).to.deep.equal([
        { rule: 'self == oldSelf', message: 'spec.storage is immutable' },
      ]);
      expect(schemaAt(crd, 'spec')['x-kubernetes-validations']).to.deep.equal([
        { rule: '!has(oldSelf.storage) || has(self.storage)', message: 'spec.storage is immutable' },
      ]);
    });

    it('requires spec.cloud when the provider is cloud-registry', () => {
      expect(schemaAt(crdOf('ImageRegistry'), 'spec')['x-kubernetes-validations']).to.deep.equal([
        {
          rule: "self.provider != 'cloud-registry' || has(self.cloud)",
          message: 'spec.cloud is required when spec.provider is cloud-registry',
        },
      ]);
    });
  });
});
