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
  /** The same in the words of the administrator who asked, saying what to do. */
  advice: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface TextRule {
  required: boolean;
  max: number;
  pattern: string;
  what: string;
  /** The field in words (`The app's name`). */
  label: string;
  /** What to write instead, with an example. */
  write: string;
}

function text(value: unknown, field: string, opts: TextRule): AppRuleViolation[] {
  const required = { field, message: 'is required', advice: `${opts.label} is required: ${opts.write}` };
  if (value === undefined || value === null) return opts.required ? [required] : [];
  if (typeof value !== 'string') return [{ field, message: 'must be a string', advice: `${opts.label} is text: ${opts.write}` }];
  if (value.length === 0 && opts.required) return [required];
  if (value.length > opts.max) return [{ field, message: `must be at most ${opts.max} characters (got ${value.length})`, advice: `${opts.label} is at most ${opts.max} characters, and this one has ${value.length}: shorten it.` }];
  return new RegExp(opts.pattern).test(value) ? [] : [{ field, message: `must be ${opts.what}`, advice: `${opts.label} must be ${opts.what}: ${opts.write}` }];
}

const PORT_ADVICE = `A port is the whole number the app listens on in the workspace, from ${APP_LIMITS.portMin} to ${APP_LIMITS.portMax}, such as 8888.`;

/** Every rule `spec.apps` breaks; an empty list when it is valid or absent. */
export function declaredAppViolations(apps: unknown): AppRuleViolation[] {
  if (apps === undefined || apps === null) return [];
  if (!Array.isArray(apps)) return [{ field: 'spec.apps', message: 'must be a list of apps', advice: 'The apps of a catalog entry are a list, each with a name and a port, such as Jupyter on 8888.' }];
  const out: AppRuleViolation[] = [];
  if (apps.length > APP_LIMITS.maxApps) out.push({
      field: 'spec.apps',
      message: `must have at most ${APP_LIMITS.maxApps} apps (got ${apps.length})`,
      advice: `A catalog entry shows at most ${APP_LIMITS.maxApps} app buttons, and this one declares ${apps.length}: keep the ones people use most.`,
    });
  const names = new Set<string>();
  apps.forEach((app, i) => {
    const at = `spec.apps[${i}]`;
    if (!isObject(app)) return void out.push({ field: at, message: 'must be an object with name and port', advice: 'Each app is a name and a port, such as name: Jupyter and port: 8888.' });
    out.push(...text(app.name, `${at}.name`, {
      required: true,
      max: APP_LIMITS.nameMaxLength,
      pattern: APP_NAME_PATTERN,
      what: 'printable text',
      label: "An app's name",
      write: 'it labels its button on the workspace page, such as Jupyter (no line breaks).',
    }));
    if (typeof app.name === 'string') {
      if (names.has(app.name)) out.push({ field: `${at}.name`, message: `"${app.name}" is declared twice; app names must be unique`, advice: `Two apps are named ${app.name}: give each its own name, since it labels its button.` });
      names.add(app.name);
    }
    const port = app.port;
    if (port === undefined || port === null) out.push({ field: `${at}.port`, message: 'is required', advice: `Every app needs its port. ${PORT_ADVICE}` });
    else if (typeof port !== 'number' || !Number.isInteger(port) || port < APP_LIMITS.portMin || port > APP_LIMITS.portMax) {
      out.push({ field: `${at}.port`, message: `must be a whole number from ${APP_LIMITS.portMin} to ${APP_LIMITS.portMax}`, advice: `${JSON.stringify(port)} is not a port. ${PORT_ADVICE}` });
    }
    out.push(...text(app.path, `${at}.path`, {
      required: false,
      max: APP_LIMITS.pathMaxLength,
      pattern: APP_PATH_PATTERN,
      what: 'a path starting with / without spaces',
      label: "An app's path",
      write: 'it is where the app opens, such as /lab (leave it out for /).',
    }));
    out.push(...text(app.icon, `${at}.icon`, {
      required: false,
      max: APP_LIMITS.iconMaxLength,
      pattern: APP_ICON_PATTERN,
      what: 'an https: or data:image/ URL',
      label: "An app's icon",
      write: 'the pages load no other images, so give an https:// address or a data:image/ URL, or leave it out.',
    }));
  });
  return out;
}

/** The apps of a stored entry that a page can show: the valid ones (a stored object may predate the rules). */
export function declaredApps(apps: unknown): DeclaredApp[] {
  if (!Array.isArray(apps)) return [];
  return apps.filter((app): app is DeclaredApp => declaredAppViolations([app]).length === 0);
}
