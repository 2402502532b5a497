// The install chart: everything `kubectl apply -f dist/` needs to run Den on a cluster, in the
// order kubectl should create it (namespace and CRDs first, webhooks last).
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DenCustomResourceDefinitions } from './crds.js';
import { AdminClusterRole, Identity } from './identity.js';
import {
  ADMIN_CLUSTER_ROLE,
  COMPONENT_NAMES,
  GATEWAY_HOST_KEY_DIR,
  GATEWAY_HOST_KEY_FILE,
  GATEWAY_HOST_KEY_SECRET,
  GATEWAY_SERVICE,
  HEALTH_PORT,
  IDENTITY_PROVIDERS_DIR,
  NAMESPACE,
  PORTS,
  SERVER_SERVICE,
  WEBHOOK_SERVICE,
} from '../../contract/names.js';
import { SystemNamespace } from './namespace.js';
import {
  adminClusterRules,
  gatewayClusterRules,
  managerClusterRules,
  managerNamespaceRules,
  serverClusterRules,
  serverNamespaceRules,
} from './rbac-rules.js';
import { imageReference, type InstallSettings } from './settings.js';
import { AppsIngress, ServerIngress } from './ingress.js';
import { PlatformNetworkPolicies } from './network-policy.js';
import { ServiceMonitors } from './service-monitor.js';
import { WebhookConfigurations } from './webhooks.js';
import { Workload } from './workload.js';
import { gatewayNodeFlags, MALLOC_ENV, MANAGER_NODE_FLAGS, managerNodeOptions } from './node-options.js';

/** Owner read-only: the gateway's host key and the identity providers' secrets. */
const SECRET_FILE_MODE = 0o400;

/**
 * Seconds from the pod's termination to SIGKILL per process: the 5 s preStop pause (workload.ts)
 * plus each role's own drain bound, with room to spare: the manager's reconciles get the
 * Lease's remaining 5 s (10 s without election) and its webhooks 5 s, the server's requests
 * 10 s, the gateway's SSH sessions 25 s and 2 s to close the rest.
 */
const TERMINATION_GRACE_SECONDS = { manager: 30, server: 30, gateway: 40 } as const;

export class DenInstallChart extends Chart {
  constructor(scope: Construct, id: string, settings: InstallSettings) {
    super(scope, id, { disableResourceNameHashes: true });
    new SystemNamespace(this, 'namespace');
    new DenCustomResourceDefinitions(this, 'crds');

    new AdminClusterRole(this, 'admin', { name: ADMIN_CLUSTER_ROLE, rules: adminClusterRules() });
    new Identity(this, 'manager-identity', {
      name: COMPONENT_NAMES.manager,
      clusterRules: managerClusterRules(),
      namespaceRules: managerNamespaceRules(),
      // IRSA and its kin: the cloud identity registry sync takes from the ambient credential chain.
      serviceAccountAnnotations: settings.manager.serviceAccount.annotations,
    });
    new Identity(this, 'server-identity', {
      name: COMPONENT_NAMES.server,
      clusterRules: serverClusterRules(),
      namespaceRules: serverNamespaceRules(),
    });
    new Identity(this, 'gateway-identity', { name: COMPONENT_NAMES.gateway, clusterRules: gatewayClusterRules() });

    const image = imageReference(settings.image);
    const common = {
      image,
      imagePullPolicy: settings.image.pullPolicy,
      imagePullSecrets: settings.image.pullSecrets,
      scrapeAnnotations: settings.metrics.scrapeAnnotations,
    };
    const healthPort = { name: 'health', containerPort: HEALTH_PORT };

    new Workload(this, 'manager', {
      ...common,
      component: 'manager',
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_HEALTH_LISTEN: `:${HEALTH_PORT}`,
        DEN_WEBHOOK_LISTEN: `:${PORTS.webhook}`,
        DEN_WEBHOOK_SERVICE: WEBHOOK_SERVICE,
        DEN_GATEWAY_HOST: settings.gatewayHost,
        DEN_GPU_RESOURCE: settings.gpuResource,
        DEN_LEADER_ELECT: 'true',
        DEN_IDLE_STOP: String(settings.idleStop.enabled),
        DEN_DORMANT_STOP_DAYS: String(settings.dormancy.stopAfterDays),
        DEN_DORMANT_DELETE_DAYS: String(settings.dormancy.deleteAfterDays),
        DEN_DORMANT_DELETE_HOME: String(settings.dormancy.deleteHome),
        DEN_CLONE_IMAGE: image,
        DEN_CLONE_IMAGE_PULL_POLICY: settings.image.pullPolicy,
        ...(settings.image.pullSecrets.length ? { DEN_CLONE_IMAGE_PULL_SECRETS: settings.image.pullSecrets.join(',') } : {}),
        NODE_OPTIONS: managerNodeOptions(settings.manager.resources.limits.memory),
        ...MALLOC_ENV,
      },
      nodeFlags: [...MANAGER_NODE_FLAGS],
      envFromSecrets: settings.manager.registryCredentialsSecret ? [settings.manager.registryCredentialsSecret] : [],
      ports: [{ name: 'https', containerPort: PORTS.webhook, servicePort: 443 }, healthPort],
      healthPort: 'health',
      service: { name: WEBHOOK_SERVICE, type: 'ClusterIP' },
      process: settings.manager,
      terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS.manager,
    });

    const providers = settings.server.identityProviders;
    new Workload(this, 'server', {
      ...common,
      component: 'server',
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_LISTEN: `:${PORTS.server}`,
        DEN_HEALTH_LISTEN: `:${HEALTH_PORT}`,
        DEN_BASE_URL: settings.baseUrl,
        DEN_LOCAL_AUTH: String(settings.localLogin),
        DEN_GPU_RESOURCE: settings.gpuResource,
        DEN_GATEWAY_PORT: String(settings.gateway.service.port),
        ...(settings.server.apps.domain ? { DEN_APPS_DOMAIN: settings.server.apps.domain } : {}),
        ...(settings.server.apps.allowPublicPorts ? { DEN_APPS_ALLOW_PUBLIC_PORTS: 'true' } : {}),
        ...(settings.server.trustedProxies.length ? { DEN_TRUSTED_PROXIES: settings.server.trustedProxies.join(',') } : {}),
        ...(providers.secretName ? { DEN_IDENTITY_PROVIDERS_FILE: `${IDENTITY_PROVIDERS_DIR}/${providers.fileKey}` } : {}),
        ...MALLOC_ENV,
      },
      ports: [{ name: 'http', containerPort: PORTS.server, servicePort: 80 }, healthPort],
      // The probes ask the listener people use; /metrics stays off it.
      healthPort: 'http',
      metricsPort: 'health',
      service: { name: SERVER_SERVICE, type: settings.server.service.type, annotations: settings.server.service.annotations },
      process: settings.server,
      terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS.server,
      // The providers file names its client secrets as files beside it, in the same Secret.
      ...(providers.secretName
        ? {
            volumes: [{ name: 'identity-providers', secret: { secretName: providers.secretName, optional: false, defaultMode: SECRET_FILE_MODE } }],
            volumeMounts: [{ name: 'identity-providers', mountPath: IDENTITY_PROVIDERS_DIR, readOnly: true }],
          }
        : {}),
    });

    new Workload(this, 'gateway', {
      ...common,
      component: 'gateway',
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_LISTEN: `:${PORTS.gateway}`,
        DEN_HEALTH_LISTEN: `:${HEALTH_PORT}`,
        DEN_HOST_KEY_FILE: `${GATEWAY_HOST_KEY_DIR}/${GATEWAY_HOST_KEY_FILE}`,
        ...(settings.gateway.maxStartupsPerSource !== 'none' ? { DEN_MAX_STARTUPS_PER_SOURCE: String(settings.gateway.maxStartupsPerSource) } : {}),
        ...(settings.gateway.proxyProtocol.trustedProxies.length ? { DEN_PROXY_PROTOCOL_FROM: settings.gateway.proxyProtocol.trustedProxies.join(',') } : {}),
      },
      nodeFlags: gatewayNodeFlags(settings.gateway.resources.limits.memory),
      // The container keeps its unprivileged port whatever port the Service offers.
      ports: [{ name: 'ssh', containerPort: PORTS.gateway, servicePort: settings.gateway.service.port }, healthPort],
      healthPort: 'health',
      service: {
        name: GATEWAY_SERVICE,
        type: settings.gateway.service.type,
        annotations: settings.gateway.service.annotations,
        externalTrafficPolicy: settings.gateway.service.externalTrafficPolicy,
      },
      process: settings.gateway,
      terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS.gateway,
      // The kubelet mounts the key, so the gateway's identity never needs to read Secrets.
      volumes: [
        {
          name: 'host-key',
          secret: {
            secretName: GATEWAY_HOST_KEY_SECRET,
            optional: false,
            defaultMode: SECRET_FILE_MODE,
            items: [{ key: GATEWAY_HOST_KEY_FILE, path: GATEWAY_HOST_KEY_FILE, mode: SECRET_FILE_MODE }],
          },
        },
      ],
      volumeMounts: [{ name: 'host-key', mountPath: GATEWAY_HOST_KEY_DIR, readOnly: true }],
    });

    if (settings.server.ingress.enabled) new ServerIngress(this, 'ingress', { baseUrl: settings.baseUrl, ...settings.server.ingress });
    const apps = settings.server.apps;
    if (settings.server.ingress.enabled && apps.domain) {
      new AppsIngress(this, 'apps-ingress', { domain: apps.domain, className: settings.server.ingress.className, tlsSecret: apps.tlsSecret, annotations: apps.annotations });
    }
    if (settings.networkPolicy.enabled) new PlatformNetworkPolicies(this, 'network-policies', { apiServerPorts: settings.networkPolicy.apiServerPorts });
    if (settings.metrics.serviceMonitor.enabled) new ServiceMonitors(this, 'service-monitors', settings.metrics.serviceMonitor);

    new WebhookConfigurations(this, 'webhooks');
  }
}
