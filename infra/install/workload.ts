// One Den process: a Deployment running `den <role>`, the Service in front of it and the
// PodDisruptionBudget that keeps all but one replica up through node drains.
// Written with the typed Kubernetes classes rather than cdk8s-plus so every security and resource
// setting in the output is one chosen here, not a library default.
import { Construct } from 'constructs';
import {
  IntOrString,
  KubeDeployment,
  KubePodDisruptionBudget,
  KubeService,
  Quantity,
  type Container,
  type EnvFromSource,
  type EnvVar,
  type Probe,
  type Toleration,
  type Affinity,
  type Volume,
  type VolumeMount,
} from 'cdk8s-plus-28/lib/imports/k8s.js';
import { COMPONENT_NAMES, componentLabels, NAMESPACE, selectorLabels, type Component } from '../../contract/names.js';
import type { PullPolicy } from '../../contract/schema.js';
import { imageVersion, type ProcessSettings, type ServiceType } from './settings.js';

/** Seconds between a pod's removal from Service endpoints starting and SIGTERM (`sleep` is in the image's Debian base). */
export const PRE_STOP_SECONDS = 5;

/** The uid of the image's non-root user (see Dockerfile). */
export const RUN_AS_USER = 65532;

/** The image's ENTRYPOINT (Dockerfile): Node and the compiled `den`; each Deployment passes its role as the argument. */
export const IMAGE_ENTRYPOINT = ['node', 'build/cli/den.js'] as const;

export interface WorkloadPort {
  name: string;
  containerPort: number;
  /** Exposed through the Service on this port; unset keeps the port inside the pod (health). */
  servicePort?: number;
}

export interface WorkloadProps {
  /** Also names the Deployment and its ServiceAccount (COMPONENT_NAMES). */
  component: Component;
  /** Its tag, if it has one, becomes the `app.kubernetes.io/version` label. */
  image: string;
  imagePullPolicy: PullPolicy;
  imagePullSecrets: string[];
  env: Record<string, string>;
  /** Node flags that NODE_OPTIONS does not accept: the container then runs them before the image's entry point. */
  nodeFlags?: string[];
  /** Secrets whose keys become environment variables. */
  envFromSecrets?: string[];
  ports: WorkloadPort[];
  /** Port name that answers GET /healthz and /readyz. */
  healthPort: string;
  /** Port name that answers GET /metrics; the health port when unset. */
  metricsPort?: string;
  /** Prometheus scrape annotations on the pods for the metrics port. */
  scrapeAnnotations: boolean;
  service: {
    name: string;
    type: ServiceType;
    annotations?: Record<string, string>;
    externalTrafficPolicy?: 'Cluster' | 'Local';
  };
  process: ProcessSettings;
  /** Seconds between SIGTERM and SIGKILL: longer than the role's own drain bound. */
  terminationGracePeriodSeconds: number;
  volumes?: Volume[];
  volumeMounts?: VolumeMount[];
}

export class Workload extends Construct {
  constructor(scope: Construct, id: string, props: WorkloadProps) {
    super(scope, id);
    const name = COMPONENT_NAMES[props.component];
    const labels = componentLabels(props.component, imageVersion(props.image));
    const selector = selectorLabels(props.component);
    // The installer's labels never replace Den's own, which selectors and pruning rely on.
    const podLabels = { ...props.process.labels, ...labels };
    const { resources } = props.process;
    const metricsPort = props.ports.find((p) => p.name === (props.metricsPort ?? props.healthPort))?.containerPort;
    const scrape: Record<string, string> = props.scrapeAnnotations && metricsPort !== undefined
      ? { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metricsPort), 'prometheus.io/path': '/metrics' }
      : {};

    const container: Container = {
      name: props.component,
      image: props.image,
      imagePullPolicy: props.imagePullPolicy,
      ...(props.nodeFlags?.length ? { command: [IMAGE_ENTRYPOINT[0], ...props.nodeFlags, ...IMAGE_ENTRYPOINT.slice(1)] } : {}),
      args: [props.component],
      env: Object.entries(props.env).map(([name, value]): EnvVar => ({ name, value })),
      ...(props.envFromSecrets?.length
        ? { envFrom: props.envFromSecrets.map((name): EnvFromSource => ({ secretRef: { name, optional: false } })) }
        : {}),
      ports: props.ports.map((p) => ({ name: p.name, containerPort: p.containerPort, protocol: 'TCP' })),
      // Endpoints and load balancers take a few seconds to drop a terminating pod; until they
      // have, new connections still arrive, so the process is told to stop only after that.
      lifecycle: { preStop: { exec: { command: ['sleep', String(PRE_STOP_SECONDS)] } } },
      livenessProbe: probe('/healthz', props.healthPort, 10),
      readinessProbe: probe('/readyz', props.healthPort, 5),
      resources: {
        requests: {
          cpu: Quantity.fromString(resources.requests.cpu),
          memory: Quantity.fromString(resources.requests.memory),
        },
        limits: {
          cpu: Quantity.fromString(resources.limits.cpu),
          memory: Quantity.fromString(resources.limits.memory),
        },
      },
      securityContext: {
        runAsNonRoot: true,
        runAsUser: RUN_AS_USER,
        runAsGroup: RUN_AS_USER,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      },
      volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, ...(props.volumeMounts ?? [])],
    };

    const podAnnotations = { ...props.process.annotations, ...scrape };
    const hasAffinity = Object.keys(props.process.affinity).length > 0;
    new KubeDeployment(this, 'deployment', {
      metadata: { name, namespace: NAMESPACE, labels: podLabels },
      spec: {
        replicas: props.process.replicas,
        selector: { matchLabels: selector },
        // A new pod is ready before an old one goes, so a rollout never drops below the replica count.
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: IntOrString.fromNumber(1), maxUnavailable: IntOrString.fromNumber(0) } },
        template: {
          metadata: { labels: podLabels, ...(Object.keys(podAnnotations).length ? { annotations: podAnnotations } : {}) },
          spec: {
            serviceAccountName: name,
            // The processes talk to the API server with this identity.
            automountServiceAccountToken: true,
            enableServiceLinks: false,
            terminationGracePeriodSeconds: props.terminationGracePeriodSeconds,
            ...(props.imagePullSecrets.length ? { imagePullSecrets: props.imagePullSecrets.map((n) => ({ name: n })) } : {}),
            ...(Object.keys(props.process.nodeSelector).length ? { nodeSelector: props.process.nodeSelector } : {}),
            ...(props.process.tolerations.length ? { tolerations: props.process.tolerations as Toleration[] } : {}),
            // An installer's affinity replaces the default spread; otherwise replicas prefer distinct nodes and zones.
            ...(hasAffinity
              ? { affinity: props.process.affinity as Affinity }
              : { topologySpreadConstraints: spread(selector) }),
            securityContext: {
              runAsNonRoot: true,
              runAsUser: RUN_AS_USER,
              runAsGroup: RUN_AS_USER,
              // Secret volumes become group-readable for this gid, so the non-root user can read them.
              fsGroup: RUN_AS_USER,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [container],
            volumes: [{ name: 'tmp', emptyDir: { sizeLimit: Quantity.fromString('64Mi') } }, ...(props.volumes ?? [])],
          },
        },
      },
    });

    new KubeService(this, 'service', {
      metadata: {
        name: props.service.name,
        namespace: NAMESPACE,
        labels,
        ...(props.service.annotations && Object.keys(props.service.annotations).length ? { annotations: props.service.annotations } : {}),
      },
      spec: {
        type: props.service.type,
        ...(props.service.externalTrafficPolicy && props.service.type !== 'ClusterIP'
          ? { externalTrafficPolicy: props.service.externalTrafficPolicy }
          : {}),
        selector,
        ports: props.ports.flatMap((p) =>
          p.servicePort === undefined
            ? []
            : [{ name: p.name, port: p.servicePort, targetPort: IntOrString.fromString(p.name), protocol: 'TCP' }],
        ),
      },
    });

    if (props.process.replicas > 1) {
      new KubePodDisruptionBudget(this, 'disruption-budget', {
        metadata: { name, namespace: NAMESPACE, labels },
        spec: { maxUnavailable: IntOrString.fromNumber(1), selector: { matchLabels: selector } },
      });
    }
  }
}

/** Replicas on distinct nodes and zones when the cluster has them; never a reason to stay Pending. */
function spread(selector: Record<string, string>) {
  return ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
    topologyKey,
    maxSkew: 1,
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: selector },
  }));
}

function probe(path: string, port: string, periodSeconds: number): Probe {
  return {
    httpGet: { path, port: IntOrString.fromString(port), scheme: 'HTTP' },
    periodSeconds,
    timeoutSeconds: 2,
    failureThreshold: 3,
  };
}
