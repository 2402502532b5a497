// Cookie requests that change something must echo the session's CSRF token in a
// header a cross-site form cannot set (SPEC 5). Bearer requests carry no ambient
// credential, so they need none. And none may come from a script in a browser (fetch metadata,
// below): Den's own pages change things only with their forms, while a script of an app served
// on Den's origin (a path-based preview, docs/preview.md) can read the CSRF token like any
// same-origin script, and would otherwise mint API tokens as the viewer.
import type { Context, Next } from 'koa';
import { HttpError } from '../../koa/errors.js';
import type { CoreState } from './authenticate.js';
import { constantTimeEqual } from './secrets.js';

export const CSRF_HEADER = 'X-CSRF-Token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a cookie-carried change that a browser describes with fetch metadata (`Sec-Fetch-*`, sent
 * by every current browser and settable by no script) is refused: it did not come from a form
 * the person submitted as a whole page (a script's fetch, or a form aimed at a frame). Undefined
 * for a top-level form navigation, and for clients that are not browsers (no `Sec-Fetch-Site`).
 */
export function browserScriptRefusal(site: string, mode: string, dest: string): string | undefined {
  if (!site) return undefined;
  if (mode === 'navigate' && dest === 'document') return undefined;
  return "use Den's pages, or from a program an API token (Authorization: Bearer svc_…)";
}

export function requireCsrfToken() {
  return async function checkCsrf(ctx: Context, next: Next): Promise<void> {
    const { credential } = ctx.state as CoreState;
    if (!SAFE_METHODS.has(ctx.method) && credential.kind === 'cookie') {
      const fromBrowserScript = browserScriptRefusal(ctx.get('Sec-Fetch-Site'), ctx.get('Sec-Fetch-Mode'), ctx.get('Sec-Fetch-Dest'));
      if (fromBrowserScript) throw new HttpError(403, `Den's REST API takes no change from a page's script with the browser's session (so a page's script cannot mint an API token with the browser's session): ${fromBrowserScript}`);
      const sent = ctx.get(CSRF_HEADER);
      if (!sent) throw new HttpError(403, `missing ${CSRF_HEADER} header: send the csrf_token from GET /api/v1/session`);
      if (!constantTimeEqual(sent, credential.session.csrfToken)) throw new HttpError(403, `wrong ${CSRF_HEADER} header: send the csrf_token from GET /api/v1/session`);
    }
    await next();
  };
}
