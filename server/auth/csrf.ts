// Cookie requests that change something must echo the session's CSRF token in a
// header a cross-site form cannot set (SPEC 5). Bearer requests carry no ambient
// credential, so they need none.
import type { Context, Next } from 'koa';
import { HttpError } from '../../koa/errors.js';
import type { CoreState } from './authenticate.js';
import { constantTimeEqual } from './secrets.js';

export const CSRF_HEADER = 'X-CSRF-Token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requireCsrfToken() {
  return async function checkCsrf(ctx: Context, next: Next): Promise<void> {
    const { credential } = ctx.state as CoreState;
    if (!SAFE_METHODS.has(ctx.method) && credential.kind === 'cookie') {
      const sent = ctx.get(CSRF_HEADER);
      if (!sent) throw new HttpError(403, `missing ${CSRF_HEADER} header: send the csrf_token from GET /api/v1/session`);
      if (!constantTimeEqual(sent, credential.session.csrfToken)) throw new HttpError(403, `wrong ${CSRF_HEADER} header: send the csrf_token from GET /api/v1/session`);
    }
    await next();
  };
}
