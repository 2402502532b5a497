// Host-based app previews: `<port>--<workspace>--<person>.<apps domain>`, one origin per app,
// served on the scheme and port of Den's base URL. The apps domain is an install setting
// (`server.apps.domain`, den server's `--apps-domain`); this is the one home of its rules and
// of the grammar of an app's host, for the chart and for den server alike.
import { isDns1123Label } from '../kube/names.js';

export const APP_HOST_SEPARATOR = '--';

export interface AppHost {
  port: number;
  workspace: string;
  /** The UserSpace name of the workspace's owner; their namespace holds the workspace. */
  person: string;
}

/**
 * Why `domain` cannot hold app hosts beside Den at `baseUrl`, or undefined when it can. Den's
 * own host inside the domain (or the domain inside Den's host) would let an app's script set
 * cookies that reach Den (`Domain=` a parent of both).
 */
export function appsDomainProblem(domain: string, baseUrl: string, baseUrlName = 'baseUrl'): string | undefined {
  const den = new URL(baseUrl).hostname.toLowerCase();
  const apps = domain.toLowerCase();
  if (den === apps) return `must differ from the host of ${baseUrlName} (${den})`;
  if (den.endsWith(`.${apps}`)) return `must not be a parent of the host of ${baseUrlName} (${den}): apps would share cookies with Den`;
  if (apps.endsWith(`.${den}`)) return `must not be under the host of ${baseUrlName} (${den}): apps could set cookies on Den's host`;
  return undefined;
}

/** A port written plainly, 1 to 65535. */
function portOf(text: string): number | undefined {
  if (!/^[1-9]\d{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** The three parts of an app's first DNS label; undefined when it is not one. */
export function parseAppLabel(label: string): AppHost | undefined {
  const first = label.indexOf(APP_HOST_SEPARATOR);
  const last = label.lastIndexOf(APP_HOST_SEPARATOR);
  if (first < 0 || last <= first || !isDns1123Label(label)) return undefined;
  const port = portOf(label.slice(0, first));
  const workspace = label.slice(first + APP_HOST_SEPARATOR.length, last);
  const person = label.slice(last + APP_HOST_SEPARATOR.length);
  if (port === undefined || !isDns1123Label(workspace) || !isDns1123Label(person)) return undefined;
  return { port, workspace, person };
}

/**
 * The first DNS label of an app's host; undefined when the names do not fit one label (63
 * characters) or would not read back as the same three parts (a person's name with `--`):
 * such an app is opened path-based only.
 */
export function appLabel(app: AppHost): string | undefined {
  const label = [String(app.port), app.workspace, app.person].join(APP_HOST_SEPARATOR);
  const back = parseAppLabel(label);
  return back && back.port === app.port && back.workspace === app.workspace && back.person === app.person ? label : undefined;
}

/** The app a request's Host header names under `domain` (any port), or undefined when it names none. */
export function appOfHost(hostHeader: string | undefined, domain: string): AppHost | undefined {
  if (!hostHeader || !domain) return undefined;
  const host = hostHeader.toLowerCase().replace(/:\d+$/, '');
  const suffix = `.${domain.toLowerCase()}`;
  if (!host.endsWith(suffix)) return undefined;
  const label = host.slice(0, -suffix.length);
  return label.includes('.') ? undefined : parseAppLabel(label);
}

/** The address of a path of an app host-based, or undefined when its names do not fit a host. */
export type AppUrl = (app: AppHost, path?: string) => string | undefined;

/** App addresses under `domain` beside Den at `baseUrl`; undefined when host-based previews are off. */
export function appUrlsOf(domain: string | undefined, baseUrl: string): AppUrl | undefined {
  if (!domain) return undefined;
  return (app, path = '/') => {
    const origin = appOrigin(app, domain, baseUrl);
    return origin && origin + (path.startsWith('/') ? path : `/${path}`);
  };
}

/** `<scheme>://<label>.<domain>[:<port>]`, the scheme and port of `baseUrl`; undefined when the app has no label. */
export function appOrigin(app: AppHost, domain: string, baseUrl: string): string | undefined {
  const label = appLabel(app);
  if (!label) return undefined;
  const base = new URL(baseUrl);
  return `${base.protocol}//${label}.${domain}${base.port ? `:${base.port}` : ''}`;
}
