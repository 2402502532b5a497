// Objects the Workspace hook observes, shaped as the API server returns them (kubectl get -o
// json on a 1.28 cluster): pods with the status the kubelet writes in each situation, and the
// Service and StatefulSet with the fields the API server adds.
import type { KubeObject } from '../../../kube/client.js';
import type { WorkspaceHookInput } from '../../../hooks/workspace/types.js';

export const NAMESPACE = 'svc-alice';
export const NAME = 'alice-dev';
export const IMAGE_REF = 'registry.example.com/dev/ubuntu:24.04';
export const NOW = new Date('2026-11-22T10:00:00.000Z');
export const EARLIER = '2026-11-22T09:00:00Z';

type Json = Record<string, any>;

export function workspace(spec: Json = {}, extra: Json = {}): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: {
      name: NAME,
      namespace: NAMESPACE,
      uid: '5f0c6a0e-8d43-4a47-9c55-1c1f0d3b9a21',
      resourceVersion: '48213',
      generation: 2,
      creationTimestamp: '2026-11-22T08:58:01Z',
      annotations: { 'den.dev/requester': 'alice@example.com' },
    },
    // As stored after the CRD defaults applied.
    spec: {
      imageRef: { name: 'ubuntu' },
      storage: '10Gi',
      running: true,
      idleTimeout: '4h',
      observability: { logsEnabled: true, metricsEnabled: true },
      sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop'],
      ...spec,
    },
    ...extra,
  };
}

export function workspaceImage(spec: Json = {}, name = 'ubuntu'): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'WorkspaceImage',
    metadata: { name, uid: '0b5f0f1e-1d0e-4f8e-8a0c-4f0a5a9f3c11', resourceVersion: '1200', generation: 1 },
    spec: { displayName: 'Ubuntu 24.04', image: IMAGE_REF, ...spec },
  };
}

/** The Service as stored: the API server fills in IP families, sessionAffinity and type. */
export function observedService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: NAME,
      namespace: NAMESPACE,
      uid: 'b1d5c3a4-2f1e-4e7a-9f0d-6a3e2c1b0a99',
      resourceVersion: '48220',
      creationTimestamp: '2026-11-22T08:58:02Z',
      labels: { 'app.kubernetes.io/managed-by': 'den-manager', 'den.dev/workspace': NAME },
    },
    spec: {
      clusterIP: 'None',
      clusterIPs: ['None'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      selector: { 'den.dev/workspace': NAME },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
}

/** A FailedCreate Event as the StatefulSet controller records it (pkg/controller/statefulset, recordPodEvent and recordClaimEvent). */
export function failedCreate(error: string, opts: { claim?: string; at?: string; uid?: string; statefulSet?: string } = {}): KubeObject {
  const set = opts.statefulSet ?? NAME;
  const at = opts.at ?? '2026-11-22T09:00:05Z';
  const what = opts.claim ? `Claim ${opts.claim} for Pod ${set}-0` : `Pod ${set}-0`;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${set}.187a3c5e9d0f${opts.claim ? '2' : '1'}`, namespace: NAMESPACE, resourceVersion: '48240' },
    involvedObject: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: set, namespace: NAMESPACE, uid: opts.uid ?? 'c7e2a9d0-4b3f-4f61-8f7e-2d9c0b1a3e55', resourceVersion: '48231' },
    reason: 'FailedCreate',
    message: `create ${what} in StatefulSet ${set} failed error: ${error}`,
    source: { component: 'statefulset-controller' },
    firstTimestamp: '2026-11-22T09:00:01Z',
    lastTimestamp: at,
    count: 3,
    type: 'Warning',
    eventTime: null,
    reportingComponent: 'statefulset-controller',
    reportingInstance: '',
  } as KubeObject;
}

export function observedStatefulSet(replicas = 1, readyReplicas = 0): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: NAME,
      namespace: NAMESPACE,
      uid: 'c7e2a9d0-4b3f-4f61-8f7e-2d9c0b1a3e55',
      resourceVersion: '48231',
      generation: 1,
      creationTimestamp: '2026-11-22T08:58:02Z',
      labels: { 'app.kubernetes.io/managed-by': 'den-manager', 'den.dev/workspace': NAME },
    },
    spec: {
      replicas,
      serviceName: NAME,
      podManagementPolicy: 'Parallel',
      revisionHistoryLimit: 10,
      selector: { matchLabels: { 'den.dev/workspace': NAME } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
    status: {
      observedGeneration: 1,
      replicas,
      readyReplicas,
      currentReplicas: replicas,
      updatedReplicas: replicas,
      currentRevision: `${NAME}-6d9f7c7b5d`,
      updateRevision: `${NAME}-6d9f7c7b5d`,
      collisionCount: 0,
      availableReplicas: readyReplicas,
    },
  };
}

function podCondition(type: string, status: string, extra: Json = {}): Json {
  return { type, status, lastProbeTime: null, lastTransitionTime: '2026-11-22T08:58:05Z', ...extra };
}

const NOT_READY = {
  reason: 'ContainersNotReady',
  message: 'containers with unready status: [workspace]',
};

/** A workspace pod; `status` replaces the kubelet-written status. */
export function pod(status: Json, metadata: Json = {}, image = IMAGE_REF): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${NAME}-0`,
      generateName: `${NAME}-`,
      namespace: NAMESPACE,
      uid: '9a7d2c1e-3b4f-4e5d-8c6b-7a9e0f1d2c3b',
      resourceVersion: '48302',
      creationTimestamp: '2026-11-22T08:58:03Z',
      labels: {
        'apps.kubernetes.io/pod-index': '0',
        'controller-revision-hash': `${NAME}-6d9f7c7b5d`,
        'den.dev/metrics-enabled': 'true',
        'den.dev/workspace': NAME,
        'statefulset.kubernetes.io/pod-name': `${NAME}-0`,
      },
      annotations: { 'den.dev/logs-enabled': 'true' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: NAME,
          uid: 'c7e2a9d0-4b3f-4f61-8f7e-2d9c0b1a3e55',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      ...metadata,
    },
    spec: {
      containers: [{ name: 'workspace', image, imagePullPolicy: 'IfNotPresent', command: ['sleep', 'infinity'] }],
      hostname: `${NAME}-0`,
      subdomain: NAME,
      nodeName: 'worker-2',
      serviceAccountName: 'workspace',
    },
    status,
  };
}

function waitingContainer(reason: string, message?: string, extra: Json = {}, image = IMAGE_REF): Json {
  return {
    name: 'workspace',
    state: { waiting: message === undefined ? { reason } : { reason, message } },
    lastState: {},
    ready: false,
    restartCount: 0,
    image,
    imageID: '',
    started: false,
    ...extra,
  };
}

function scheduledPending(containerStatuses: Json[]): Json {
  return {
    phase: 'Pending',
    conditions: [
      podCondition('PodReadyToStartContainers', 'True'),
      podCondition('Initialized', 'True'),
      podCondition('Ready', 'False', NOT_READY),
      podCondition('ContainersReady', 'False', NOT_READY),
      podCondition('PodScheduled', 'True'),
    ],
    hostIP: '10.0.0.12',
    hostIPs: [{ ip: '10.0.0.12' }],
    podIP: '10.244.1.7',
    podIPs: [{ ip: '10.244.1.7' }],
    startTime: '2026-11-22T08:58:05Z',
    containerStatuses,
    qosClass: 'Burstable',
  };
}

export const POD_STATUS = {
  unschedulable: (): Json => ({
    phase: 'Pending',
    conditions: [
      podCondition('PodScheduled', 'False', {
        reason: 'Unschedulable',
        message:
          '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..',
      }),
    ],
    qosClass: 'Burstable',
  }),
  containerCreating: (): Json => scheduledPending([waitingContainer('ContainerCreating')]),
  ready: (): Json => ({
    phase: 'Running',
    conditions: [
      podCondition('PodReadyToStartContainers', 'True'),
      podCondition('Initialized', 'True'),
      podCondition('Ready', 'True'),
      podCondition('ContainersReady', 'True'),
      podCondition('PodScheduled', 'True'),
    ],
    hostIP: '10.0.0.12',
    podIP: '10.244.1.7',
    startTime: '2026-11-22T08:58:05Z',
    containerStatuses: [
      {
        name: 'workspace',
        state: { running: { startedAt: '2026-11-22T08:58:41Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: IMAGE_REF,
        imageID: 'registry.example.com/dev/ubuntu@sha256:2e863c44b718727c860746568e1d54afd13b2fa71b160f5cd9058fc436217b30',
        containerID: 'containerd://4c1f0a9e7b2d',
        started: true,
      },
    ],
    qosClass: 'Burstable',
  }),
  errImagePull: (image = IMAGE_REF): Json =>
    scheduledPending([
      waitingContainer(
        'ErrImagePull',
        `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`,
        {},
        image,
      ),
    ]),
  imagePullBackOff: (image = IMAGE_REF): Json =>
    scheduledPending([waitingContainer('ImagePullBackOff', `Back-off pulling image "${image}"`, {}, image)]),
  invalidImageName: (image: string): Json =>
    scheduledPending([
      waitingContainer(
        'InvalidImageName',
        `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": invalid reference format: repository name must be lowercase`,
        {},
        image,
      ),
    ]),
  errImageNeverPull: (): Json =>
    scheduledPending([
      waitingContainer('ErrImageNeverPull', `Container image "${IMAGE_REF}" is not present with pull policy of Never`),
    ]),
  crashLoopBackOff: (): Json => ({
    ...scheduledPending([
      waitingContainer(
        'CrashLoopBackOff',
        `back-off 40s restarting failed container=workspace pod=${NAME}-0_${NAMESPACE}(9a7d2c1e-3b4f-4e5d-8c6b-7a9e0f1d2c3b)`,
        {
          lastState: {
            terminated: {
              exitCode: 127,
              reason: 'Error',
              startedAt: '2026-11-22T08:59:10Z',
              finishedAt: '2026-11-22T08:59:10Z',
              containerID: 'containerd://8b0e6f1c2a3d',
            },
          },
          restartCount: 3,
          imageID: 'registry.example.com/dev/ubuntu@sha256:2e863c44b718727c860746568e1d54afd13b2fa71b160f5cd9058fc436217b30',
        },
      ),
    ]),
    phase: 'Running',
  }),
  createContainerConfigError: (): Json =>
    scheduledPending([waitingContainer('CreateContainerConfigError', 'secret "db-credentials" not found')]),
  runAsRootRefused: (): Json =>
    scheduledPending([
      waitingContainer(
        'CreateContainerConfigError',
        `container has runAsNonRoot and image will run as root (pod: "${NAME}-0_${NAMESPACE}(9a7d2c1e-3b4f-4e5d-8c6b-7a9e0f1d2c3b)", container: workspace)`,
      ),
    ]),
  createContainerError: (): Json =>
    scheduledPending([
      waitingContainer(
        'CreateContainerError',
        'failed to generate container "4c1f0a9e" spec: failed to apply OCI options: failed to mkdir "/var/lib/kubelet/pods/9a7d/volume-subpaths": permission denied',
      ),
    ]),
  runContainerError: (): Json =>
    scheduledPending([
      waitingContainer(
        'RunContainerError',
        'failed to start container "4c1f0a9e": Error response from daemon: failed to create task for container: exec: "zsh": executable file not found in $PATH: unknown',
      ),
    ]),
  evicted: (): Json => ({
    phase: 'Failed',
    reason: 'Evicted',
    message: 'The node was low on resource: ephemeral-storage. Threshold quantity: 2146223972, available: 1895364Ki. ',
    startTime: '2026-11-22T08:58:05Z',
    conditions: [podCondition('PodScheduled', 'True')],
  }),
};

/** The pod while it shuts down: the API server set deletionTimestamp, the kubelet not done yet. */
export function terminating(status: Json): KubeObject {
  return pod(status, { deletionTimestamp: '2026-11-22T09:59:50Z', deletionGracePeriodSeconds: 30 });
}

export interface InputOptions {
  parent?: KubeObject;
  image?: KubeObject | null;
  service?: KubeObject;
  statefulSet?: KubeObject;
  pods?: KubeObject[];
  /** FailedCreate Events of the StatefulSet controller. */
  refusals?: KubeObject[];
  errors?: { child: string; message: string }[];
  now?: Date;
  idleStop?: boolean;
  /** Every catalog entry (devcontainer.json's image is used where one offers it). */
  catalog?: KubeObject[];
}

/** The catalog as the controller offers it to the hook: the entries whose spec.image is the image asked for. */
function offeringOf(catalog: KubeObject[]): (image: string) => KubeObject[] {
  return (image) => catalog.filter((entry) => (entry.spec as { image?: unknown } | undefined)?.image === image);
}

export function input(opts: InputOptions = {}): WorkspaceHookInput {
  const children: WorkspaceHookInput['children'] = {
    'Service.v1': opts.service ? { [`${NAMESPACE}/${NAME}`]: opts.service } : {},
    'StatefulSet.apps/v1': opts.statefulSet ? { [`${NAMESPACE}/${NAME}`]: opts.statefulSet } : {},
  };
  return {
    parent: opts.parent ?? workspace(),
    children,
    related: { image: opts.image === undefined ? workspaceImage() : opts.image, pods: opts.pods ?? [], ...(opts.refusals ? { refusals: opts.refusals } : {}), ...(opts.catalog ? { offering: offeringOf(opts.catalog) } : {}) },
    now: opts.now ?? NOW,
    config: { gatewayHost: 'den.example.com', idleStop: opts.idleStop ?? false },
    ...(opts.errors ? { errors: opts.errors } : {}),
  };
}
