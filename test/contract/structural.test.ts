import { expect } from 'chai';
import { denCrds, type JsonSchema } from '../../contract/index.js';
import { nodesOf, rootSchema } from './schema-paths.js';

// The rules kube-apiserver applies before it accepts a CRD (apiextensions "structural schema"
// and defaulting rules), so a schema mistake fails here rather than on `kubectl apply`.
function structuralProblems(root: JsonSchema): string[] {
  const problems: string[] = [];
  if (root.type !== 'object') problems.push('<root>: type must be object');
  const metadata = root.properties?.metadata;
  // kube-apiserver forbids anything on metadata but restrictions of name and generateName.
  if (metadata && JSON.stringify(metadata) !== JSON.stringify({ type: 'object' })) {
    problems.push('<root>.metadata: must not specify anything other than name and generateName');
  }
  for (const [path, node] of nodesOf(root)) {
    const inAnyOf = /\.anyOf\[\d+\]/.test(path);
    if (inAnyOf) {
      const extra = Object.keys(node).filter((k) => k !== 'type');
      if (extra.length > 0) problems.push(`${path}: anyOf branches may not carry ${extra.join(', ')}`);
      continue;
    }
    const intOrString = node['x-kubernetes-int-or-string'] === true;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
    if (intOrString) {
      if (node.type !== undefined) problems.push(`${path}: int-or-string must not declare a type`);
      if (node.anyOf && JSON.stringify(node.anyOf) !== JSON.stringify([{ type: 'integer' }, { type: 'string' }])) {
        problems.push(`${path}: int-or-string anyOf must be [integer, string]`);
      }
    } else if (node.type === undefined && !preserve) {
      problems.push(`${path}: type must not be empty`);
    } else if (node.anyOf) {
      problems.push(`${path}: anyOf is only used for int-or-string here`);
    }
    if (node.properties && node.additionalProperties) problems.push(`${path}: properties and additionalProperties are exclusive`);
    if (node.type === 'array' && !node.items) problems.push(`${path}: an array needs items`);
    if (node.type !== 'array' && node.items) problems.push(`${path}: items on a non-array`);
    if (node.type !== 'object' && (node.properties || node.required)) problems.push(`${path}: properties on a non-object`);
    for (const name of node.required ?? []) {
      if (!node.properties?.[name]) problems.push(`${path}: required field ${name} is not declared`);
    }
    if (node['x-kubernetes-list-type'] === 'map') {
      const item = node.items;
      for (const key of node['x-kubernetes-list-map-keys'] ?? []) {
        const keySchema = item?.properties?.[key];
        if (!keySchema) problems.push(`${path}: list-map key ${key} is not a property of the items`);
        else if (!(item?.required ?? []).includes(key) && keySchema.default === undefined) {
          problems.push(`${path}: list-map key ${key} must be required or defaulted`);
        }
      }
    }
    if (node['x-kubernetes-map-type'] && node.type !== 'object') problems.push(`${path}: map-type on a non-object`);
    for (const rule of node['x-kubernetes-validations'] ?? []) {
      if (!rule.rule.trim() || !rule.message.trim()) problems.push(`${path}: CEL rule and message must be non-empty`);
      if (/\n/.test(rule.message)) problems.push(`${path}: CEL message must be one line`);
    }
    if (node.default !== undefined) {
      for (const p of valueProblems(node, node.default, `${path}(default)`)) problems.push(p);
    }
  }
  return problems;
}

/** Validates a default the way the API server does at CRD creation: after defaulting it, against its schema. */
function valueProblems(schema: JsonSchema, value: unknown, path: string): string[] {
  const problems: string[] = [];
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !Number.isInteger(value)) problems.push(`${path}: not int-or-string`);
    return problems;
  }
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return [`${path}: not a string`];
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) problems.push(`${path}: does not match ${schema.pattern}`);
      if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${path}: too short`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${path}: too long`);
      break;
    case 'integer':
      if (!Number.isInteger(value)) return [`${path}: not an integer`];
      if (schema.minimum !== undefined && (value as number) < schema.minimum) problems.push(`${path}: below minimum`);
      if (schema.maximum !== undefined && (value as number) > schema.maximum) problems.push(`${path}: above maximum`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return [`${path}: not a boolean`];
      break;
    case 'array':
      if (!Array.isArray(value)) return [`${path}: not an array`];
      value.forEach((item, i) => problems.push(...valueProblems(schema.items ?? {}, item, `${path}[${i}]`)));
      break;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: not an object`];
      const obj = value as Record<string, unknown>;
      // Nested defaults apply inside a defaulted object before it is validated.
      const defaulted: Record<string, unknown> = { ...obj };
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        if (defaulted[name] === undefined && child.default !== undefined) defaulted[name] = child.default;
      }
      for (const name of schema.required ?? []) {
        if (defaulted[name] === undefined) problems.push(`${path}: default lacks required ${name}`);
      }
      for (const [name, v] of Object.entries(defaulted)) {
        const child = schema.properties?.[name] ?? schema.additionalProperties;
        if (!child) {
          if (!schema['x-kubernetes-preserve-unknown-fields']) problems.push(`${path}.${name}: would be pruned`);
          continue;
        }
        problems.push(...valueProblems(child, v, `${path}.${name}`));
      }
      break;
    }
    default:
      break;
  }
  if (schema.enum && !schema.enum.includes(value as string)) problems.push(`${path}: not one of ${schema.enum.join(', ')}`);
  return problems;
}

describe('structural schemas', () => {
  for (const crd of denCrds()) {
    it(`${crd.spec.names.kind} has a structural schema whose defaults validate`, () => {
      expect(structuralProblems(rootSchema(crd))).to.deep.equal([]);
    });
  }

  it('the structural check itself catches an untyped field, a bad default and an undeclared required field', () => {
    const broken: JsonSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['missing'],
          properties: {
            untyped: { description: 'no type' },
            interval: { type: 'integer', minimum: 60, default: 30 },
            mode: { type: 'string', enum: ['a'], default: 'b' },
          },
        },
      },
    };
    expect(structuralProblems(broken)).to.have.members([
      '<root>.spec: required field missing is not declared',
      '<root>.spec.untyped: type must not be empty',
      '<root>.spec.interval(default): below minimum',
      '<root>.spec.mode(default): not one of a',
    ]);
  });
});
