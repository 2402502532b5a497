// Structural schema behaviour of CustomResourceDefinitions: pruning of unknown fields,
// defaulting, OpenAPI validation with kube-apiserver's messages, and the one CEL rule
// Den uses (`self == oldSelf`, immutability).
import type { KubeObject } from '../../../kube/client.js';
import { ApiError, status } from './api-error.js';
import { clone } from './patch.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

interface Cause {
  reason: string;
  message: string;
  field: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class CrdSchemas {
  private byKind = new Map<string, { schema: Schema; kind: string; group: string; status: boolean }>();

  register(crd: KubeObject): void {
    const spec = (crd as any).spec;
    for (const v of spec.versions ?? []) {
      const schema = v.schema?.openAPIV3Schema as Schema | undefined;
      if (schema) this.byKind.set(`${spec.group}/${v.name}|${spec.names.kind}`, { schema, kind: spec.names.kind, group: spec.group, status: v.subresources?.status !== undefined });
    }
  }

  /** Whether a registered kind's version has the status subresource. */
  hasStatus(apiVersion: string, kind: string): boolean {
    return this.byKind.get(`${apiVersion}|${kind}`)?.status === true;
  }

  /** The merge keys of a registered kind's lists (x-kubernetes-list-map-keys) by field path, or undefined for kinds not registered. */
  listKeysOf(apiVersion: string, kind: string): ((fieldPath: string[]) => string[] | undefined) | undefined {
    const entry = this.byKind.get(`${apiVersion}|${kind}`);
    if (!entry) return undefined;
    return (fieldPath) => {
      let s: Schema | undefined = entry.schema;
      for (const field of fieldPath) {
        if (s?.type === 'array') s = s.items;
        s = s?.properties?.[field] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
      }
      return s?.['x-kubernetes-list-type'] === 'map' ? s['x-kubernetes-list-map-keys'] : undefined;
    };
  }

  private lookup(obj: KubeObject) {
    return this.byKind.get(`${obj.apiVersion}|${obj.kind}`);
  }

  /** Prunes unknown fields and applies defaults; objects of unregistered kinds pass unchanged. */
  default(obj: KubeObject): KubeObject {
    const entry = this.lookup(obj);
    if (!entry) return obj;
    const out = clone(obj) as Record<string, unknown>;
    for (const [k, sub] of Object.entries(entry.schema.properties ?? {})) {
      if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
      if (out[k] === undefined && sub.default !== undefined) out[k] = clone(sub.default);
      if (out[k] !== undefined) out[k] = walkDefaults(out[k], sub);
    }
    for (const k of Object.keys(out)) if (!['apiVersion', 'kind', 'metadata'].includes(k) && !entry.schema.properties?.[k] && !entry.schema['x-kubernetes-preserve-unknown-fields']) delete out[k];
    return out as KubeObject;
  }

  validate(obj: KubeObject, old?: KubeObject): void {
    const entry = this.lookup(obj);
    if (!entry) return;
    const causes: Cause[] = [];
    for (const [k, sub] of Object.entries(entry.schema.properties ?? {})) {
      if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
      const value = (obj as Record<string, unknown>)[k];
      if (value === undefined) {
        if (entry.schema.required?.includes(k)) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: k });
        continue;
      }
      check(value, sub, k, causes, old ? (old as Record<string, unknown>)[k] : undefined, old !== undefined);
    }
    if (causes.length === 0) return;
    causes.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)); // as kube-apiserver lists them: by field
    const name = obj.metadata?.name ?? '';
    const parts = causes.map((c) => `${c.field}: ${c.message}`);
    const message = `${entry.kind}.${entry.group} "${name}" is invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`;
    throw new ApiError(422, status(422, 'Invalid', message, { name, group: entry.group, kind: entry.kind, causes }));
  }
}

function walkDefaults(value: unknown, schema: Schema): unknown {
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return value;
  if (Array.isArray(value) && schema.items) return value.map((v) => walkDefaults(v, schema.items!));
  if (!isObject(value)) return value;
  if (schema.properties) {
    for (const [k, sub] of Object.entries(schema.properties)) {
      if (value[k] === undefined && sub.default !== undefined) value[k] = clone(sub.default);
      if (value[k] !== undefined) value[k] = walkDefaults(value[k], sub);
    }
    if (!schema['x-kubernetes-preserve-unknown-fields'] && !schema.additionalProperties) for (const k of Object.keys(value)) if (!schema.properties[k]) delete value[k];
  } else if (isObject(schema.additionalProperties)) {
    for (const k of Object.keys(value)) value[k] = walkDefaults(value[k], schema.additionalProperties);
  }
  return value;
}

function describe(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'null';
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function check(value: unknown, schema: Schema, path: string, causes: Cause[], old: unknown, isUpdate: boolean): void {
  if (value === null && schema.nullable) return;
  const invalid = (message: string, reason = 'FieldValueInvalid') => causes.push({ reason, message, field: path });
  const actual = typeName(value);
  if (schema['x-kubernetes-int-or-string']) {
    if (actual !== 'integer' && actual !== 'string') return void invalid(`Invalid value: "${actual}": ${path} in body must be of type integer,string: "${actual}"`, 'FieldValueTypeInvalid');
  } else if (schema.type) {
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer');
    if (!ok) return void invalid(`Invalid value: "${actual}": ${path} in body must be of type ${schema.type}: "${actual}"`, 'FieldValueTypeInvalid');
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) invalid(`Unsupported value: ${describe(value)}: supported values: ${schema.enum.map((e) => describe(e)).join(', ')}`, 'FieldValueNotSupported');
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) invalid(`Invalid value: ${value}: ${path} in body should be greater than or equal to ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) invalid(`Invalid value: ${value}: ${path} in body should be less than or equal to ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) invalid(`Invalid value: ${describe(value)}: ${path} in body should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) invalid(`Too long: may not be longer than ${schema.maxLength}`, 'FieldValueTooLong');
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) invalid(`Invalid value: ${describe(value)}: ${path} in body should match '${schema.pattern}'`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) invalid(`Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) invalid(`Too many: ${value.length}: must have at most ${schema.maxItems} items`, 'FieldValueTooMany');
    if (schema.items) value.forEach((v, i) => check(v, schema.items!, `${path}[${i}]`, causes, undefined, false));
  }
  if (isObject(value)) {
    for (const r of schema.required ?? []) if (value[r] === undefined) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${path}.${r}` });
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (value[k] !== undefined) check(value[k], sub, `${path}.${k}`, causes, isObject(old) ? old[k] : undefined, isUpdate && isObject(old) && old[k] !== undefined);
    }
    if (isObject(schema.additionalProperties)) for (const [k, v] of Object.entries(value)) check(v, schema.additionalProperties, `${path}[${k}]`, causes, undefined, false);
  }
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    // Transition rules are evaluated on update only, when the old value exists.
    if (/^\s*self\s*==\s*oldSelf\s*$/.test(rule.rule) && isUpdate && JSON.stringify(value) !== JSON.stringify(old)) {
      invalid(`Invalid value: "${actual}": ${rule.message ?? `failed rule: ${rule.rule}`}`);
    }
  }
}
