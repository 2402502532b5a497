// devcontainer.json in a freshly cloned repository (containers.dev): found, read as JSONC and
// turned into the compact summary the Workspace hook applies (contract/devcontainer.ts). What
// Den cannot apply is listed with why, never dropped silently.
import { readFile } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { DEVCONTAINER_FILES, devcontainerFileOf } from '../contract/workspace-source.js';
import { ENV_NAME_PATTERN } from '../contract/personal.js';
import { USER_NAME, type DevcontainerPort, type DevcontainerSummary } from '../contract/devcontainer.js';


/** JSONC to JSON: comments (`//`, `/* *\/`) and trailing commas removed, strings left as they are. */
export function jsoncToJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      // An unclosed comment is kept, so JSON.parse reports where it is.
      if (end < 0) return out + text.slice(i);
      out += ' ';
      i = end + 2;
    } else if (c === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      const next = text[j];
      // A comment between the comma and the bracket is stripped on a second pass.
      if (next !== '}' && next !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function parseJsonc(text: string): unknown {
  const once = jsoncToJson(text);
  return JSON.parse(jsoncToJson(once));
}

/** Settings Den applies (docs/workspace-source.md); `name` and `$schema` describe the file. */
const APPLIED = new Set([
  'image', 'containerEnv', 'remoteEnv', 'containerUser', 'remoteUser', 'workspaceFolder', 'onCreateCommand', 'postCreateCommand',
  'postStartCommand', 'forwardPorts', 'portsAttributes', 'customizations', 'hostRequirements', 'name', '$schema',
]);

/** Why Den leaves a setting alone, in the person's words. */
const WHY: Record<string, string> = {
  build: 'Den builds no images: the catalog is the administrators\' gate; ask for a catalog entry with this image',
  dockerFile: 'Den builds no images: ask an administrator for a catalog entry with this image',
  features: 'Den installs no features at start: ask for a catalog image that has them, or install them in postCreateCommand',
  dockerComposeFile: 'Den runs one container per workspace, not a Compose project',
  mounts: 'the workspace\'s volumes are set on the workspace (spec.volumes), not by the repository',
  runArgs: 'Den runs no docker command; the pod is made by Kubernetes',
  initializeCommand: 'it runs on the local machine, which Den does not have',
  updateContentCommand: 'Den runs onCreateCommand and postCreateCommand only',
  postAttachCommand: 'Den runs onCreateCommand, postCreateCommand and postStartCommand only',
  privileged: 'workspaces never run privileged',
  capAdd: 'workspaces get no extra capabilities',
  securityOpt: 'workspaces get no security options from the repository',
};

const SUBSTITUTION = /\$\{([A-Za-z]+)(?::([^}:]*))?(?::([^}]*))?\}/g;

/** `${containerWorkspaceFolder}` and friends; undefined when a value uses one Den cannot fill in. */
function substitute(value: string, folder: string): string | undefined {
  let unsupported = false;
  const out = value.replace(SUBSTITUTION, (whole, name: string, arg?: string, fallback?: string) => {
    if (name === 'containerWorkspaceFolder' || name === 'localWorkspaceFolder') return folder;
    if (name === 'containerWorkspaceFolderBasename' || name === 'localWorkspaceFolderBasename') return basename(folder);
    // There is no local machine: its variables are empty, or their default.
    if (name === 'localEnv' && arg !== undefined) return fallback ?? '';
    unsupported = true;
    return whole;
  });
  return unsupported ? undefined : out;
}

/** A command as devcontainer.json spells it: a shell string, an argv array, or named commands run one after the other. */
function commandScript(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value.map(shellQuote).join(' ');
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const parts = Object.values(value).map(commandScript).filter((s): s is string => s !== undefined);
    return parts.length > 0 ? parts.map((p) => `(${p})`).join(' && ') : undefined;
  }
  return undefined;
}

export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function envOf(setting: string, value: unknown, folder: string, notApplied: DevcontainerSummary['notApplied'] & object): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    notApplied.push({ setting, why: 'it is not an object of variables' });
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!ENV_NAME_PATTERN.test(name)) notApplied.push({ setting: `${setting}.${name}`, why: 'not a plain variable name' });
    else if (typeof raw !== 'string') notApplied.push({ setting: `${setting}.${name}`, why: 'its value is not a string' });
    else {
      const filled = substitute(raw, folder);
      if (filled === undefined) notApplied.push({ setting: `${setting}.${name}`, why: 'it uses a ${...} variable Den does not fill in (only ${containerWorkspaceFolder}, its Basename and ${localEnv:NAME:default})' });
      else env[name] = filled;
    }
  }
  return Object.keys(env).length > 0 ? env : undefined;
}

function portsOf(forward: unknown, attributes: unknown, notApplied: NonNullable<DevcontainerSummary['notApplied']>): DevcontainerPort[] | undefined {
  if (!Array.isArray(forward)) {
    if (forward !== undefined) notApplied.push({ setting: 'forwardPorts', why: 'it is not a list of ports' });
    return undefined;
  }
  const labels = typeof attributes === 'object' && attributes !== null ? (attributes as Record<string, { label?: unknown }>) : {};
  const ports: DevcontainerPort[] = [];
  for (const entry of forward) {
    const text = String(entry);
    const match = /^(?:(?:localhost|127\.0\.0\.1):)?(\d{1,5})$/.exec(text);
    const port = match ? Number(match[1]) : NaN;
    if (!(port >= 1 && port <= 65535)) {
      notApplied.push({ setting: `forwardPorts "${text}"`, why: 'only ports of the workspace itself are served (a number, or localhost:<port>)' });
      continue;
    }
    if (ports.some((p) => p.port === port)) continue;
    const label = labels[String(port)]?.label;
    ports.push({ port, ...(typeof label === 'string' && label.trim() !== '' ? { label: label.trim().slice(0, 63) } : {}) });
  }
  return ports.length > 0 ? ports : undefined;
}

/** `/workspaces/<repo>/x` (the containers.dev default place) becomes `<home>/<clone>/x`; a path inside the home stays. */
function folderOf(value: unknown, home: string, clone: string, notApplied: NonNullable<DevcontainerSummary['notApplied']>): string {
  if (value === undefined) return clone;
  const filled = typeof value === 'string' ? substitute(value, clone) : undefined;
  const normalized = filled !== undefined && filled.startsWith('/') ? posix.normalize(filled).replace(/\/+$/, '') : undefined;
  const conventional = `/workspaces/${basename(clone)}`;
  if (normalized !== undefined && (normalized === conventional || normalized.startsWith(`${conventional}/`))) return clone + normalized.slice(conventional.length);
  if (normalized !== undefined && (normalized === home || normalized.startsWith(`${home}/`))) return normalized;
  notApplied.push({ setting: 'workspaceFolder', why: `"${String(value)}" is not inside the home (${home}) or /workspaces/${basename(clone)}; sessions start in ${clone}` });
  return clone;
}

function userOf(setting: string, value: unknown, notApplied: NonNullable<DevcontainerSummary['notApplied']>): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && USER_NAME.test(value)) return value;
  notApplied.push({ setting, why: 'not a user name' });
  return undefined;
}

function hostRequirementsOf(value: unknown): DevcontainerSummary['hostRequirements'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { cpus, memory, storage } = value as { cpus?: unknown; memory?: unknown; storage?: unknown };
  const out: NonNullable<DevcontainerSummary['hostRequirements']> = {};
  if (typeof cpus === 'number' && cpus > 0) out.cpus = cpus;
  if (typeof memory === 'string') out.memory = memory;
  if (typeof storage === 'string') out.storage = storage;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The summary of a parsed devcontainer.json for a clone at `<home>/<directory>`: what Den applies,
 * with `${containerWorkspaceFolder}` filled in, and every other setting listed with why.
 */
export function summarizeDevcontainer(parsed: Record<string, unknown>, file: string, home: string, directory: string): DevcontainerSummary {
  const clone = posix.join(home, directory);
  const notApplied: NonNullable<DevcontainerSummary['notApplied']> = [];
  const folder = folderOf(parsed.workspaceFolder, home, clone, notApplied);
  const summary: DevcontainerSummary = { file: posix.join(directory, file) };
  if (parsed.image !== undefined) {
    if (typeof parsed.image === 'string' && parsed.image.trim() !== '') summary.image = parsed.image.trim();
    else notApplied.push({ setting: 'image', why: 'not an image reference' });
  }
  const containerEnv = parsed.containerEnv === undefined ? undefined : envOf('containerEnv', parsed.containerEnv, folder, notApplied);
  const remoteEnv = parsed.remoteEnv === undefined ? undefined : envOf('remoteEnv', parsed.remoteEnv, folder, notApplied);
  if (containerEnv) summary.containerEnv = containerEnv;
  if (remoteEnv) summary.remoteEnv = remoteEnv;
  const containerUser = userOf('containerUser', parsed.containerUser, notApplied);
  const remoteUser = userOf('remoteUser', parsed.remoteUser, notApplied);
  if (containerUser) summary.containerUser = containerUser;
  if (remoteUser) summary.remoteUser = remoteUser;
  summary.workspaceFolder = folder;
  for (const name of ['onCreateCommand', 'postCreateCommand', 'postStartCommand'] as const) {
    if (parsed[name] === undefined) continue;
    const script = commandScript(parsed[name]);
    if (script !== undefined) summary[name] = script;
    else notApplied.push({ setting: name, why: 'not a command (a string, a list of words, or an object of commands)' });
  }
  const ports = portsOf(parsed.forwardPorts, parsed.portsAttributes, notApplied);
  if (ports) summary.ports = ports;
  const extensions = (parsed.customizations as { vscode?: { extensions?: unknown } } | undefined)?.vscode?.extensions;
  if (Array.isArray(extensions)) {
    const ids = extensions.filter((e): e is string => typeof e === 'string' && /^[A-Za-z0-9][A-Za-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.-]*$/.test(e));
    if (ids.length > 0) summary.extensions = ids;
  }
  const requirements = hostRequirementsOf(parsed.hostRequirements);
  if (requirements) summary.hostRequirements = requirements;
  for (const setting of Object.keys(parsed).filter((k) => !APPLIED.has(k)).sort()) {
    notApplied.push({ setting, why: WHY[setting] ?? 'Den does not apply this setting' });
  }
  const customizations = parsed.customizations;
  if (typeof customizations === 'object' && customizations !== null) {
    for (const tool of Object.keys(customizations).filter((t) => t !== 'vscode').sort()) notApplied.push({ setting: `customizations.${tool}`, why: 'Den shows only customizations.vscode.extensions' });
  }
  if (notApplied.length > 0) summary.notApplied = notApplied;
  return summary;
}

export type DevcontainerReading = { found: false } | { found: true; summary: DevcontainerSummary };

/**
 * The devcontainer.json of the clone at `<home>/<directory>`: the chosen one (spec.source.devcontainer),
 * else the first of DEVCONTAINER_FILES. A chosen file that is missing is a problem, not a silence.
 */
export async function readDevcontainer(home: string, directory: string, choice?: string): Promise<DevcontainerReading> {
  const dir = join(home, directory);
  const files = choice ? [devcontainerFileOf(choice)] : DEVCONTAINER_FILES;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(join(dir, file), 'utf8');
    } catch {
      continue;
    }
    const shown = posix.join(directory, file);
    try {
      const parsed = parseJsonc(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { found: true, summary: { file: shown, problem: 'it is not a JSON object' } };
      return { found: true, summary: summarizeDevcontainer(parsed as Record<string, unknown>, file, home, directory) };
    } catch (err) {
      return { found: true, summary: { file: shown, problem: `it could not be read as JSON with comments (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 200)})` } };
    }
  }
  if (choice) return { found: true, summary: { file: posix.join(directory, files[0]!), problem: `the repository has no ${files[0]} (spec.source.devcontainer is "${choice}")` } };
  return { found: false };
}

/** What the clone step adds to its message about the repository's devcontainer.json, or ''. */
export function devcontainerNote(reading: DevcontainerReading): string {
  if (!reading.found) return '';
  const { summary } = reading;
  if (summary.problem) return ` ~/${summary.file}: ${summary.problem}; Den applies none of it.`;
  return ` Read ~/${summary.file}; the workspace applies it.`;
}
