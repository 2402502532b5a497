// The resource endpoints of SPEC 4.2, 4.3 and 4.6 (paths relative to `/api/v1`), and the public
// OpenAPI description. REST-core's app mounts both: the first behind authentication, the second not.
import type Router from '@koa/router';
import { HttpError } from '../../koa/errors.js';
import { mountActivityRoutes } from './activity.js';
import { mountCatalogRoutes } from './catalog.js';
import { isDns1123Subdomain } from '../../kube/names.js';
import { openApiDocument } from './openapi.js';
import { mountRegistryRoutes } from './registries.js';
import type { ApiRouter, ResourceDeps } from './types.js';
import { mountUserSpaceRoutes } from './userspaces.js';
import { mountWorkspaceRoutes } from './workspaces.js';
import { mountWorkspaceAppRoutes } from './apps.js';
import { mountPortShareRoutes } from './port-share.js';
import { mountShareRoutes } from './shares.js';

export type { ResourceDeps } from './types.js';
export { DEFAULT_QUOTA } from './userspaces.js';

/**
 * Mounts every resource route on `router`, whose prefix is `/api/v1` and which runs after the
 * authentication middleware (`ctx.state.caller`, `ctx.state.kube`) and errorMapper.
 */
export function mountResourceRoutes(router: ApiRouter, deps: ResourceDeps): void {
  // No object can carry a name Kubernetes refuses, so such a path is a 404 without a cluster call.
  router.param('name', (name, ctx, next) => {
    if (!isDns1123Subdomain(name)) throw new HttpError(404, `not found: "${name}" is not a valid object name`);
    return next();
  });
  mountWorkspaceRoutes(router, deps);
  mountWorkspaceAppRoutes(router, deps);
  mountPortShareRoutes(router, deps);
  mountShareRoutes(router, deps);
  mountCatalogRoutes(router, deps);
  mountRegistryRoutes(router, deps);
  mountUserSpaceRoutes(router, deps);
  mountActivityRoutes(router);
}

/** `GET /openapi.json` on a router with prefix `/api/v1`, reachable without authentication. */
export function mountPublicRoutes(router: Router): void {
  const document = JSON.stringify(openApiDocument());
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
}
