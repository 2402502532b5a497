// Handlers for the calls that go straight to one cluster-scoped kind with the caller's token:
// the request is checked at the edge, mapped to the object or patch, and the cluster answers.
import type { AnySchema, InferType } from 'yup';
import type { KubeObject } from '../../kube/client.js';
import type { ResourceType } from '../../kube/resources.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { ApiContext } from './types.js';

type Handler = (ctx: ApiContext) => Promise<void>;

export function listObjects(resource: ResourceType): Handler {
  return async (ctx) => {
    validateQuery(ctx, noQuery);
    ctx.body = { items: (await ctx.state.kube.list(resource)).items };
  };
}

export function createObject<S extends AnySchema>(resource: ResourceType, schema: S, toObject: (req: InferType<S>) => KubeObject): Handler {
  return async (ctx) => {
    validateQuery(ctx, noQuery);
    const req = validateBody(ctx, schema);
    ctx.body = await ctx.state.kube.create(resource, toObject(req));
    ctx.status = 201;
  };
}

export function getObject(resource: ResourceType): Handler {
  return async (ctx) => {
    validateQuery(ctx, noQuery);
    ctx.body = await ctx.state.kube.get(resource, ctx.params.name!);
  };
}

/** A merge patch built from the request; the answer is the patched object, or `answer` of it. */
export function patchObject<S extends AnySchema>(
  resource: ResourceType,
  schema: S,
  toPatch: (req: InferType<S>) => unknown,
  answer: (patched: KubeObject) => unknown = (patched) => patched,
): Handler {
  return async (ctx) => {
    validateQuery(ctx, noQuery);
    const req = validateBody(ctx, schema);
    ctx.body = answer(await ctx.state.kube.patch(resource, ctx.params.name!, toPatch(req)));
  };
}

export function deleteObject(resource: ResourceType): Handler {
  return async (ctx) => {
    validateQuery(ctx, noQuery);
    await ctx.state.kube.delete(resource, ctx.params.name!);
    ctx.status = 204;
  };
}
