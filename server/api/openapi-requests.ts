// The OpenAPI schemas of the request bodies, generated from the yup schemas REST checks them
// with (server/api/schemas.ts, server/api/account-schemas.ts), so the description cannot drift from
// the checks: types, required fields, lengths, bounds, patterns and enums come from the checks,
// only the prose from the table each body is given.
import type { AnyObjectSchema, AnySchema } from 'yup';
import { NON_NEGATIVE_QUANTITY_PATTERN } from '../../kube/quantity.js';
import { ENV_COUNT_MAX, ENV_VALUE_MAX } from '../../contract/personal.js';

type Schema = Record<string, unknown>;
interface TestOptions {
  name?: string;
  params?: Record<string, unknown>;
}

/** What each named check of the schemas promises, as OpenAPI states it; a check missing here stops the document. */
const NAMED_CHECKS: Record<string, (type: string, params: Record<string, unknown>) => Schema> = {
  required: () => ({}),
  defined: () => ({}),
  integer: () => ({}),
  noUnknown: () => ({}),
  max: (type, p) => (type === 'string' ? { maxLength: p.max } : { maximum: p.max }),
  min: (type, p) => (type === 'string' ? { minLength: p.min } : { minimum: p.min }),
  quantity: () => ({ pattern: NON_NEGATIVE_QUANTITY_PATTERN }),
  // Checked by REST and told in the field's prose: RE2 syntax, a Secret name or empty, create-only.
  re2: () => ({}),
  'secret-name': () => ({}),
  'create-only': () => ({}),
  // The declared apps' rules (contract/workspace-image-rules.ts), told in the field's prose.
  apps: () => ({}),
  // The repository's rules (contract/workspace-source.ts), told in the field's prose.
  source: () => ({}),
  // A map of variable names to values (contract/personal.ts): the names' rules told in the field's prose.
  env: () => ({ additionalProperties: { type: 'string', maxLength: ENV_VALUE_MAX }, maxProperties: ENV_COUNT_MAX }),
  // The schedule's words, zone and duration (contract/schedule.ts), told in the field's prose.
  'daily-time': () => ({}),
  'running-time': () => ({}),
  'time-zone': () => ({}),
};

const testsOf = (field: AnySchema): TestOptions[] => (field as unknown as { tests: { OPTIONS?: TestOptions }[] }).tests.map((t) => t.OPTIONS ?? {});

function fieldSchema(field: AnySchema, description: string | undefined, where: string): Schema {
  const d = field.describe() as { type: string; oneOf: unknown[]; notOneOf: unknown[]; innerType?: unknown };
  const tests = testsOf(field);
  const type = d.type === 'number' ? (tests.some((t) => t.name === 'integer') ? 'integer' : 'number') : d.type;
  const out: Schema = { type, ...(description ? { description } : {}) };
  const patterns: string[] = [];
  for (const test of tests) {
    if (test.name === 'matches') patterns.push((test.params!.regex as RegExp).source);
    else {
      const check = NAMED_CHECKS[test.name ?? ''];
      if (!check) throw new Error(`${where}: the check ${String(test.name)} has no OpenAPI statement`);
      const stated = check(type, test.params ?? {});
      if (typeof stated.pattern === 'string') patterns.push(stated.pattern);
      else Object.assign(out, stated);
    }
  }
  if (patterns.length === 1) out.pattern = patterns[0];
  if (patterns.length > 1) out.allOf = patterns.map((pattern) => ({ pattern }));
  const values = d.oneOf.filter((v) => v !== undefined);
  if (values.length) out.enum = values;
  if (d.notOneOf.length) out.not = { enum: d.notOneOf };
  if (type === 'array') out.items = fieldSchema((field as unknown as { innerType: AnySchema }).innerType, undefined, `${where}[]`);
  if (type === 'object' && out.additionalProperties === undefined) {
    const inner = (field as unknown as { fields: Record<string, AnySchema> }).fields;
    out.properties = Object.fromEntries(Object.entries(inner).map(([key, f]) => [key, fieldSchema(f, undefined, `${where}.${key}`)]));
    out.additionalProperties = false;
  }
  return out;
}

/**
 * The body `schema` checks, as a closed OpenAPI object: every field described by `prose`
 * (which must name each field and no other), required where the check requires it.
 */
export function requestBodySchema(name: string, schema: AnyObjectSchema, prose: Record<string, string>, description?: string): Schema {
  const fields = schema.fields as Record<string, AnySchema>;
  const unnamed = Object.keys(fields).filter((k) => !(k in prose));
  const unknown = Object.keys(prose).filter((k) => !(k in fields));
  if (unnamed.length || unknown.length) throw new Error(`${name}: prose for fields ${unknown.join(', ') || '–'} the check lacks; none for ${unnamed.join(', ') || '–'}`);
  const properties = Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, fieldSchema(field, prose[key], `${name}.${key}`)]));
  const required = Object.entries(fields).filter(([, field]) => !(field.describe() as { optional: boolean }).optional).map(([key]) => key);
  return { type: 'object', ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}), additionalProperties: false };
}
