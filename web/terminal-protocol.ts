// The browser terminal's websocket protocol, shared by den server and the page script
// (web/scripts/terminal.ts bundles this file, so it imports nothing).
//
// The browser offers two subprotocols: TERMINAL_PROTOCOL, which the server picks, and
// `csrf.<token>` carrying the session's CSRF token (a browser cannot set headers on a
// websocket, and a subprotocol stays out of URLs and access logs).
// Browser to server: binary frames are keystrokes (stdin); text frames are JSON control
// messages, only `{"type":"resize","cols":n,"rows":n}`.
// Server to browser: binary frames are terminal output; text frames are JSON notices:
// `{"type":"error","message":…}` before a refusal and `{"type":"exit","code":n,"message"?:…}`.

export const TERMINAL_PROTOCOL = 'den.terminal.v1';
export const CSRF_PROTOCOL_PREFIX = 'csrf.';

/** Close codes past 4000 are the application's own; the close reason repeats the notice's message (cut to fit). */
export const CLOSE = {
  /** The shell ended. */
  exited: 1000,
  /** den server is shutting down. */
  goingAway: 1001,
  /** The browser sent something the protocol does not have. */
  protocolError: 1008,
  /** The workspace cannot be connected to as asked (bad size, too many terminals). */
  badRequest: 4400,
  /** The session the terminal was opened with ended (signed out, expired, password changed). */
  sessionEnded: 4401,
  /** The cluster's RBAC refused reading the workspace or opening the exec. */
  forbidden: 4403,
  notFound: 4404,
  /** The workspace is not Running (or its pod is not there yet). */
  notRunning: 4409,
  /** The cluster API failed or could not be reached. */
  clusterFailed: 4502,
} as const;

export interface ResizeMessage {
  type: 'resize';
  cols: number;
  rows: number;
}

export type ServerNotice = { type: 'error'; message: string } | { type: 'exit'; code: number; message?: string };

/** Largest terminal the server passes on; xterm.js never asks for more. */
export const MAX_DIMENSION = 1000;

/** A terminal dimension from the browser, or 0 when it is not a usable one. */
export function dimension(n: unknown): number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? Math.min(n, MAX_DIMENSION) : 0;
}
