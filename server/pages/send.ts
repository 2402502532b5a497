// How a page is sent: HTML with its status, or a live page's poll for its live part alone
// (web/templates/live.ts); and the person acting on a page, as REST's handlers take them.
import type { Context } from 'koa';
import { LIVE_FRAGMENT_HEADER } from '../../web/templates/live.js';
import type { Actor } from '../api/lifecycle-events.js';
import type { PageContext } from './types.js';

/** Is this request a live page's poll for its live part alone (web/templates/live.ts)? */
export function wantsLivePart(ctx: Context): boolean {
  return ctx.get(LIVE_FRAGMENT_HEADER) === 'live';
}


export function sendPage(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = body;
}


/** The person acting on a page, with their minted client. */
export function pageActor(ctx: PageContext): Actor {
  const { caller, kube, clientAddress } = ctx.state;
  return { caller, kube, clientAddress };
}
