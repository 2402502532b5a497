// One Den process: a Deployment running `den <role>` and the Service in front of it.
// Written with the typed Kubernetes classes rather than cdk8s-plus so every security and resource
// setting in the output is one chosen here, not a library default.
import { Construct } from 'constructs';
import {
  IntOrString,
  KubeDeployment,
  KubeService,
  Quantity,
  type Container,
  type EnvVar,
  type Probe,
  type Volume,
  type VolumeMount,
} from 'cdk8s-plus-28/lib/imports/k8s.js';
import { COMPONENT_NAMES, componentLabels, NAMESPACE, selectorLabels, type Component } from './names.js';
import { imageVersion, type ServiceType } from './settings.js';

/** The uid of the image's non-root user (see Dockerfile). */
export const RUN_AS_USER = 65532;

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
  env: Record<string, string>;
  ports: WorkloadPort[];
  /** Port name that answers GET /healthz and /readyz. */
  healthPort: string;
  serviceName: string;
  serviceType: ServiceType;
  resources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
  volumes?: Volume[];
  volumeMounts?: VolumeMount[];
}

export class Workload extends Construct {
  constructor(scope: Construct, id: string, props: WorkloadProps) {
    super(scope, id);
    const name = COMPONENT_NAMES[props.component];
    const labels = componentLabels(props.component, imageVersion(props.image));
    const selector = selectorLabels(props.component);

    const container: Container = {
      name: props.component,
      image: props.image,
      imagePullPolicy: 'IfNotPresent',
      args: [props.component],
      env: Object.entries(props.env).map(([name, value]): EnvVar => ({ name, value })),
      ports: props.ports.map((p) => ({ name: p.name, containerPort: p.containerPort, protocol: 'TCP' })),
      livenessProbe: probe('/healthz', props.healthPort, 10),
      readinessProbe: probe('/readyz', props.healthPort, 5),
      resources: {
        requests: {
          cpu: Quantity.fromString(props.resources.requests.cpu),
          memory: Quantity.fromString(props.resources.requests.memory),
        },
        limits: {
          cpu: Quantity.fromString(props.resources.limits.cpu),
          memory: Quantity.fromString(props.resources.limits.memory),
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

    new KubeDeployment(this, 'deployment', {
      metadata: { name, namespace: NAMESPACE, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            // The processes talk to the API server with this identity.
            automountServiceAccountToken: true,
            enableServiceLinks: false,
            terminationGracePeriodSeconds: 30,
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
      metadata: { name: props.serviceName, namespace: NAMESPACE, labels },
      spec: {
        type: props.serviceType,
        selector,
        ports: props.ports.flatMap((p) =>
          p.servicePort === undefined
            ? []
            : [{ name: p.name, port: p.servicePort, targetPort: IntOrString.fromString(p.name), protocol: 'TCP' }],
        ),
      },
    });
  }
}

function probe(path: string, port: string, periodSeconds: number): Probe {
  return {
    httpGet: { path, port: IntOrString.fromString(port), scheme: 'HTTP' },
    periodSeconds,
    timeoutSeconds: 2,
    failureThreshold: 3,
  };
}
