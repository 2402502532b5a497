// The rules of a WorkspaceImage's declared apps (`spec.apps[]`, an extension beside SPEC 2.2 for
// port preview), in one place: the CRD schema takes its bounds from here, and the admission
// webhook vworkspaceimage.den.dev refuses with these checks (also on API servers that drop
// the schema's CEL rules). Each app is a button on the workspace page opening
// `/w/<workspace>/ports/<port><path>` through Den.

export const APP_LIMITS = {
  maxApps: 16,
  nameMaxLength: 40,
  pathMaxLength: 1024,
  iconMaxLength: 2048,
  portMin: 1,
  portMax: 65535,
} as const;

/** A path in the app, as the schema's pattern and the webhook check it: `/`, then no space or control character. */
export const APP_PATH_PATTERN = '^/[^\\s\\x00-\\x1f\\x7f]*$';
/** An icon the pages' CSP lets through (img-src https: data:): an https URL or a data:image URL. */
export const APP_ICON_PATTERN = '^(https://|data:image/)[^\\s]*$';
/** A button label: printable, no control characters. */
export const APP_NAME_PATTERN = '^[^\\x00-\\x1f\\x7f]+$';

export interface DeclaredApp {
  name: string;
  port: number;
  path?: string;
  icon?: string;
}

export interface AppRuleViolation {
  field: string;
  message: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(value: unknown, field: string, opts: { required: boolean; max: number; pattern: string; what: string }): AppRuleViolation[] {
  if (value === undefined || value === null) return opts.required ? [{ field, message: 'is required' }] : [];
  if (typeof value !== 'string') return [{ field, message: 'must be a string' }];
  if (value.length === 0 && opts.required) return [{ field, message: 'is required' }];
  if (value.length > opts.max) return [{ field, message: `must be at most ${opts.max} characters (got ${value.length})` }];
  return new RegExp(opts.pattern).test(value) ? [] : [{ field, message: `must be ${opts.what}` }];
}

/** Every rule `spec.apps` breaks; an empty list when it is valid or absent. */
export function declaredAppViolations(apps: unknown): AppRuleViolation[] {
  if (apps === undefined || apps === null) return [];
  if (!Array.isArray(apps)) return [{ field: 'spec.apps', message: 'must be a list of apps' }];
  const out: AppRuleViolation[] = [];
  if (apps.length > APP_LIMITS.maxApps) out.push({ field: 'spec.apps', message: `must have at most ${APP_LIMITS.maxApps} apps (got ${apps.length})` });
  const names = new Set<string>();
  apps.forEach((app, i) => {
    const at = `spec.apps[${i}]`;
    if (!isObject(app)) return void out.push({ field: at, message: 'must be an object with name and port' });
    out.push(...text(app.name, `${at}.name`, { required: true, max: APP_LIMITS.nameMaxLength, pattern: APP_NAME_PATTERN, what: 'printable text' }));
    if (typeof app.name === 'string') {
      if (names.has(app.name)) out.push({ field: `${at}.name`, message: `"${app.name}" is declared twice; app names must be unique` });
      names.add(app.name);
    }
    const port = app.port;
    if (port === undefined || port === null) out.push({ field: `${at}.port`, message: 'is required' });
    else if (typeof port !== 'number' || !Number.isInteger(port) || port < APP_LIMITS.portMin || port > APP_LIMITS.portMax) {
      out.push({ field: `${at}.port`, message: `must be a whole number from ${APP_LIMITS.portMin} to ${APP_LIMITS.portMax}` });
    }
    out.push(...text(app.path, `${at}.path`, { required: false, max: APP_LIMITS.pathMaxLength, pattern: APP_PATH_PATTERN, what: 'a path starting with / without spaces' }));
    out.push(...text(app.icon, `${at}.icon`, { required: false, max: APP_LIMITS.iconMaxLength, pattern: APP_ICON_PATTERN, what: 'an https: or data:image/ URL' }));
  });
  return out;
}

/** The apps of a stored entry that a page can show: the valid ones (a stored object may predate the rules). */
export function declaredApps(apps: unknown): DeclaredApp[] {
  if (!Array.isArray(apps)) return [];
  return apps.filter((app): app is DeclaredApp => declaredAppViolations([app]).length === 0);
}
