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
  NAMESPACE,
  SERVER_SERVICE,
  WEBHOOK_SERVICE,
} from './names.js';
import { SystemNamespace } from './namespace.js';
import {
  adminClusterRules,
  gatewayClusterRules,
  managerClusterRules,
  managerNamespaceRules,
  serverClusterRules,
  serverNamespaceRules,
} from './rbac-rules.js';
import type { InstallSettings } from './settings.js';
import { WebhookConfigurations } from './webhooks.js';
import { Workload } from './workload.js';

/** Owner read-only: the gateway's host key. */
const HOST_KEY_MODE = 0o400;

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
    });
    new Identity(this, 'server-identity', {
      name: COMPONENT_NAMES.server,
      clusterRules: serverClusterRules(),
      namespaceRules: serverNamespaceRules(),
    });
    new Identity(this, 'gateway-identity', { name: COMPONENT_NAMES.gateway, clusterRules: gatewayClusterRules() });

    new Workload(this, 'manager', {
      component: 'manager',
      image: settings.image,
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_HEALTH_LISTEN: ':8081',
        DEN_WEBHOOK_LISTEN: ':9443',
        DEN_WEBHOOK_SERVICE: WEBHOOK_SERVICE,
        DEN_GATEWAY_HOST: settings.gatewayHost,
        DEN_GPU_RESOURCE: settings.gpuResource,
        DEN_LEADER_ELECT: 'true',
      },
      ports: [
        { name: 'https', containerPort: 9443, servicePort: 443 },
        { name: 'health', containerPort: 8081 },
      ],
      healthPort: 'health',
      serviceName: WEBHOOK_SERVICE,
      serviceType: 'ClusterIP',
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    });

    new Workload(this, 'server', {
      component: 'server',
      image: settings.image,
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_LISTEN: ':8080',
        DEN_BASE_URL: settings.baseUrl,
        DEN_LOCAL_AUTH: 'true',
        DEN_GPU_RESOURCE: settings.gpuResource,
      },
      ports: [{ name: 'http', containerPort: 8080, servicePort: 80 }],
      healthPort: 'http',
      serviceName: SERVER_SERVICE,
      serviceType: settings.serverServiceType,
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    });

    new Workload(this, 'gateway', {
      component: 'gateway',
      image: settings.image,
      env: {
        DEN_NAMESPACE: NAMESPACE,
        DEN_LISTEN: ':2222',
        DEN_HEALTH_LISTEN: ':8081',
        DEN_HOST_KEY_FILE: `${GATEWAY_HOST_KEY_DIR}/${GATEWAY_HOST_KEY_FILE}`,
      },
      ports: [
        { name: 'ssh', containerPort: 2222, servicePort: 22 },
        { name: 'health', containerPort: 8081 },
      ],
      healthPort: 'health',
      serviceName: GATEWAY_SERVICE,
      serviceType: settings.gatewayServiceType,
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2', memory: '512Mi' } },
      // The kubelet mounts the key, so the gateway's identity never needs to read Secrets.
      volumes: [
        {
          name: 'host-key',
          secret: {
            secretName: GATEWAY_HOST_KEY_SECRET,
            optional: false,
            defaultMode: HOST_KEY_MODE,
            items: [{ key: GATEWAY_HOST_KEY_FILE, path: GATEWAY_HOST_KEY_FILE, mode: HOST_KEY_MODE }],
          },
        },
      ],
      volumeMounts: [{ name: 'host-key', mountPath: GATEWAY_HOST_KEY_DIR, readOnly: true }],
    });

    new WebhookConfigurations(this, 'webhooks');
  }
}
