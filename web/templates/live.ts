// A part of a page that follows the cluster without a reload: web/scripts/live.ts re-reads it
// from `data-live-url` every 3 s, swaps it in only when it changed, and reads out through the
// status line beside it only the `data-announce` texts that changed (not every refresh).
import { html, type Html } from '../html.js';

/** Request header asking a page's own URL for its live part alone (the dashboard, the admin list). */
export const LIVE_FRAGMENT_HEADER = 'X-Den-Fragment';

/**
 * Request header of the polls that also ask for the parts that cost more to read (the workspace
 * page's listening ports, one pods/exec): every `slowEvery`-th poll of a live region, the first included.
 */
export const LIVE_SLOW_PARTS_HEADER = 'X-Den-Slow-Parts';

/**
 * Another part of the same page that follows the cluster, away from the live region (the
 * workspace page's Details card and its Events and YAML tabs): drawn in place by the page, and
 * carried by the live region's answer as `partInFragment`, which the script swaps in here. One
 * poll keeps every part current.
 */
export function livePart(key: string, content: Html): Html {
  return html`<div data-live-part="${key}">${content}</div>`;
}

/** A live part as the live region's fragment carries it: not drawn there, swapped into its place. */
export function partInFragment(key: string, content: Html): Html {
  return html`<template data-live-part="${key}">${content}</template>`;
}

export function liveRegion(url: string, content: Html, slowEvery?: number): Html {
  return html`<div id="live" data-live-url="${url}"${slowEvery ? html` data-live-slow-every="${String(slowEvery)}"` : ''}>${content}</div>
<p id="live-announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></p>`;
}
