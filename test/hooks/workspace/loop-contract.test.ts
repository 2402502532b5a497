// The Workspace hook's output as the reconcile loop's own planning functions read it: held
// children are neither applied nor pruned, rendered children survive decoration, and once the
// API server has stored them (with its defaults) the next pass finds nothing to apply.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { childrenMap, decorateChild, isHeldAsObserved, planChildren } from '../../../hooks/loop/plan.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import { POD_STATUS, input, observedService, observedStatefulSet, pod, workspace } from './inputs.js';

const CHILD_TYPES = [RESOURCES.service, RESOURCES.statefulSet];
const decoration = (parent: KubeObject) => ({ parent, parentResource: RESOURCES.workspace, parentLabel: 'den.dev/workspace' });

/** What the API server stores for an applied object: the object plus its defaults and bookkeeping. */
function storedByApiServer(applied: KubeObject, n: number): KubeObject {
  const stored = JSON.parse(JSON.stringify(applied)) as Record<string, any>;
  stored.metadata = { ...stored.metadata, uid: `uid-${n}`, resourceVersion: `${1000 + n}`, generation: 1, creationTimestamp: '2026-11-22T10:00:01Z' };
  if (stored.kind === 'StatefulSet') {
    const pod = stored.spec.template.spec;
    Object.assign(pod, { dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds ?? 30 });
    Object.assign(pod.containers[0], { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    // Quantities come back as strings, whatever JSON type they were sent as.
    const resources = pod.containers[0].resources ?? {};
    for (const field of ['requests', 'limits']) {
      if (resources[field]) resources[field] = Object.fromEntries(Object.entries(resources[field]).map(([k, v]) => [k, String(v)]));
    }
    Object.assign(stored.spec, { revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    stored.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Retain' };
    const claim = stored.spec.volumeClaimTemplates[0];
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.spec.volumeMode = 'Filesystem';
    claim.status = { phase: 'Pending' };
    stored.status = { replicas: 1, availableReplicas: 0, observedGeneration: 1 };
  } else {
    Object.assign(stored.spec, { clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster' });
    stored.status = { loadBalancer: {} };
  }
  return stored;
}

describe('Workspace hook output as the reconcile loop plans it', () => {
  it('holds the observed children when the WorkspaceImage is missing: nothing applied, nothing pruned', () => {
    const observed = [observedService(), observedStatefulSet()];
    const given = input({ image: null });
    const { children } = syncWorkspace({ ...given, children: childrenMap(observed, CHILD_TYPES) });
    expect(children.every((c) => isHeldAsObserved(c, observed))).to.equal(true);
    const plan = planChildren([], observed, children);
    expect(plan.apply).to.deep.equal([]);
    expect(plan.prune).to.deep.equal([]);
  });

  it('finds nothing to apply on the next pass once the API server stored the rendered children', () => {
    const parent = workspace({
      resources: { requests: { cpu: 1, memory: '2Gi' }, limits: { cpu: 2, memory: '2Gi' } },
      volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    });
    const first = syncWorkspace(input({ parent }));
    const applied = first.children.map((c) => decorateChild(c, decoration(parent)));
    const stored = applied.map(storedByApiServer);
    const second = syncWorkspace({
      ...input({ parent, pods: [pod(POD_STATUS.ready())] }),
      children: childrenMap(stored, CHILD_TYPES),
    });
    const desired = second.children.map((c) => decorateChild(c, decoration(parent)));
    const plan = planChildren(desired, stored);
    expect(plan.apply).to.deep.equal([]);
    expect(plan.prune).to.deep.equal([]);
    expect(second.status.phase).to.equal('Running');
  });
});
