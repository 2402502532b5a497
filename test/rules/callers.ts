// How the rule tests ask each caller of a rule for its verdict on one value: the REST
// schemas, the OpenAPI description (through ajv, as the answer checks read it), the install
// settings and the CRDs' schemas. Each answers true (accepted) or false (refused).
import { Ajv } from 'ajv';
import type { AnySchema } from 'yup';
import { denCrds } from '../../contract/index.js';
import { InstallSettingsError, settingsOfConfig } from '../../infra/install/settings.js';
import { HttpError } from '../../koa/errors.js';
import { openApiDocument } from '../../server/api/openapi.js';
import { validate } from '../../server/http/validate.js';

/** Whether a REST request schema takes `value`; any answer but a 400 fails the test. */
export function restAccepts(schema: AnySchema, value: Record<string, unknown>): boolean {
  try {
    validate(schema, value);
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return false;
    throw err;
  }
}

/** Whether an install configuration file (den.config.yaml) is taken. */
export function installAccepts(yaml: string): boolean {
  try {
    settingsOfConfig(yaml, 'den.config.yaml');
    return true;
  } catch (err) {
    if (err instanceof InstallSettingsError) return false;
    throw err;
  }
}

const ajv = new Ajv({ strict: false, validateFormats: false });

/** A JSON schema as ajv checks it (kube-apiserver's CRD validation and the answer checks alike read `pattern` as an unanchored regular expression). */
export function schemaCheck(schema: object): (value: unknown) => boolean {
  const check = ajv.compile(schema);
  return (value) => check(value) as boolean;
}

type OpenApi = {
  components: { schemas: Record<string, { properties: Record<string, object> }> };
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: object }[] }>>;
};
const doc = openApiDocument() as OpenApi;

/** A request body field as the OpenAPI description states it. */
export function openApiField(body: string, field: string): (value: unknown) => boolean {
  const schema = doc.components.schemas[body]?.properties[field];
  if (!schema) throw new Error(`the OpenAPI description has no ${body}.${field}`);
  return schemaCheck(schema);
}

/** A query parameter of one operation as the OpenAPI description states it. */
export function openApiQuery(path: string, method: string, name: string): (value: unknown) => boolean {
  const parameter = doc.paths[path]?.[method]?.parameters?.find((p) => p.in === 'query' && p.name === name);
  if (!parameter) throw new Error(`the OpenAPI description has no query parameter ${name} on ${method.toUpperCase()} ${path}`);
  return schemaCheck(parameter.schema);
}

/** The schema of a field of a den.dev CRD, by kind and property path below openAPIV3Schema. */
export function crdField(kind: string, path: string[]): object {
  const crd = denCrds().find((c) => c.spec.names.kind === kind);
  let schema = crd?.spec.versions[0]?.schema?.openAPIV3Schema as Record<string, unknown> | undefined;
  for (const step of path) schema = (step === '[]' ? schema?.items : (schema?.properties as Record<string, unknown> | undefined)?.[step]) as Record<string, unknown> | undefined;
  if (!schema) throw new Error(`the ${kind} CRD has no ${path.join('.')}`);
  return schema;
}

/** The values on which `caller` answers otherwise than `rule`; empty when the two agree. */
export function disagreements<T>(values: readonly T[], rule: (value: T) => boolean, caller: (value: T) => boolean): T[] {
  return values.filter((v) => caller(v) !== rule(v));
}
