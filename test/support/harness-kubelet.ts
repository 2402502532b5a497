// The parts of a node the fake API server lacks: what the StatefulSet controller and the kubelet
// do for a one-replica StatefulSet (its home PVCs and its pod, through the API server's built-in
// admission), the pod's start events and statuses in the kubelet's shapes.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../kube/client.js';
import { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { ApiError, type FakeApiServer } from './fake-apiserver.js';

const POD_READY_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
/** Images under this registry cannot be pulled, here as on any real node (`.invalid` never resolves). */
export const UNPULLABLE_REGISTRY = 'registry.invalid';

function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * What the StatefulSet controller and the kubelet do for a one-replica StatefulSet: create
 * its home PVCs from the claim templates and its pod `<name>-0` through the API server's
 * built-in admission (LimitRange defaults, ResourceQuota; a refusal is a FailedCreate event) (owned by the StatefulSet,
 * with the template's labels and a Ready status in the kubelet's shape, or ErrImagePull for
 * an image under `registry.invalid/`), delete the pod when replicas drop to 0, and report the
 * replica counts in the StatefulSet's status.
 */
export class HarnessKubelet {
  /** What went wrong in the harness itself (shown with the processes' output). */
  readonly errors: string[] = [];
  private readonly statefulSets: Informer;

  constructor(
    private readonly api: FakeApiServer,
    readonly node = 'harness-node',
  ) {
    this.statefulSets = new Informer(api.client(), RESOURCES.statefulSet, { backoffMs: 50, onError: (err) => this.errors.push(String((err as Error)?.message ?? err)) });
    this.statefulSets.on((event) => {
      if (event.type !== 'DELETED') this.reconcile(event.object);
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.statefulSets.run(signal);
  }

  get synced(): Promise<void> {
    return this.statefulSets.synced;
  }

  private reconcile(seen: KubeObject): void {
    const { name, namespace } = seen.metadata as { name: string; namespace: string };
    // Read the stored object, not the event: a later write may already have replaced it.
    const sts = this.api.object<any>(RESOURCES.statefulSet, name, namespace);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const replicas: number = sts.spec?.replicas ?? 1;
    const podName = `${name}-0`;
    let pod = this.api.object<any>(RESOURCES.pod, podName, namespace);
    if (replicas >= 1) {
      for (const template of sts.spec?.volumeClaimTemplates ?? []) this.ensureClaim(sts, template);
      const admitted = pod ? undefined : this.admitted(sts, this.renderPod(sts, podName), `Pod ${podName}`);
      if (admitted) {
        pod = this.api.seed(admitted)[0];
        this.api.seed(...this.startEvents(pod));
        this.api.setPodLog(namespace, podName, harnessPodLog(podName));
      }
    } else if (pod) {
      this.api.remove(RESOURCES.pod, podName, namespace);
      pod = undefined;
    }
    const count = pod ? 1 : 0;
    const ready = pod?.status?.phase === 'Running' ? 1 : 0;
    const status = {
      observedGeneration: sts.metadata.generation,
      replicas: count,
      readyReplicas: ready,
      currentReplicas: count,
      updatedReplicas: count,
      availableReplicas: ready,
      collisionCount: 0,
    };
    const current = this.api.object<any>(RESOURCES.statefulSet, name, namespace);
    if (current && JSON.stringify(current.status ?? {}) !== JSON.stringify(status)) this.api.seed({ ...current, status });
  }

  private ensureClaim(sts: any, template: any): void {
    const namespace = sts.metadata.namespace;
    const claim = `${template.metadata.name}-${sts.metadata.name}-0`;
    if (this.api.object(RESOURCES.persistentVolumeClaim, claim, namespace)) return;
    // No ownerReference: without a retention policy the StatefulSet controller leaves claims behind.
    const admitted = this.admitted(sts, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, namespace, labels: { ...sts.spec.selector?.matchLabels, ...template.metadata.labels } },
      spec: { storageClassName: 'standard', volumeMode: 'Filesystem', ...template.spec, volumeName: `pvc-${claim}` },
      status: { phase: 'Bound', accessModes: template.spec?.accessModes ?? ['ReadWriteOnce'], capacity: { storage: template.spec?.resources?.requests?.storage ?? '1Gi' } },
    } as KubeObject, `Claim ${claim} for Pod ${sts.metadata.name}-0`);
    if (admitted) this.api.seed(admitted);
  }

  /**
   * What the API server's built-in admission (LimitRange, ResourceQuota) makes of a pod or
   * claim the controller creates; a refusal becomes the controller's FailedCreate event.
   */
  private admitted(sts: any, obj: KubeObject, what: string): KubeObject | undefined {
    try {
      return this.api.admitBuiltIn(obj);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const { name, namespace, uid } = sts.metadata;
      const now = timestamp();
      this.api.seed({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.failedcreate`, namespace },
        involvedObject: { apiVersion: 'apps/v1', kind: 'StatefulSet', name, namespace, uid },
        reason: 'FailedCreate',
        message: `create ${what} in StatefulSet ${name} failed error: ${err.body.message}`,
        source: { component: 'statefulset-controller' },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: 'Warning',
        reportingComponent: 'statefulset-controller',
      } as KubeObject);
      return undefined;
    }
  }

  /**
   * The events of a pod's start as the scheduler and the kubelet record them: Scheduled, then
   * Pulled, Created and Started per container, or Pulling and Failed for an unpullable image.
   */
  private startEvents(pod: any): KubeObject[] {
    const { name, namespace, uid } = pod.metadata;
    const now = timestamp();
    const event = (reason: string, message: string, over: Record<string, unknown> = {}): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid },
        reason,
        message,
        source: { component: 'kubelet', host: this.node },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: 'Normal',
        eventTime: null,
        reportingComponent: 'kubelet',
        reportingInstance: this.node,
        ...over,
      }) as KubeObject;
    const events = [
      event('Scheduled', `Successfully assigned ${namespace}/${name} to ${this.node}`, {
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        count: undefined,
        eventTime: new Date().toISOString().replace('Z', '000Z'),
        action: 'Binding',
        reportingComponent: 'default-scheduler',
        reportingInstance: `default-scheduler-${this.node}`,
      }),
    ];
    for (const c of pod.spec?.containers ?? []) {
      const about = { involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid, fieldPath: `spec.containers{${c.name}}` } };
      if (String(c.image).startsWith(`${UNPULLABLE_REGISTRY}/`)) {
        events.push(event('Pulling', `Pulling image "${c.image}"`, about));
        events.push(event('Failed', `Failed to pull image "${c.image}": ${pod.status?.containerStatuses?.find((s: any) => s.name === c.name)?.state?.waiting?.message ?? 'pull failed'}`, { ...about, type: 'Warning' }));
        continue;
      }
      events.push(event('Pulled', `Container image "${c.image}" already present on machine`, about));
      events.push(event('Created', `Created container ${c.name}`, about));
      events.push(event('Started', `Started container ${c.name}`, about));
    }
    return events;
  }

  private renderPod(sts: any, podName: string): KubeObject {
    const template = sts.spec.template ?? {};
    const now = timestamp();
    const containers: any[] = template.spec?.containers ?? [];
    const unpullable = containers.find((c) => String(c.image).startsWith(`${UNPULLABLE_REGISTRY}/`));
    const metadata = {
      name: podName,
      namespace: sts.metadata.namespace,
      labels: { ...template.metadata?.labels, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': '0' },
      annotations: { ...template.metadata?.annotations },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: sts.metadata.name, uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }],
    };
    const spec = { ...template.spec, hostname: podName, subdomain: sts.spec.serviceName, nodeName: this.node };
    const status = unpullable ? pullFailureStatus(containers, unpullable, now) : runningStatus(containers, podName, now);
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status };
  }
}

/** What a workspace pod started by the harness kubelet has written to its log. */
export function harnessPodLog(pod: string): string {
  return Array.from({ length: 8 }, (_, i) => `${pod} log line ${i + 1}\n`).join('');
}

/** A pod's status once its containers run, as the kubelet reports it. */
function runningStatus(containers: any[], podName: string, now: string): Record<string, unknown> {
  return {
    phase: 'Running',
    conditions: POD_READY_CONDITIONS.map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now })),
    hostIP: '10.0.0.12',
    podIP: '10.244.1.7',
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      state: { running: { startedAt: now } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c.image,
      imageID: `${c.image}@sha256:${'0'.repeat(64)}`,
      containerID: `containerd://${podName}`,
      started: true,
    })),
    qosClass: 'Guaranteed',
  };
}

/** What containerd reports for a registry whose name does not resolve. */
function pullFailureStatus(containers: any[], unpullable: any, now: string): Record<string, unknown> {
  const image = String(unpullable.image);
  const notReady = { status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unpullable.name}]` };
  return {
    phase: 'Pending',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Ready', ...notReady, lastProbeTime: null, lastTransitionTime: now },
      { type: 'ContainersReady', ...notReady, lastProbeTime: null, lastTransitionTime: now },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    ],
    hostIP: '10.0.0.12',
    podIP: '10.244.1.8',
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      state: {
        waiting: {
          reason: 'ErrImagePull',
          message: `failed to pull and unpack image "${image}": failed to resolve reference "${image}": failed to do request: Head "https://${UNPULLABLE_REGISTRY}/v2/": dial tcp: lookup ${UNPULLABLE_REGISTRY}: no such host`,
        },
      },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: c.image,
      imageID: '',
      started: false,
    })),
    qosClass: 'Guaranteed',
  };
}
