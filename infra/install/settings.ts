// What an installer may change in the rendered manifests: an optional YAML configuration file
// (den.config.example.yaml documents every key and its default) and the DEN_* variables of
// `npm run synth` over it, read once and checked before anything is rendered.
import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { isDns1123Subdomain, isLabelValue, isQualifiedName } from '../../kube/names.js';
import { isNonNegativeQuantity } from '../../kube/quantity.js';
import { PULL_POLICIES, type PullPolicy } from '../../contract/schema.js';
import { appsDomainProblem } from '../../contract/apps-domain.js';
import { DEN_RELEASE_IMAGE } from '../../contract/workspace-source.js';

export const DEFAULT_IMAGE = DEN_RELEASE_IMAGE;

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
const SERVICE_TYPES: readonly ServiceType[] = ['ClusterIP', 'NodePort', 'LoadBalancer'];

/** Kubernetes structures passed through to the pod spec as written (checked by the API server on apply). */
export type KubeValue = Record<string, unknown>;

export interface ProcessSettings {
  replicas: number;
  resources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
  nodeSelector: Record<string, string>;
  tolerations: KubeValue[];
  /** A pod `affinity`; when empty, the chart spreads replicas across nodes itself. */
  affinity: KubeValue;
  /** Added to the Deployment and its pods (the selector labels cannot be overridden). */
  labels: Record<string, string>;
  /** Added to the pods. */
  annotations: Record<string, string>;
}

export interface InstallSettings {
  image: { repository: string; tag: string; digest: string; pullPolicy: PullPolicy; pullSecrets: string[] };
  /** Public address of the web UI and REST API (the server's `--base-url`). */
  baseUrl: string;
  /** Host name in every `status.endpoint` (the manager's `--gateway-host`). */
  gatewayHost: string;
  /** Extended resource counted as GPUs (the manager's `--gpu-resource`). */
  gpuResource: string;
  /** Local username/password sign-in (the server's `--local-auth`). */
  localLogin: boolean;
  idleStop: { enabled: boolean };
  /** Stop Workspaces unused for stopAfterDays, delete them deleteAfterDays later (0: never; docs/schedules.md). */
  dormancy: { stopAfterDays: number; deleteAfterDays: number; deleteHome: boolean };
  metrics: { scrapeAnnotations: boolean; serviceMonitor: { enabled: boolean; interval: string; labels: Record<string, string> } };
  networkPolicy: { enabled: boolean; apiServerPorts: number[] };
  manager: ProcessSettings & {
    serviceAccount: { annotations: Record<string, string> };
    /** A Secret whose keys become the manager's environment (AWS_* for registry sync); empty: none. */
    registryCredentialsSecret: string;
  };
  server: ProcessSettings & {
    service: { type: ServiceType; annotations: Record<string, string> };
    ingress: { enabled: boolean; className: string; host: string; tlsSecret: string; annotations: Record<string, string> };
    /** A Secret holding the identity providers file and the client secrets it names; empty: none. */
    identityProviders: { secretName: string; fileKey: string };
    /** Addresses or CIDR ranges of the proxies (Ingress controller pods) whose X-Forwarded-For names the client. */
    trustedProxies: string[];
    /** Host-based app previews at `<port>--<workspace>--<person>.<domain>` (the server's `--apps-domain`); empty domain: off. */
    apps: { domain: string; tlsSecret: string; annotations: Record<string, string>; allowPublicPorts: boolean };
  };
  gateway: ProcessSettings & {
    service: {
      type: ServiceType;
      port: number;
      annotations: Record<string, string>;
      externalTrafficPolicy: 'Cluster' | 'Local';
    };
    /** Unauthenticated connections from one client address (the gateway's `--max-startups-per-source`); none: no cap. */
    maxStartupsPerSource: number | 'none';
    /** Load balancers that begin each connection with a PROXY protocol header (the gateway's `--proxy-protocol-from`). */
    proxyProtocol: { trustedProxies: string[] };
  };
}

function processDefaults(limitsCpu: string): ProcessSettings {
  return {
    replicas: 2,
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: limitsCpu, memory: '512Mi' } },
    nodeSelector: {},
    tolerations: [],
    affinity: {},
    labels: {},
    annotations: {},
  };
}

export const DEFAULT_SETTINGS: InstallSettings = {
  image: { repository: 'ghcr.io/den-dev/den', tag: '0.1.0', digest: '', pullPolicy: 'IfNotPresent', pullSecrets: [] },
  baseUrl: 'https://den.example.com',
  gatewayHost: 'den.example.com',
  gpuResource: 'nvidia.com/gpu',
  localLogin: true,
  idleStop: { enabled: false },
  dormancy: { stopAfterDays: 0, deleteAfterDays: 0, deleteHome: false },
  metrics: { scrapeAnnotations: true, serviceMonitor: { enabled: false, interval: '30s', labels: {} } },
  networkPolicy: { enabled: true, apiServerPorts: [443, 6443] },
  manager: { ...processDefaults('1'), serviceAccount: { annotations: {} }, registryCredentialsSecret: '' },
  server: {
    ...processDefaults('1'),
    service: { type: 'ClusterIP', annotations: {} },
    ingress: { enabled: false, className: '', host: '', tlsSecret: '', annotations: {} },
    identityProviders: { secretName: '', fileKey: 'identity-providers.yaml' },
    trustedProxies: [],
    apps: { domain: '', tlsSecret: '', annotations: {}, allowPublicPorts: false },
  },
  gateway: {
    ...processDefaults('2'),
    service: { type: 'ClusterIP', port: 22, annotations: {}, externalTrafficPolicy: 'Cluster' },
    maxStartupsPerSource: 'none',
    proxyProtocol: { trustedProxies: [] },
  },
};

export class InstallSettingsError extends Error {}

type Pattern = { test(value: string): boolean };

const REPOSITORY_FMT = '[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-]{1,2}[a-z0-9]+)*)*';
const TAG_FMT = '[\\w][\\w.-]{0,127}';
const DIGEST_FMT = 'sha256:[a-f0-9]{64}';
const IMAGE_REF = new RegExp(`^${REPOSITORY_FMT}(:${TAG_FMT})?(@${DIGEST_FMT})?$`);
const REPOSITORY = new RegExp(`^${REPOSITORY_FMT}$`);
const TAG = new RegExp(`^${TAG_FMT}$`);
const DIGEST = new RegExp(`^${DIGEST_FMT}$`);
/** What a rule of kube/names.ts looks like to the checks below, which also take regular expressions. */
const grammar = (test: (value: string) => boolean): Pattern => ({ test });
const HOST = grammar(isDns1123Subdomain);
const DNS_NAME = grammar(isDns1123Subdomain);
const RESOURCE_NAME = grammar(isQualifiedName);
const QUANTITY = grammar(isNonNegativeQuantity);
const LABEL_KEY = grammar(isQualifiedName);
const LABEL_VALUE = grammar(isLabelValue);
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
const DURATION = /^[0-9]+(ms|s|m|h)$/;

// ---- the configuration file's grammar ---------------------------------------------------------

/** Checks one value at `path` and returns it typed, or throws naming the key. */
type Check<T> = (value: unknown, path: string) => T;

const fail = (path: string, rule: string): never => {
  throw new InstallSettingsError(`${path}: ${rule}`);
};

const integer = (min: number, max: number): Check<number> => (v, path) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fail(path, `must be an integer from ${min} to ${max}`);
const atLeast = (min: number): Check<number> => (v, path) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min ? v : fail(path, `must be an integer ≥ ${min}`);
const boolean: Check<boolean> = (v, path) => (typeof v === 'boolean' ? v : fail(path, 'must be true or false'));
/** A text setting given a plain YAML number or boolean (`tag: 1.0` reads as the number 1): say so, not that the value is wrong. */
const quoteless = (v: unknown, path: string, what: string): void => {
  if (typeof v === 'number' || typeof v === 'boolean') {
    fail(path, `must be ${what}, but YAML read the ${typeof v} ${v}: write it in quotes`);
  }
};
const matching = (pattern: Pattern, what: string, allowEmpty = false): Check<string> => (v, path) => {
  quoteless(v, path, what);
  return typeof v === 'string' && ((allowEmpty && v === '') || pattern.test(v)) ? v : fail(path, `must be ${what}`);
};
const oneOf = <T extends string>(values: readonly T[]): Check<T> => (v, path) =>
  values.find((x) => x === v) ?? fail(path, `must be one of ${values.join(', ')}`);
const httpUrl: Check<string> = (v, path) => {
  quoteless(v, path, 'an http or https URL');
  return typeof v === 'string' && isHttpUrl(v) ? v.replace(/\/$/, '') : fail(path, 'must be an http or https URL');
};
const stringMap = (keyPattern: Pattern, valuePattern: Pattern | undefined, what: string): Check<Record<string, string>> => (v, path) => {
  if (!isPlainObject(v)) return fail(path, 'must be a map of strings');
  for (const [key, value] of Object.entries(v)) {
    if (!keyPattern.test(key)) fail(`${path}.${key}`, `is not a valid ${what} key`);
    quoteless(value, `${path}.${key}`, 'a string');
    if (typeof value !== 'string') fail(`${path}.${key}`, 'must be a string');
    if (valuePattern && !valuePattern.test(value as string)) fail(`${path}.${key}`, `is not a valid ${what} value`);
  }
  return v as Record<string, string>;
};
const labels = stringMap(LABEL_KEY, LABEL_VALUE, 'label');
const annotations = stringMap(LABEL_KEY, undefined, 'annotation');
const list = <T>(item: Check<T>): Check<T[]> => (v, path) =>
  Array.isArray(v) ? v.map((x, i) => item(x, `${path}[${i}]`)) : fail(path, 'must be a list');
const addressOrRange: Check<string> = (v, path) => {
  const [address = '', bits, extra] = typeof v === 'string' ? v.split('/') : [];
  const family = isIP(address);
  const prefixOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  return family && extra === undefined && prefixOk ? (v as string) : fail(path, 'must be an IP address or a CIDR range such as 10.0.0.0/8');
};
const kubeObject: Check<KubeValue> = (v, path) => (isPlainObject(v) ? v : fail(path, 'must be a map'));

/** Each key's check, or the grammar of a nested map. */
interface Grammar {
  [key: string]: Check<unknown> | Grammar;
}

function section<T>(grammar: Grammar, defaults: T, v: unknown, path: string): T {
  if (v === undefined || v === null) return defaults;
  if (!isPlainObject(v)) return fail(path, 'must be a map');
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(v)) {
    const at = path ? `${path}.${key}` : key;
    const rule = (grammar as Record<string, unknown>)[key];
    if (rule === undefined) fail(at, `unknown key (see den.config.example.yaml)`);
    if (value === null) continue;
    out[key] = typeof rule === 'function' ? (rule as Check<unknown>)(value, at) : section(rule as Grammar, (defaults as Record<string, unknown>)[key], value, at);
  }
  return out as T;
}

const quantity = matching(QUANTITY, 'a Kubernetes quantity such as 500m or 256Mi');

function processGrammar(): Grammar {
  return {
    replicas: atLeast(1),
    resources: { requests: { cpu: quantity, memory: quantity }, limits: { cpu: quantity, memory: quantity } },
    nodeSelector: labels,
    tolerations: list(kubeObject),
    affinity: kubeObject,
    labels,
    annotations,
  };
}

const serviceType = oneOf(SERVICE_TYPES);
const secretName = matching(DNS_NAME, 'a Secret name (lower-case DNS name)', true);

const GRAMMAR: Grammar = {
  image: {
    repository: matching(REPOSITORY, 'an image repository such as ghcr.io/den-dev/den'),
    tag: matching(TAG, 'an image tag such as 0.1.0', true),
    digest: matching(DIGEST, 'a digest sha256:<64 hex digits>', true),
    pullPolicy: oneOf(PULL_POLICIES),
    pullSecrets: list(matching(DNS_NAME, 'a Secret name (lower-case DNS name)')),
  },
  baseUrl: httpUrl,
  gatewayHost: matching(HOST, 'a DNS host name'),
  gpuResource: matching(RESOURCE_NAME, 'a resource name such as nvidia.com/gpu'),
  localLogin: boolean,
  idleStop: { enabled: boolean },
  dormancy: { stopAfterDays: integer(0, 3650), deleteAfterDays: integer(0, 3650), deleteHome: boolean },
  metrics: {
    scrapeAnnotations: boolean,
    serviceMonitor: { enabled: boolean, interval: matching(DURATION, 'a duration such as 30s'), labels },
  },
  networkPolicy: { enabled: boolean, apiServerPorts: list(integer(1, 65535)) },
  manager: {
    ...processGrammar(),
    serviceAccount: { annotations },
    registryCredentialsSecret: secretName,
  },
  server: {
    ...processGrammar(),
    service: { type: serviceType, annotations },
    ingress: {
      enabled: boolean,
      className: matching(DNS_NAME, 'an IngressClass name', true),
      host: matching(HOST, 'a DNS host name', true),
      tlsSecret: secretName,
      annotations,
    },
    identityProviders: { secretName, fileKey: matching(SECRET_KEY, 'a Secret key') },
    trustedProxies: list(addressOrRange),
    apps: { domain: matching(HOST, 'a DNS domain such as apps.den.example', true), tlsSecret: secretName, annotations, allowPublicPorts: boolean },
  },
  gateway: {
    ...processGrammar(),
    service: {
      type: serviceType,
      port: integer(1, 65535),
      annotations,
      externalTrafficPolicy: oneOf(['Cluster', 'Local'] as const),
    },
    maxStartupsPerSource: (v, path) => (v === 'none' || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1_000_000) ? v : fail(path, 'must be none or an integer from 1 to 1000000')),
    proxyProtocol: { trustedProxies: list(addressOrRange) },
  },
};

/** The settings of a configuration file's text (YAML), over the defaults; `where` names the file in messages. */
export function settingsOfConfig(text: string, where: string): InstallSettings {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (err) {
    const first = ((err as Error).message.split('\n')[0] ?? '').trim();
    throw new InstallSettingsError(`${where}: not valid YAML (${first})`);
  }
  const settings = section(GRAMMAR, DEFAULT_SETTINGS, document, '');
  return crossChecked(settings);
}

/** Rules between keys, once every key is known. */
function crossChecked(s: InstallSettings): InstallSettings {
  if (!s.image.tag && !s.image.digest) fail('image.tag', 'must be set when image.digest is empty');
  if (s.gateway.service.externalTrafficPolicy === 'Local' && s.gateway.service.type === 'ClusterIP') {
    fail('gateway.service.externalTrafficPolicy', 'Local needs gateway.service.type NodePort or LoadBalancer');
  }
  if (s.server.ingress.tlsSecret && !s.server.ingress.enabled) fail('server.ingress.tlsSecret', 'needs server.ingress.enabled: true');
  if (s.server.apps.tlsSecret && !s.server.apps.domain) fail('server.apps.tlsSecret', 'needs server.apps.domain');
  if (s.server.apps.allowPublicPorts && !s.server.apps.domain) fail('server.apps.allowPublicPorts', 'needs server.apps.domain: only host-based previews can be shared');
  const appsProblem = s.server.apps.domain ? appsDomainProblem(s.server.apps.domain, s.baseUrl) : undefined;
  if (appsProblem) fail('server.apps.domain', appsProblem);
  if (s.metrics.serviceMonitor.enabled && s.metrics.scrapeAnnotations) {
    // Both would make Prometheus scrape every pod twice.
    fail('metrics.serviceMonitor.enabled', 'set metrics.scrapeAnnotations: false as well (one way of scraping)');
  }
  return s;
}

// ---- the variables over the file ---------------------------------------------------------

/**
 * The configuration file (when `configText` is given) with `DEN_IMAGE`, `DEN_BASE_URL`,
 * `DEN_GATEWAY_HOST`, `DEN_GPU_RESOURCE`, `DEN_SERVER_SERVICE_TYPE`, `DEN_GATEWAY_SERVICE_TYPE`
 * and `DEN_LOCAL_LOGIN` over it.
 */
export function readInstallSettings(env: Record<string, string | undefined>, config?: { text: string; where: string }): InstallSettings {
  const base = config ? settingsOfConfig(config.text, config.where) : DEFAULT_SETTINGS;
  const given = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const s: InstallSettings = structuredClone(base);

  const image = given('DEN_IMAGE');
  if (image !== undefined) {
    if (!IMAGE_REF.test(image)) throw new InstallSettingsError(`DEN_IMAGE: "${image}" is not an image reference like ${DEFAULT_IMAGE}`);
    s.image = { ...s.image, ...splitImage(image) };
  }
  const baseUrl = given('DEN_BASE_URL');
  if (baseUrl !== undefined) {
    if (!isHttpUrl(baseUrl)) throw new InstallSettingsError(`DEN_BASE_URL: "${baseUrl}" is not an http or https URL`);
    s.baseUrl = baseUrl.replace(/\/$/, '');
  }
  const gatewayHost = given('DEN_GATEWAY_HOST');
  if (gatewayHost !== undefined) {
    if (!HOST.test(gatewayHost)) throw new InstallSettingsError(`DEN_GATEWAY_HOST: "${gatewayHost}" is not a DNS host name`);
    s.gatewayHost = gatewayHost;
  }
  const gpuResource = given('DEN_GPU_RESOURCE');
  if (gpuResource !== undefined) {
    if (!RESOURCE_NAME.test(gpuResource)) throw new InstallSettingsError(`DEN_GPU_RESOURCE: "${gpuResource}" is not a resource name like nvidia.com/gpu`);
    s.gpuResource = gpuResource;
  }
  for (const [name, target] of [['DEN_SERVER_SERVICE_TYPE', s.server.service], ['DEN_GATEWAY_SERVICE_TYPE', s.gateway.service]] as const) {
    const value = given(name);
    if (value === undefined) continue;
    const found = SERVICE_TYPES.find((t) => t === value);
    if (!found) throw new InstallSettingsError(`${name}: "${value}" is not one of ${SERVICE_TYPES.join(', ')}`);
    target.type = found;
  }
  const localLogin = given('DEN_LOCAL_LOGIN');
  if (localLogin !== undefined) {
    if (!/^(true|false)$/.test(localLogin)) throw new InstallSettingsError(`DEN_LOCAL_LOGIN: "${localLogin}" is not true or false`);
    s.localLogin = localLogin === 'true';
  }
  return crossChecked(s);
}

/** `repository[:tag][@digest]` into its parts (the reference already matched IMAGE_REF). */
function splitImage(reference: string): { repository: string; tag: string; digest: string } {
  const [name = reference, digest = ''] = reference.split('@');
  const slash = name.lastIndexOf('/');
  const colon = name.indexOf(':', slash + 1);
  return colon < 0 ? { repository: name, tag: '', digest } : { repository: name.slice(0, colon), tag: name.slice(colon + 1), digest };
}

/** The image reference the Deployments run. */
export function imageReference(image: InstallSettings['image']): string {
  return `${image.repository}${image.tag ? `:${image.tag}` : ''}${image.digest ? `@${image.digest}` : ''}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** The image tag as a label value (`app.kubernetes.io/version`), or undefined when it has none. */
export function imageVersion(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? image;
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  if (colon < 0) return undefined;
  const tag = lastSegment.slice(colon + 1);
  return tag !== '' && isLabelValue(tag) ? tag : undefined;
}
