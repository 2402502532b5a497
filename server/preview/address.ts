// Where a port preview is addressed: `/w/<workspace>/ports/<port>/…` on Den's own origin,
// in the viewer's own namespace. The prefix up to the port is what the app is told in
// X-Forwarded-Prefix and what its cookies are confined to.
import { isDns1123Label } from '../../kube/names.js';
import { parsePort, PREVIEW_PATH, previewPrefix } from '../../web/preview-address.js';

export interface PreviewAddress {
  workspace: string;
  port: number;
  /** `/w/<workspace>/ports/<port>`, without a trailing slash. */
  prefix: string;
  /** The path and query the app is asked for, starting with `/`. */
  upstreamPath: string;
  /** False for `/w/<workspace>/ports/<port>` itself, which is redirected to the same with `/`. */
  slashed: boolean;
}

/** Whether `path` (no query) is a preview path at all; the details may still be refused by `previewAddress`. */
export function isPreviewPath(path: string): boolean {
  return PREVIEW_PATH.test(path);
}

export class PreviewAddressError extends Error {
  override readonly name = 'PreviewAddressError';
}

/** Parses a request URL (path and query); throws PreviewAddressError saying what is wrong with it. */
export function previewAddress(url: string): PreviewAddress {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = queryAt < 0 ? '' : url.slice(queryAt);
  const match = PREVIEW_PATH.exec(path);
  if (!match) throw new PreviewAddressError(`not a preview address: ${path.slice(0, 200)}`);
  const workspace = match[1]!;
  if (!isDns1123Label(workspace)) throw new PreviewAddressError(`"${workspace.slice(0, 100)}" is not a workspace name`);
  const port = parsePort(match[2]!);
  if (port === undefined) throw new PreviewAddressError(`"${match[2]!.slice(0, 20)}" is not a port: use a number from 1 to 65535`);
  const rest = match[3] ?? '';
  return { workspace, port, prefix: previewPrefix(workspace, port), upstreamPath: (rest || '/') + query, slashed: rest !== '' };
}
