// Request checking at the edge (yup). Bodies and query strings are validated strictly:
// no type coercion, unknown fields refused, every problem reported with the field's path.
// A failure becomes a 400 `{error}` through errorMapper; nothing reaches the cluster.
import type { Context } from 'koa';
import { array, boolean, number, object, string, ValidationError, type AnyObject, type AnySchema, type InferType, type ObjectShape } from 'yup';
import { HttpError } from '../../koa/errors.js';

function fieldPath(path: string | undefined, key: string): string {
  return path && path !== 'this' ? `${path}.${key}` : key;
}

/** An object schema that refuses keys it does not declare, naming each one. */
export function exact<S extends ObjectShape>(shape: S) {
  return object(shape)
    .default(undefined)
    .typeError('${path} must be an object')
    .noUnknown(true, ({ path, unknown }: { path?: string; unknown?: string }) => {
      const keys = String(unknown ?? '').split(',').map((k) => k.trim()).filter(Boolean);
      const named = keys.map((k) => fieldPath(path, k)).join(', ');
      return keys.length === 1 ? `unknown field ${named}` : `unknown fields ${named}`;
    });
}

/** The query of a call that takes no query parameters. */
export const noQuery = exact({});

/** Field builders whose messages name the field and the expected type. */
export const fields = {
  string: () => string().typeError('${path} must be a string'),
  boolean: () => boolean().typeError('${path} must be true or false'),
  integer: () => number().typeError('${path} must be an integer').integer('${path} must be an integer'),
  strings: () => array().typeError('${path} must be an array of strings').of(string().typeError('${path} must be a string').defined('${path} must be a string')),
};

function isPlainObject(value: unknown): value is AnyObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks `value` against `schema`; throws a 400 HttpError listing every problem. */
export function validate<S extends AnySchema>(schema: S, value: unknown, what = 'request body'): InferType<S> {
  if (!isPlainObject(value)) throw new HttpError(400, `the ${what} must be a JSON object`);
  try {
    return schema.validateSync(value, { strict: true, abortEarly: false }) as InferType<S>;
  } catch (err) {
    if (err instanceof ValidationError) throw new HttpError(400, err.errors.join('; ') || `invalid ${what}`);
    throw err;
  }
}

/**
 * The parsed JSON body the body-parsing middleware left on the request. An empty body counts
 * as `{}`, so PATCH with nothing to change and bodiless POSTs pass an all-optional schema.
 */
export function bodyOf(ctx: Context): unknown {
  const body = 'body' in ctx.request ? ctx.request.body : undefined;
  return body === undefined || body === null || body === '' ? {} : body;
}

export function validateBody<S extends AnySchema>(ctx: Context, schema: S): InferType<S> {
  return validate(schema, bodyOf(ctx), 'request body');
}

/** Query parameters arrive as strings; one given twice arrives as an array and is refused, so no value is guessed. */
export function validateQuery<S extends AnySchema>(ctx: Context, schema: S): InferType<S> {
  const query = { ...ctx.query };
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new HttpError(400, `query parameter ${key} is given ${value.length} times; give it once`);
  }
  return validate(schema, query, 'query');
}
