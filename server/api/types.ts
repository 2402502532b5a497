// What every resource route sees: the authenticated state (server/http/context.ts) and the
// few settings the app passes down.
import type Router from '@koa/router';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import type { RecordDenEvent } from '../../kube/den-events.js';
import type { Log } from '../../process/role.js';
import type { AppUrl } from '../../contract/apps-domain.js';
import type { AuthenticatedState } from '../http/context.js';

export type ApiRouter = Router<AuthenticatedState>;
export type ApiContext = Router.RouterContext<AuthenticatedState>;

export interface ResourceDeps {
  /** Extended resource counted as GPUs (`--gpu-resource`, default `nvidia.com/gpu`). */
  gpuResource: string;
  /** JSON logger of the process (`process/role.ts`); never given secrets. */
  log: Log;
  /** Writes Den's Events (kube/den-events.ts) about what people do, with their own token. */
  events: RecordDenEvent;
  /** Access reviews in flight at once when the catalog is filtered (default 16). */
  catalogConcurrency?: number;
  /**
   * The server's own client: whether a person named in a share exists (server/api/shares.ts
   * grantShare). createApp sets it.
   */
  serverClient?: KubeClient;
  /**
   * The share RoleBindings labelled for a guest, from den server's watch-backed cache
   * (server/auth/services.ts); createApp sets it.
   */
  sharesNaming: (guest: string) => KubeObject[];
  /** Host-based app addresses (`--apps-domain`); absent when they are off. */
  appUrl?: AppUrl;
  /** `--apps-allow-public-ports` (with an apps domain): a port may be shared with anyone. */
  allowPublicPorts?: boolean;
}
