// The preview proxy's shapes (docs/preview.md): its limits, what it is given, where a request
// is served, who was admitted, and how a credential is checked.
import type { IncomingMessage } from 'node:http';
import type { Log } from '../../process/role.js';
import type { KubeClient } from '../../kube/client.js';
import type { SessionTarget } from '../../shell/target.js';
import type { Viewer } from '../../web/templates/layout.js';
import type { AppHost } from '../../contract/apps-domain.js';
import type { AuthDeps, Credential } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import type { AssetStore } from '../pages/assets.js';
import type { PreviewAddress } from './address.js';
import type { AppPassDeps } from './app-host.js';
import { TUNNEL_IDLE_MS } from './tunnel-pool.js';

/** The limits of the preview proxy (README, docs/preview.md). */
export const PREVIEW_LIMITS = {
  /** Largest request body passed to an app; a longer one is answered 413 (by Content-Length) or cut off. */
  bodyBytes: 64 << 20,
  /** A connection to an app with no byte either way for this long is closed. */
  idleMs: 5 * 60_000,
  /** Connections to apps one person may have open at once (a browser opens 6 per host, plus websockets). */
  tunnelsPerPerson: 32,
  /** How long a workspace's pod, once read, is used without reading it again. */
  targetCacheMs: 5_000 as number,
  /** How long a tunnel an answer left open waits for the next request of the same person to the same port. */
  tunnelIdleMs: TUNNEL_IDLE_MS,
} as const;

export interface PreviewDeps extends Pick<AuthDeps, 'sessions' | 'tokens' | 'directory' | 'minter' | 'serverClient' | 'now'>, AppPassDeps {
  /** `--base-url`: the only Origin a path-based preview's websocket or changing request may come from. */
  baseUrl: string;
  /** `--apps-domain`: host-based previews under it; empty or absent: none. */
  appsDomain?: string;
  /** `--apps-allow-public-ports`: a port shared publicly is served to anyone; else to signed-in people only. */
  allowPublicPorts?: boolean;
  assets: AssetStore;
  log: Log;
  ready: () => boolean;
  limits?: Partial<typeof PREVIEW_LIMITS>;
}

/** Where a request is served: the app's address, and the one origin its pages have. */
export interface Route {
  address: PreviewAddress;
  /** Den's origin (path-based) or the app host's own (host-based). */
  origin: string;
  /** Host-based only: the app the Host header names. */
  app?: AppHost;
}

/** Who asked, as what, and the pod the preview goes to. */
export interface Admitted {
  caller: Caller;
  viewer?: Viewer;
  kube: KubeClient;
  target: SessionTarget;
  /** A port its owner shared: `kube` acts as this owner (their email) for `caller` (contract/port-share.ts). */
  sharedBy?: string;
}

/** How a request's credential is found: a hint from this replica's informer, and the API server's word on it. */
export interface CredentialCheck {
  /** The credential as the informer holds it. */
  hint(): { credential: Credential } | undefined;
  /** The request admitted on the hinted credential, while it is being confirmed. */
  admitHinted(credential: Credential): Promise<Admitted>;
  /** Whether the hint still holds, as the API server says now. */
  confirm(hint: { credential: Credential }): Promise<boolean>;
  /** The request admitted on a confirmed credential; undefined when there is none live. */
  admitConfirmed(): Promise<Admitted | undefined>;
  /** Told of the admission (the page's viewer). */
  admitted(admission: Admitted): void;
}

export function headerOf(req: IncomingMessage, name: string): string {
  const v = req.headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}
