// The Koa app answering AdmissionReviews: one middleware per concern (errors, route, body,
// envelope), then the webhook's decision. A malformed request gets a 400, never a crash.
import Koa, { type Context, type Next } from 'koa';
import type { Log } from '../../process/role.js';
import { refuseOversizedBodies, readJsonBody } from '../../koa/body.js';
import { errorMapper, HttpError } from '../../koa/errors.js';
import { WEBHOOKS } from '../../contract/names.js';
import type { DecisionMemo } from './memo.js';
import type { AdmissionMetrics } from './metrics.js';
import { answer, deny, parseReview, ReviewShapeError, type AdmissionRequest, type AdmissionResponse } from './review.js';
import { reviewImageRegistry, reviewWorkspaceImage, reviewUserSpaceUpdate, reviewWorkspaceMutation, reviewWorkspaceValidationRechecked, type AdminCheck, type ClusterView, type FreshView } from './webhooks.js';

/**
 * An AdmissionReview carries the object and the old object; each is at most about 1.5 MiB
 * in etcd, so twice that and the envelope fit.
 */
export const REVIEW_BODY_LIMIT = 4 * 1024 * 1024;

export interface AdmissionAppDeps {
  view: ClusterView;
  /** Reads what a refusal rested on from the API server again (hooks/admission/fresh-view.ts). */
  fresh: FreshView;
  memo: DecisionMemo;
  gpuResource: string;
  isAdmin: AdminCheck;
  now: () => Date;
  log: Log;
  metrics: AdmissionMetrics;
}

type Review = (request: AdmissionRequest, deps: AdmissionAppDeps) => AdmissionResponse | Promise<AdmissionResponse>;

/** Each webhook of the install chart's configurations, by the path it is served at. */
export const REVIEWS: Record<string, { webhook: string; review: Review }> = {
  [WEBHOOKS.mutateWorkspace.path]: { webhook: WEBHOOKS.mutateWorkspace.name, review: (r, d) => reviewWorkspaceMutation(r, d.view) },
  [WEBHOOKS.validateWorkspace.path]: {
    webhook: WEBHOOKS.validateWorkspace.name,
    review: (r, d) => {
      const onReversed = (cached: AdmissionResponse) => d.log('admission refusal reversed by the API server\'s current objects', { webhook: WEBHOOKS.validateWorkspace.name, uid: r.uid, namespace: r.namespace, name: r.name, cached: cached.status?.message });
      return reviewWorkspaceValidationRechecked(r, d.view, d.fresh, { gpuResource: d.gpuResource, memo: d.memo, onReversed }, d.now());
    },
  },
  [WEBHOOKS.validateUserSpace.path]: { webhook: WEBHOOKS.validateUserSpace.name, review: (r, d) => reviewUserSpaceUpdate(r, d.isAdmin, d.memo) },
  [WEBHOOKS.validateImageRegistry.path]: { webhook: WEBHOOKS.validateImageRegistry.name, review: (r) => reviewImageRegistry(r) },
  [WEBHOOKS.validateWorkspaceImage.path]: { webhook: WEBHOOKS.validateWorkspaceImage.name, review: (r) => reviewWorkspaceImage(r) },
};

interface ReviewState {
  route: (typeof REVIEWS)[string];
  request: AdmissionRequest;
}

function route(ctx: Context, next: Next): Promise<void> {
  const found = REVIEWS[ctx.path];
  if (!found) throw new HttpError(404, `no webhook at ${ctx.path} (webhooks: ${Object.keys(REVIEWS).join(', ')})`);
  if (ctx.method !== 'POST') throw new HttpError(405, 'webhooks answer POST only', { Allow: 'POST' });
  (ctx.state as ReviewState).route = found;
  return next();
}

function envelope(ctx: Context, next: Next): Promise<void> {
  try {
    (ctx.state as ReviewState).request = parseReview(ctx.request.body).request;
  } catch (err) {
    if (err instanceof ReviewShapeError) throw new HttpError(400, `not an AdmissionReview: ${err.message}`);
    throw err;
  }
  return next();
}

function decide(deps: AdmissionAppDeps) {
  return async function decideReview(ctx: Context): Promise<void> {
    const { route: { webhook, review }, request } = ctx.state as ReviewState;
    const end = deps.metrics.duration.startTimer({ webhook });
    let response: AdmissionResponse;
    try {
      response = await review(request, deps);
    } catch (err) {
      // The cluster could not answer a question the decision needs (a SubjectAccessReview):
      // refuse with the reason rather than fail the HTTP call, so the person reads why.
      const message = `could not decide: ${(err as Error)?.message ?? String(err)}; retry shortly`;
      deps.log('admission review failed', { webhook, uid: request.uid, error: message });
      response = deny(request.uid, { code: 500, reason: 'InternalError', message });
    }
    end();
    deps.metrics.reviews.inc({ webhook, allowed: String(response.allowed) });
    if (!response.allowed) {
      // A refusal without rules is about the review itself (wrong kind, no object, no answer from the cluster).
      for (const rule of response.rules ?? [response.status?.reason ?? 'unknown']) deps.metrics.denials.inc({ webhook, rule });
      deps.log('admission denied', { webhook, uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name, user: request.userInfo.username, code: response.status?.code });
    }
    ctx.status = 200;
    ctx.body = answer(response);
  };
}

export function admissionApp(deps: AdmissionAppDeps): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(refuseOversizedBodies(REVIEW_BODY_LIMIT));
  app.use(errorMapper((msg, fields) => deps.log(msg, fields)));
  app.use(route);
  app.use(readJsonBody(REVIEW_BODY_LIMIT));
  app.use(envelope);
  app.use(decide(deps));
  return app;
}
