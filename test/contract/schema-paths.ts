// Finds a field's schema in a CRD by its dotted path (`spec.sync.tags.limit`, `spec.tags[]`).
import type { CustomResourceDefinition, JsonSchema } from '../../contract/index.js';

export function rootSchema(crd: CustomResourceDefinition): JsonSchema {
  const version = crd.spec.versions[0];
  if (!version) throw new Error(`${crd.metadata.name} has no version`);
  return version.schema.openAPIV3Schema;
}

export function schemaAt(crd: CustomResourceDefinition, path: string): JsonSchema {
  let node = rootSchema(crd);
  for (const segment of path.split('.')) {
    const isArray = segment.endsWith('[]');
    const name = isArray ? segment.slice(0, -2) : segment;
    const next = node.properties?.[name];
    if (!next) throw new Error(`${crd.spec.names.kind} has no field ${path} (stopped at ${name})`);
    node = next;
    if (isArray) {
      if (node.type !== 'array' || !node.items) throw new Error(`${path}: ${name} is not an array`);
      node = node.items;
    }
  }
  return node;
}

/** Every named field of a schema, as [path, schema] pairs, depth first. */
export function fieldsOf(schema: JsonSchema, prefix = ''): [string, JsonSchema][] {
  const out: [string, JsonSchema][] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push([path, child]);
    out.push(...fieldsOf(child, path));
    if (child.items) out.push(...fieldsOf(child.items, `${path}[]`));
    if (child.additionalProperties) out.push(...fieldsOf(child.additionalProperties, `${path}{}`));
  }
  return out;
}

/** Every schema node, with its path, including array items and map values. */
export function nodesOf(schema: JsonSchema, path = '<root>'): [string, JsonSchema][] {
  const out: [string, JsonSchema][] = [[path, schema]];
  for (const [name, child] of Object.entries(schema.properties ?? {})) out.push(...nodesOf(child, `${path}.${name}`));
  if (schema.items) out.push(...nodesOf(schema.items, `${path}[]`));
  if (schema.additionalProperties) out.push(...nodesOf(schema.additionalProperties, `${path}{}`));
  for (const [i, branch] of (schema.anyOf ?? []).entries()) out.push(...nodesOf(branch, `${path}.anyOf[${i}]`));
  return out;
}
