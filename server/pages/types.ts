// What every page module is given: the router type of the pages and the app's dependencies.
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { KubeClient } from '../../kube/client.js';
import type { ResourceDeps } from '../api/types.js';
import type { IdentityProviders } from '../auth/providers/registry.js';
import type { AuthServices } from '../auth/services.js';
import type { ErrorLogger } from '../../koa/errors.js';
import type { AssetStore } from './assets.js';
import type { PageState } from './middleware.js';

export type PageRouter = Router<PageState>;
export type PageContext = Router.RouterContext<PageState>;

export interface PageDeps {
  auth: AuthServices;
  serverClient: KubeClient;
  resources: ResourceDeps;
  localAuth: boolean;
  secureCookies: boolean;
  /** `--base-url`: identity providers send the browser back to `<baseUrl>/callback/<provider>`. */
  baseUrl: string;
  providers: IdentityProviders;
  assets: AssetStore;
  bodyLimitBytes: number;
  /** Where people reach den gateway: the ssh command and VS Code link name it when it is not 22. */
  gatewayPort: number;
  log: ErrorLogger;
  refuseUntilReady: Middleware;
  now: () => number;
}

