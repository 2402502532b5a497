// The OpenAPI description as a check on every answer the tests get: the REST test clients
// (`call` in test/server/core/cluster.ts, `ApiTestEnv.request`) pass each answer here, so a
// status or body the document does not describe fails the test that provoked it.
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import { openApiDocument } from '../../../server/api/openapi.js';

interface Operation {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}

export type OpenApiDoc = {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
};

export interface DescribedAnswer {
  status: number;
  body: unknown;
}

export const doc = openApiDocument() as OpenApiDoc;

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(doc, 'openapi');

const templates = Object.keys(doc.paths).map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) }));

/** The documented path (`/workspaces/{name}`) a request path (`/workspaces/dev?x=1`) belongs to, if any. */
export function documentedPath(requestPath: string): string | undefined {
  const pathname = requestPath.split('?')[0]!;
  return templates.find((t) => t.pattern.test(pathname))?.path;
}

/** Validates an answer against what the document gives for that operation and status. */
export function expectDescribed(method: string, path: string, answer: DescribedAnswer): void {
  const op = doc.paths[path]?.[method.toLowerCase()];
  expect(op, `${method} ${path} is documented`).to.not.equal(undefined);
  const response = op!.responses[String(answer.status)];
  expect(response, `${method} ${path} documents status ${answer.status}`).to.not.equal(undefined);
  const ref = response!.content?.['application/json']?.schema.$ref;
  if (!ref) {
    expect(answer.body, `${method} ${path} ${answer.status} has no body`).to.be.oneOf([undefined, '']);
    return;
  }
  const validate: ValidateFunction = ajv.getSchema(`openapi${ref}`)!;
  expect(validate(answer.body), `${method} ${path} ${answer.status}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
}

/** Checks an answer of a request to `/api/v1<requestPath>` when the document has that operation (a path without a route has none). */
export function expectDocumented(method: string, requestPath: string, answer: DescribedAnswer): void {
  const path = documentedPath(requestPath);
  if (path && doc.paths[path]![method.toLowerCase()]) expectDescribed(method, path, answer);
}
