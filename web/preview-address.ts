// The grammar of a path-based preview address, `/w/<workspace>/ports/<port>/…`: shared by den
// server (server/preview/address.ts, which also checks the workspace name) and the templates
// and scripts that link to previews (this file imports nothing, so page scripts bundle it).

export const PREVIEW_PATH = /^\/w\/([^/]+)\/ports\/([^/]+)(\/.*)?$/;

/** `/w/<workspace>/ports/<port>`, without a trailing slash: what the app is told in X-Forwarded-Prefix. */
export function previewPrefix(workspace: string, port: number): string {
  return `/w/${workspace}/ports/${port}`;
}

/** The address of the app's root (or of `path` in it) through the preview. */
export function previewUrl(workspace: string, port: number, path = '/'): string {
  return previewPrefix(workspace, port) + (path.startsWith('/') ? path : `/${path}`);
}

/** A TCP port a preview may name: 1 to 65535, written plainly. */
export function parsePort(text: string): number | undefined {
  if (!/^[1-9]\d{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}
