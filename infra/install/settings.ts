// What an installer may change in the rendered manifests, read once from the environment of
// `npm run synth` and checked before anything is rendered.

export const DEFAULT_IMAGE = 'ghcr.io/den-dev/den:0.1.0';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
const SERVICE_TYPES: readonly ServiceType[] = ['ClusterIP', 'NodePort', 'LoadBalancer'];

export interface InstallSettings {
  /** Container image of all three processes, `repository[:tag][@digest]`. */
  image: string;
  /** Public address of the web UI and REST API (the server's `--base-url`). */
  baseUrl: string;
  /** Host name in every `status.endpoint` (the manager's `--gateway-host`). */
  gatewayHost: string;
  /** Extended resource counted as GPUs (the manager's `--gpu-resource`). */
  gpuResource: string;
  serverServiceType: ServiceType;
  gatewayServiceType: ServiceType;
}

export const DEFAULT_SETTINGS: InstallSettings = {
  image: DEFAULT_IMAGE,
  baseUrl: 'https://den.example.com',
  gatewayHost: 'den.example.com',
  gpuResource: 'nvidia.com/gpu',
  serverServiceType: 'ClusterIP',
  gatewayServiceType: 'ClusterIP',
};

export class InstallSettingsError extends Error {}

const IMAGE_REF = /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(\/[a-z0-9]+([._-]{1,2}[a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;
const HOST = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RESOURCE_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Reads `DEN_IMAGE`, `DEN_BASE_URL`, `DEN_GATEWAY_HOST`, `DEN_GPU_RESOURCE`, `DEN_SERVER_SERVICE_TYPE`, `DEN_GATEWAY_SERVICE_TYPE`. */
export function readInstallSettings(env: Record<string, string | undefined>): InstallSettings {
  const pick = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value === '' ? fallback : value;
  };
  const image = pick('DEN_IMAGE', DEFAULT_SETTINGS.image);
  if (!IMAGE_REF.test(image)) {
    throw new InstallSettingsError(`DEN_IMAGE: "${image}" is not an image reference like ${DEFAULT_IMAGE}`);
  }
  const baseUrl = pick('DEN_BASE_URL', DEFAULT_SETTINGS.baseUrl);
  if (!isHttpUrl(baseUrl)) {
    throw new InstallSettingsError(`DEN_BASE_URL: "${baseUrl}" is not an http or https URL`);
  }
  const gatewayHost = pick('DEN_GATEWAY_HOST', DEFAULT_SETTINGS.gatewayHost);
  if (!HOST.test(gatewayHost)) {
    throw new InstallSettingsError(`DEN_GATEWAY_HOST: "${gatewayHost}" is not a DNS host name`);
  }
  const gpuResource = pick('DEN_GPU_RESOURCE', DEFAULT_SETTINGS.gpuResource);
  if (!RESOURCE_NAME.test(gpuResource)) {
    throw new InstallSettingsError(`DEN_GPU_RESOURCE: "${gpuResource}" is not a resource name like nvidia.com/gpu`);
  }
  return {
    image,
    baseUrl,
    gatewayHost,
    gpuResource,
    serverServiceType: serviceType(env, 'DEN_SERVER_SERVICE_TYPE', DEFAULT_SETTINGS.serverServiceType),
    gatewayServiceType: serviceType(env, 'DEN_GATEWAY_SERVICE_TYPE', DEFAULT_SETTINGS.gatewayServiceType),
  };
}

function serviceType(env: Record<string, string | undefined>, name: string, fallback: ServiceType): ServiceType {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const found = SERVICE_TYPES.find((t) => t === value);
  if (!found) throw new InstallSettingsError(`${name}: "${value}" is not one of ${SERVICE_TYPES.join(', ')}`);
  return found;
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
  return /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/.test(tag) ? tag : undefined;
}
