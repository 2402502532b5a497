// Identity providers as the administrator declares them: a YAML file (`--identity-providers-file`)
// and/or DEN_OIDC_<NAME>_* / DEN_GITHUB_<NAME>_* variables, read once at start into typed
// records. Every mistake is reported, one line each, before anything runs; client secrets come
// from a file or a variable and are never part of a message.
import { readFileSync } from 'node:fs';
import YAML from 'yaml';

export type OidcPreset = 'google' | 'entra' | 'gitlab' | 'generic';
export const OIDC_PRESETS: readonly OidcPreset[] = ['google', 'entra', 'gitlab', 'generic'];

/** Entra's multi-tenant authorities: the token's issuer names the person's own tenant. */
export const ENTRA_MULTI_TENANT = ['organizations', 'common'] as const;
export const ENTRA_AUTHORITY = 'https://login.microsoftonline.com';
export const GOOGLE_ISSUER = 'https://accounts.google.com';
export const GITLAB_COM = 'https://gitlab.com';
export const GITHUB_COM = 'https://github.com';

interface ProviderBase {
  /** In `/login/<name>` and `/callback/<name>`, and in `provider:<name>` of a session. */
  name: string;
  /** What the sign-in page shows. */
  label: string;
  clientId: string;
  /** Never logged, never in a message. */
  clientSecret: string;
  scopes: string[];
}

export interface OidcProviderConfig extends ProviderBase {
  kind: 'oidc';
  preset: OidcPreset;
  /** Issuer identifier discovered at `<issuer>/.well-known/openid-configuration`; Entra multi-tenant: `…/{tenantid}/v2.0` after discovery. */
  issuer: string;
  /** Entra: e-mail domains whose addresses count as verified without `xms_edov`. Lower case. */
  trustedEmailDomains: string[];
}

export interface GithubProviderConfig extends ProviderBase {
  kind: 'github';
  /** https://github.com or a GitHub Enterprise Server base URL. */
  baseUrl: string;
  /** https://api.github.com, or `<baseUrl>/api/v3` for GitHub Enterprise Server. */
  apiUrl: string;
}

export type ProviderConfig = OidcProviderConfig | GithubProviderConfig;

export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export const PROVIDER_NAME = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;

const DEFAULT_LABELS: Record<OidcPreset | 'github', string> = {
  google: 'Google',
  entra: 'Microsoft',
  gitlab: 'GitLab',
  generic: 'Single sign-on',
  github: 'GitHub',
};

const DEFAULT_SCOPES: Record<OidcPreset | 'github', string[]> = {
  google: ['openid', 'email'],
  entra: ['openid', 'email', 'profile'],
  gitlab: ['openid', 'email'],
  generic: ['openid', 'email'],
  github: ['read:user', 'user:email'],
};

/** One provider as written in the file or gathered from variables, before checking. */
export interface RawProvider {
  /** Where it was declared, for messages: `identity-providers.yaml providers[2]` or `DEN_OIDC_CORP_*`. */
  where: string;
  fields: Record<string, unknown>;
}

const FIELDS = ['name', 'kind', 'preset', 'label', 'clientId', 'clientSecretFile', 'clientSecretEnv', 'scopes', 'issuer', 'tenant', 'baseUrl', 'trustedEmailDomains'];

export interface SecretSources {
  readFile(path: string): string;
  env: Record<string, string | undefined>;
}

/** http is for a provider on this machine (development, tests); anything else must be https. */
function checkUrl(value: unknown, field: string, problems: string[], where: string): string | undefined {
  if (typeof value !== 'string' || !value) {
    problems.push(`${where}: ${field} must be a URL`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${where}: ${field} must be an absolute URL, got '${value}'`);
    return undefined;
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    problems.push(`${where}: ${field} must be an https URL (http only for localhost), got '${value}'`);
    return undefined;
  }
  if (url.search || url.hash) {
    problems.push(`${where}: ${field} must not have a query or fragment, got '${value}'`);
    return undefined;
  }
  return value.replace(/\/+$/, '');
}

function stringList(value: unknown, field: string, problems: string[], where: string): string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value;
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string' || !s)) {
    problems.push(`${where}: ${field} must be a list of non-empty strings`);
    return undefined;
  }
  return list as string[];
}

function clientSecretOf(f: Record<string, unknown>, where: string, problems: string[], sources: SecretSources): string {
  const { clientSecretFile: file, clientSecretEnv: env } = f;
  if (file !== undefined && env !== undefined) {
    problems.push(`${where}: give clientSecretFile or clientSecretEnv, not both`);
    return '';
  }
  if (typeof file === 'string' && file) {
    let text: string;
    try {
      text = sources.readFile(file);
    } catch (err) {
      problems.push(`${where}: clientSecretFile ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return '';
    }
    const secret = text.replace(/\r?\n$/, '');
    if (!secret) problems.push(`${where}: clientSecretFile ${file} is empty`);
    return secret;
  }
  if (typeof env === 'string' && env) {
    const secret = sources.env[env];
    if (!secret) problems.push(`${where}: clientSecretEnv names ${env}, which is not set`);
    return secret ?? '';
  }
  if (file !== undefined || env !== undefined) problems.push(`${where}: clientSecretFile and clientSecretEnv must be non-empty strings`);
  else problems.push(`${where}: a client secret is required: set clientSecretFile (a file holding it) or clientSecretEnv (a variable holding it)`);
  return '';
}

/** Checks one declared provider; pushes one line per mistake and returns undefined when there was any. */
export function checkProvider(raw: RawProvider, sources: SecretSources, problems: string[]): ProviderConfig | undefined {
  const before = problems.length;
  const f = raw.fields;
  const name = f.name;
  const where = typeof name === 'string' && name ? `identity provider ${name} (${raw.where})` : raw.where;
  for (const key of Object.keys(f)) {
    if (key === 'clientSecret') problems.push(`${where}: clientSecret is not read from the configuration; put the secret in a file (clientSecretFile) or a variable (clientSecretEnv)`);
    else if (!FIELDS.includes(key)) problems.push(`${where}: unknown field ${key} (known: ${FIELDS.join(', ')})`);
  }
  if (typeof name !== 'string' || !PROVIDER_NAME.test(name)) {
    problems.push(`${where}: name must be 1-32 of a-z 0-9 - (it is part of /login/<name> and /callback/<name>), got ${JSON.stringify(name ?? null)}`);
  }
  const kind = f.kind ?? 'oidc';
  if (kind !== 'oidc' && kind !== 'github') problems.push(`${where}: kind must be oidc or github, got ${JSON.stringify(kind)}`);
  const preset = (f.preset ?? 'generic') as OidcPreset;
  if (kind === 'oidc' && !OIDC_PRESETS.includes(preset)) problems.push(`${where}: preset must be one of ${OIDC_PRESETS.join(', ')}, got ${JSON.stringify(f.preset)}`);
  if (kind === 'github' && f.preset !== undefined) problems.push(`${where}: preset applies to kind oidc only`);
  const style = kind === 'github' ? 'github' : preset;
  if (typeof f.clientId !== 'string' || !f.clientId.trim()) problems.push(`${where}: clientId is required`);
  if (f.label !== undefined && (typeof f.label !== 'string' || !f.label.trim() || f.label.length > 64)) problems.push(`${where}: label must be 1-64 characters`);
  const scopes = stringList(f.scopes, 'scopes', problems, where);
  const clientSecret = clientSecretOf(f, where, problems, sources);
  const only = (field: string, allowed: boolean, rule: string) => {
    if (f[field] !== undefined && !allowed) problems.push(`${where}: ${field} ${rule}`);
  };
  only('tenant', style === 'entra', 'applies to preset entra only');
  only('trustedEmailDomains', style === 'entra', 'applies to preset entra only (other providers say themselves whether an e-mail is verified)');
  only('baseUrl', style === 'gitlab' || style === 'github', 'applies to preset gitlab and kind github only');
  only('issuer', kind === 'oidc', 'applies to kind oidc only');

  const base = { name: name as string, label: ((f.label as string | undefined) ?? DEFAULT_LABELS[style] ?? '').trim(), clientId: String(f.clientId ?? '').trim(), clientSecret };
  if (kind === 'github') {
    const baseUrl = f.baseUrl === undefined ? GITHUB_COM : checkUrl(f.baseUrl, 'baseUrl', problems, where);
    if (problems.length > before || !baseUrl) return undefined;
    const apiUrl = baseUrl === GITHUB_COM ? 'https://api.github.com' : `${baseUrl}/api/v3`;
    return { ...base, kind: 'github', baseUrl, apiUrl, scopes: scopes ?? DEFAULT_SCOPES.github };
  }

  let issuer: string | undefined;
  let trustedEmailDomains: string[] = [];
  if (f.issuer !== undefined) issuer = checkUrl(f.issuer, 'issuer', problems, where);
  switch (preset) {
    case 'google':
      issuer ??= GOOGLE_ISSUER;
      break;
    case 'gitlab':
      if (f.issuer !== undefined && f.baseUrl !== undefined) problems.push(`${where}: give baseUrl (the GitLab address) or issuer, not both`);
      else if (f.issuer === undefined) issuer = f.baseUrl === undefined ? GITLAB_COM : checkUrl(f.baseUrl, 'baseUrl', problems, where);
      break;
    case 'entra': {
      const tenant = f.tenant;
      if (typeof tenant !== 'string' || !/^[A-Za-z0-9.-]{1,253}$/.test(tenant)) {
        problems.push(`${where}: tenant is required: the directory (tenant) id, a verified domain, or organizations / common for any work account`);
      } else if (f.issuer === undefined) {
        issuer = `${ENTRA_AUTHORITY}/${tenant}/v2.0`;
      } else if ((ENTRA_MULTI_TENANT as readonly string[]).includes(tenant)) {
        problems.push(`${where}: a multi-tenant tenant (${tenant}) needs the public authority ${ENTRA_AUTHORITY}; drop issuer`);
      }
      const domains = stringList(f.trustedEmailDomains, 'trustedEmailDomains', problems, where) ?? [];
      for (const d of domains) if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(d)) problems.push(`${where}: trustedEmailDomains entry '${d}' is not a domain name`);
      trustedEmailDomains = domains.map((d) => d.toLowerCase());
      break;
    }
    case 'generic':
      if (f.issuer === undefined) problems.push(`${where}: issuer is required for preset generic (Keycloak: https://host/realms/<realm>)`);
      break;
  }
  if (scopes && !scopes.includes('openid')) problems.push(`${where}: scopes must include openid`);
  if (problems.length > before || !issuer) return undefined;
  return { ...base, kind: 'oidc', preset, issuer, trustedEmailDomains, scopes: scopes ?? DEFAULT_SCOPES[preset] };
}

/** The providers of a YAML file: `providers:` a list of provider entries. */
export function rawProvidersOfFile(path: string, text: string, problems: string[]): RawProvider[] {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    problems.push(`${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    return [];
  }
  if (doc === null || doc === undefined) return [];
  const list = (doc as { providers?: unknown }).providers;
  if (typeof doc !== 'object' || Array.isArray(doc) || Object.keys(doc).some((k) => k !== 'providers') || !Array.isArray(list)) {
    problems.push(`${path}: expected a mapping with one key, providers: a list of identity providers`);
    return [];
  }
  return list.flatMap((entry, i): RawProvider[] => {
    const where = `${path} providers[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where}: must be a mapping (name, kind, clientId, …)`);
      return [];
    }
    return [{ where, fields: entry as Record<string, unknown> }];
  });
}

const ENV_KEYS: Record<string, string> = {
  PRESET: 'preset',
  LABEL: 'label',
  CLIENT_ID: 'clientId',
  CLIENT_SECRET_FILE: 'clientSecretFile',
  CLIENT_SECRET: 'clientSecretEnv',
  SCOPES: 'scopes',
  ISSUER: 'issuer',
  TENANT: 'tenant',
  BASE_URL: 'baseUrl',
  TRUSTED_EMAIL_DOMAINS: 'trustedEmailDomains',
};
const ENV_PATTERN = new RegExp(`^DEN_(OIDC|GITHUB)_([A-Z0-9]+(?:_[A-Z0-9]+)*?)_(${Object.keys(ENV_KEYS).sort((a, b) => b.length - a.length).join('|')})$`);

/**
 * Providers declared as variables: `DEN_OIDC_<NAME>_<KEY>` or `DEN_GITHUB_<NAME>_<KEY>`, the name
 * lower-cased with `_` as `-`. `…_CLIENT_SECRET` holds the secret itself (so the provider
 * reads it as clientSecretEnv naming that very variable).
 */
export function rawProvidersOfEnv(env: Record<string, string | undefined>, problems: string[]): RawProvider[] {
  const byName = new Map<string, RawProvider>();
  for (const [variable, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!/^DEN_(OIDC|GITHUB)_/.test(variable) || value === undefined || value === '') continue;
    const m = ENV_PATTERN.exec(variable);
    if (!m) {
      problems.push(`${variable}: not a provider setting (DEN_OIDC_<NAME>_<KEY> or DEN_GITHUB_<NAME>_<KEY>, KEY one of ${Object.keys(ENV_KEYS).join(', ')})`);
      continue;
    }
    const [, kindWord, nameWord, key] = m as unknown as [string, string, string, string];
    const kind = kindWord.toLowerCase();
    const name = nameWord.toLowerCase().replaceAll('_', '-');
    const id = `${kind}/${name}`;
    let raw = byName.get(id);
    if (!raw) {
      raw = { where: `DEN_${kindWord}_${nameWord}_*`, fields: { name, kind } };
      byName.set(id, raw);
    }
    raw.fields[ENV_KEYS[key]!] = key === 'CLIENT_SECRET' ? variable : value;
  }
  return [...byName.values()];
}

/**
 * Every provider of the file (when given) and of the variables, checked. Throws one
 * ProviderConfigError listing every mistake, one line each.
 */
export function loadProviders(file: string, env: Record<string, string | undefined>, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): ProviderConfig[] {
  const problems: string[] = [];
  const raws: RawProvider[] = [];
  if (file) {
    let text: string | undefined;
    try {
      text = readFile(file);
    } catch (err) {
      problems.push(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (text !== undefined) raws.push(...rawProvidersOfFile(file, text, problems));
  }
  raws.push(...rawProvidersOfEnv(env, problems));
  const providers: ProviderConfig[] = [];
  const seen = new Map<string, string>();
  for (const raw of raws) {
    const provider = checkProvider(raw, { readFile, env }, problems);
    if (!provider) continue;
    const earlier = seen.get(provider.name);
    if (earlier) problems.push(`identity provider ${provider.name} (${raw.where}): the name is already used by ${earlier}`);
    seen.set(provider.name, raw.where);
    providers.push(provider);
  }
  if (problems.length) throw new ProviderConfigError(problems);
  return providers;
}
