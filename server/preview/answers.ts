// How the preview proxy answers a failure: the status and words of a refusal, on a page of Den
// (path-based) or a bare page of the app host (host-based).
import type { ServerResponse } from 'node:http';
import type { Log } from '../../process/role.js';
import { KubeApiError } from '../../kube/errors.js';
import { HttpError } from '../../koa/errors.js';
import { appHostErrorPage, errorPage, type Viewer } from '../../web/templates/layout.js';
import { CLOSE } from '../../web/terminal-protocol.js';
import { CredentialRefused } from '../auth/authenticate.js';
import type { AssetStore } from '../pages/assets.js';
import { PAGE_CSP } from '../pages/middleware.js';
import { refusalOf, TerminalRefused } from '../terminal/target.js';
import { PreviewAddressError } from './address.js';

function statusOfRefusal(refused: TerminalRefused): number {
  switch (refused.code) {
    case CLOSE.forbidden:
      return 403;
    case CLOSE.notFound:
      return 404;
    case CLOSE.notRunning:
      return 409;
    default:
      return 502;
  }
}

/** A failure to reach the app, as the status and the words the person reads. */
export function previewFailure(err: unknown, what: string): { status: number; message: string } {
  if (err instanceof HttpError || err instanceof PreviewAddressError) return { status: err instanceof HttpError ? err.status : 404, message: err.message };
  if (err instanceof KubeApiError && err.status === 403) return { status: 403, message: `the cluster refused ${what}: ${err.message}` };
  const refused = refusalOf(err, what);
  return { status: statusOfRefusal(refused), message: refused.message };
}

/** A bare page of the app host saying what went wrong (none of Den's pages, styles or scripts). */
export function answerAppHostPage(res: ServerResponse, err: unknown, log: Log, origin: string): void {
  const { status, message } = err instanceof CredentialRefused ? { status: 401, message: err.message } : previewFailure(err, 'opening the app');
  if (status >= 500) log('preview failed', { status, error: message });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers = err instanceof HttpError ? err.headers : {};
  res.writeHead(status, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'", 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
  res.end(appHostErrorPage(status, message, origin));
}

/** A page of Den saying what went wrong. */
export async function answerPage(res: ServerResponse, err: unknown, viewer: Viewer | undefined, deps: { log: Log; assets: AssetStore }): Promise<void> {
  const { status, message } = previewFailure(err, 'opening the preview');
  const headers = err instanceof HttpError ? err.headers : {};
  if (status >= 500) deps.log('preview failed', { status, error: message });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorPage(await deps.assets.load(), status, message, viewer);
  res.writeHead(status, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
  res.end(body);
}
