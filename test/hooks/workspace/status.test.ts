import { expect } from 'chai';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Condition, WorkspaceStatus } from '../../../hooks/workspace/types.js';
import type { KubeObject } from '../../../kube/client.js';
import {
  EARLIER,
  failedCreate,
  IMAGE_REF,
  NAME,
  POD_STATUS,
  input,
  observedService,
  observedStatefulSet,
  pod,
  terminating,
  workspace,
  workspaceImage,
  type InputOptions,
} from './inputs.js';

/** The reason pattern of the CRD's condition schema (metav1.Condition). */
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

function statusOf(opts: InputOptions): WorkspaceStatus {
  return syncWorkspace(input(opts)).status as WorkspaceStatus;
}

function condition(status: WorkspaceStatus, type: Condition['type']): Condition {
  const found = status.conditions.find((c) => c.type === type);
  if (!found) throw new Error(`no ${type} condition in ${JSON.stringify(status.conditions)}`);
  return found;
}

const created = { service: observedService(), statefulSet: observedStatefulSet() };
const stopped = { service: observedService(), statefulSet: observedStatefulSet(0) };

describe('syncWorkspace status (SPEC 1.3, 3.1)', () => {
  describe('follows the StatefulSet and its pod through the phases', () => {
    const cases: [string, InputOptions, string, string, string][] = [
      ['Pending while nothing is created yet', {}, 'Pending', 'False', 'Creating'],
      ['Pending while a stopped workspace has no StatefulSet yet', { parent: workspace({ running: false }) }, 'Pending', 'False', 'Creating'],
      ['Starting while the StatefulSet has not made its pod', { ...created }, 'Starting', 'False', 'PodNotCreated'],
      ['Starting while no node fits the pod', { ...created, pods: [pod(POD_STATUS.unschedulable())] }, 'Starting', 'False', 'Unschedulable'],
      ['Starting while the container is being created', { ...created, pods: [pod(POD_STATUS.containerCreating())] }, 'Starting', 'False', 'PodStarting'],
      ['Running once the pod is ready', { ...created, pods: [pod(POD_STATUS.ready())] }, 'Running', 'True', 'PodReady'],
      ['Starting while a running workspace replaces its pod', { ...created, pods: [terminating(POD_STATUS.ready())] }, 'Starting', 'False', 'PodRestarting'],
      ['Suspended with the pod still shutting down after a stop', { ...stopped, parent: workspace({ running: false }), pods: [terminating(POD_STATUS.ready())] }, 'Suspended', 'False', 'Stopping'],
      ['Suspended as soon as spec.running is false, before the pod is deleted', { ...created, parent: workspace({ running: false }), pods: [pod(POD_STATUS.ready())] }, 'Suspended', 'False', 'Stopping'],
      ['Suspended once no pod is left', { ...stopped, parent: workspace({ running: false }) }, 'Suspended', 'False', 'Suspended'],
      ['Starting again after a start, before the pod exists', { ...stopped }, 'Starting', 'False', 'PodNotCreated'],
    ];
    for (const [what, opts, phase, ready, reason] of cases) {
      it(what, () => {
        const status = statusOf(opts);
        expect(status.phase).to.equal(phase);
        expect(condition(status, 'Ready')).to.include({ status: ready, reason });
        expect(condition(status, 'Degraded')).to.include({ status: 'False', reason: 'AsExpected' });
        expect(condition(status, 'ImageResolved')).to.include({ status: 'True', reason: 'Resolved' });
      });
    }
  });

  describe('is Failed when the pod cannot start, saying what to do', () => {
    const badImage = 'registry.example.com/dev/nosuch:1.0';
    const cases: [string, KubeObject, string, RegExp[]][] = [
      ['an image that is not found', pod(POD_STATUS.errImagePull(badImage), {}, badImage), 'ErrImagePull', [/registry\.example\.com\/dev\/nosuch:1\.0 cannot be pulled/, /spec\.image of WorkspaceImage "ubuntu"/, /not found/]],
      ['an image pull in back-off', pod(POD_STATUS.imagePullBackOff(badImage), {}, badImage), 'ImagePullBackOff', [/registry\.example\.com\/dev\/nosuch:1\.0 cannot be pulled/, /Back-off pulling image/]],
      ['an invalid image reference', pod(POD_STATUS.invalidImageName('Registry.example.com/Dev:1'), {}, 'Registry.example.com/Dev:1'), 'InvalidImageName', [/Registry\.example\.com\/Dev:1 is not a valid image reference/]],
      ['an image absent with pull policy Never', pod(POD_STATUS.errImageNeverPull()), 'ErrImageNeverPull', [new RegExp(`${IMAGE_REF.replace(/[./]/g, '\\$&')} is not on the node`)]],
      ['a container that keeps exiting', pod(POD_STATUS.crashLoopBackOff()), 'CrashLoopBackOff', [/keeps exiting \(exit code 127, Error\)/, /spec\.command of WorkspaceImage "ubuntu"/, /GET \/workspaces\/alice-dev\/logs/]],
      ['a missing Secret', pod(POD_STATUS.createContainerConfigError()), 'CreateContainerConfigError', [/secret "db-credentials" not found/, /spec\.envFrom/, /namespace svc-alice/]],
      ['an image that runs as root under runAsNonRoot', pod(POD_STATUS.runAsRootRefused()), 'CreateContainerConfigError', [/runAsNonRoot and image will run as root/]],
      ['a container the runtime cannot create', pod(POD_STATUS.createContainerError()), 'CreateContainerError', [/container runtime cannot start pod alice-dev-0/, /permission denied/]],
      ['a command the runtime cannot run', pod(POD_STATUS.runContainerError()), 'RunContainerError', [/executable file not found/, /spec\.command/]],
      ['a pod the node evicted', pod(POD_STATUS.evicted()), 'PodFailed', [/Pod alice-dev-0 failed \(Evicted: The node was low on resource: ephemeral-storage/]],
    ];
    for (const [what, observedPod, reason, says] of cases) {
      it(what, () => {
        const status = statusOf({ ...created, pods: [observedPod] });
        expect(status.phase).to.equal('Failed');
        const ready = condition(status, 'Ready');
        const degraded = condition(status, 'Degraded');
        expect(ready).to.include({ status: 'False', reason });
        expect(degraded).to.include({ status: 'True', reason, message: ready.message });
        for (const pattern of says) expect(degraded.message).to.match(pattern);
        expect(condition(status, 'ImageResolved')).to.include({ status: 'True' });
      });
    }
  });

  describe('is Failed when the cluster refuses the pod or the home volume, saying what to do', () => {
    const podQuota = 'pods "alice-dev-0" is forbidden: exceeded quota: svc-quota, requested: requests.cpu=2,requests.memory=1Gi, used: requests.cpu=3,requests.memory=8Gi, limited: requests.cpu=4,requests.memory=8Gi';
    const claimQuota = 'persistentvolumeclaims "home-alice-dev-0" is forbidden: exceeded quota: svc-quota, requested: requests.storage=10Gi, used: requests.storage=15Gi, limited: requests.storage=20Gi';
    const limitRange = 'pods "alice-dev-0" is forbidden: maximum cpu usage per Container is 2, but limit is 4';

    it('a pod over the namespace quota', () => {
      const status = statusOf({ ...created, refusals: [failedCreate(podQuota)] });
      expect(status.phase).to.equal('Failed');
      const ready = condition(status, 'Ready');
      expect(ready).to.include({ status: 'False', reason: 'QuotaExceeded' });
      expect(condition(status, 'Degraded')).to.include({ status: 'True', reason: 'QuotaExceeded', message: ready.message });
      expect(ready.message).to.equal(
        'Pod alice-dev-0 cannot be created: the cluster refused it at 09:00:05 UTC because namespace svc-alice has no room left in its quota (ResourceQuota svc-quota): ' +
          'it needs 2 CPU while 3 of 4 are in use; 1Gi memory while 8Gi of 8Gi are in use. The quota counts everything in the namespace, also what was started from inside a workspace. ' +
          'To start it, stop a workspace or delete pods you no longer need, or ask an administrator for a larger quota; Kubernetes tries again on its own.',
      );
    });

    it('a home volume over the storage quota', () => {
      const ready = condition(statusOf({ ...created, refusals: [failedCreate(claimQuota, { claim: 'home-alice-dev-0' })] }), 'Ready');
      expect(ready.reason).to.equal('QuotaExceeded');
      expect(ready.message).to.match(/^Home volume home-alice-dev-0 cannot be created: .* it needs 10Gi storage while 15Gi of 20Gi are in use\./);
      expect(ready.message).to.include('delete a workspace you no longer need together with its home volume');
    });

    it('a pod a LimitRange refuses, in the cluster\'s words', () => {
      const ready = condition(statusOf({ ...created, refusals: [failedCreate(limitRange)] }), 'Ready');
      expect(ready).to.include({ reason: 'CreateRefused' });
      expect(ready.message).to.equal(`Pod alice-dev-0 cannot be created: the cluster refused it at 09:00:05 UTC: ${limitRange}. Check the workspace's resources and volumes against what the namespace allows; Kubernetes tries again on its own.`);
    });

    it('the newest of several refusals', () => {
      const older = failedCreate(limitRange, { at: '2026-11-22T08:59:00Z' });
      const newer = failedCreate(podQuota, { at: '2026-11-22T09:00:05Z' });
      expect(condition(statusOf({ ...created, refusals: [newer, older] }), 'Ready').reason).to.equal('QuotaExceeded');
      expect(condition(statusOf({ ...created, refusals: [older, newer] }), 'Ready').reason).to.equal('QuotaExceeded');
    });

    const ignored: [string, InputOptions][] = [
      ['once the pod exists', { ...created, pods: [pod(POD_STATUS.containerCreating())], refusals: [failedCreate(podQuota)] }],
      ['while the workspace is stopped', { ...stopped, parent: workspace({ running: false }), refusals: [failedCreate(podQuota)] }],
      ['when it was about a deleted StatefulSet of the same name', { ...created, refusals: [failedCreate(podQuota, { uid: '0b0e3a55-1111-4c2d-9e8f-7a6b5c4d3e2f' })] }],
      ['when it was about another StatefulSet', { ...created, refusals: [failedCreate(podQuota, { statefulSet: 'alice-other' })] }],
    ];
    for (const [when, opts] of ignored) {
      it(`but not ${when}`, () => expect(statusOf(opts).phase).to.not.equal('Failed'));
    }
  });

  it("names the image's pull Secret when an image pull fails", () => {
    const status = statusOf({
      ...created,
      image: workspaceImage({ imagePullSecretRef: { name: 'ecr-pull' } }),
      pods: [pod(POD_STATUS.imagePullBackOff())],
    });
    expect(condition(status, 'Degraded').message).to.include('pull Secret "ecr-pull"');
  });

  it('treats a stopped workspace whose last pod was crashing as Suspended, not Failed', () => {
    const status = statusOf({ ...stopped, parent: workspace({ running: false }), pods: [terminating(POD_STATUS.crashLoopBackOff())] });
    expect(status.phase).to.equal('Suspended');
  });

  describe('when the WorkspaceImage does not exist', () => {
    for (const [what, image] of [['absent', null], ['another entry', workspaceImage({}, 'debian')]] as const) {
      it(`is Pending with ImageResolved=False naming the missing entry (${what})`, () => {
        const status = statusOf({ image });
        expect(status.phase).to.equal('Pending');
        const resolved = condition(status, 'ImageResolved');
        expect(resolved).to.include({ status: 'False', reason: 'ImageNotFound' });
        expect(resolved.message).to.match(/WorkspaceImage "ubuntu" does not exist\. Ask an administrator to add "ubuntu" to the catalog/);
        expect(condition(status, 'Ready')).to.include({ status: 'False', reason: 'ImageNotFound' });
        expect(condition(status, 'Degraded')).to.include({ status: 'True', reason: 'ImageNotFound' });
      });
    }

    it('returns the observed children as they are, so nothing is pruned or changed', () => {
      const service = observedService();
      const statefulSet = observedStatefulSet();
      const { children } = syncWorkspace(input({ image: null, service, statefulSet, pods: [pod(POD_STATUS.ready())] }));
      expect(children).to.have.length(2);
      expect(children[0]).to.equal(service);
      expect(children[1]).to.equal(statefulSet);
    });

    it('returns no children when none were created yet', () => {
      expect(syncWorkspace(input({ image: null })).children).to.deep.equal([]);
    });
  });

  describe('is Failed, leaving the children alone, when the spec cannot be rendered', () => {
    const cases: [string, InputOptions, string, RegExp, string][] = [
      ['spec.storage is unset', { parent: workspace({ storage: undefined }) }, 'StorageUnset', /spec\.storage is unset: the CRD default did not apply/, 'True'],
      ['spec.storage is not a quantity', { parent: workspace({ storage: 'ten gigs' }) }, 'InvalidSpec', /spec\.storage "ten gigs" is not a quantity/, 'True'],
      ['an extra volume is named home', { parent: workspace({ volumes: [{ name: 'home', emptyDir: {} }] }) }, 'InvalidSpec', /spec\.volumes\[0\] is named "home"/, 'True'],
      ['a mount shadows the home path', { parent: workspace({ volumes: [{ name: 'x', emptyDir: {} }], volumeMounts: [{ name: 'x', mountPath: '/home/dev/' }] }) }, 'InvalidSpec', /spec\.volumeMounts\[0\] mounts "x" at \/home\/dev\/, which is the home path/, 'True'],
      ['a mount names no volume', { parent: workspace({ volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }) }, 'InvalidSpec', /spec\.volumeMounts\[0\] mounts "cache", which is not one of spec\.volumes/, 'True'],
      ['the image runs as uid 0 without allowRoot', { image: workspaceImage({ runAsUser: 0 }) }, 'RootNotAllowed', /runs as uid 0 but does not set spec\.allowRoot/, 'False'],
      ['the image names no container image', { image: workspaceImage({ image: '' }) }, 'ImageInvalid', /names no container image/, 'False'],
      ['spec.imageRef.name is empty', { parent: workspace({ imageRef: { name: '' } }) }, 'InvalidSpec', /spec\.imageRef\.name is empty/, 'False'],
    ];
    for (const [what, opts, reason, says, imageResolved] of cases) {
      it(what, () => {
        const service = observedService();
        const statefulSet = observedStatefulSet();
        const { status, children } = syncWorkspace(input({ ...opts, service, statefulSet, pods: [pod(POD_STATUS.ready())] }));
        const s = status as WorkspaceStatus;
        expect(s.phase).to.equal('Failed');
        expect(condition(s, 'Degraded')).to.include({ status: 'True', reason });
        expect(condition(s, 'Degraded').message).to.match(says);
        expect(condition(s, 'Ready')).to.include({ status: 'False', reason });
        expect(condition(s, 'ImageResolved').status).to.equal(imageResolved);
        expect(children).to.have.length(2);
        expect(children[0]).to.equal(service);
        expect(children[1]).to.equal(statefulSet);
      });
    }
  });

  it('is Failed with the API server message when the loop could not write a child', () => {
    const message = 'StatefulSet.apps "alice-dev" is invalid: spec.template.spec.volumes[0].configMap.name: Required value';
    const status = statusOf({ ...created, errors: [{ child: `StatefulSet/${NAME}`, message }] });
    expect(status.phase).to.equal('Failed');
    expect(condition(status, 'Degraded')).to.include({ status: 'True', reason: 'ApplyFailed' });
    expect(condition(status, 'Degraded').message).to.include(`StatefulSet/${NAME}: ${message}`);
  });

  it('writes endpoint <name>@<gateway host>, the default pod name and the observed generation', () => {
    const status = statusOf({});
    expect(status).to.include({ endpoint: 'alice-dev@den.example.com', podName: 'alice-dev-0', observedGeneration: 2 });
  });

  it("counts only the StatefulSet's pod <name>-0, not another pod that carries the workspace's label", () => {
    const copy = pod(POD_STATUS.ready(), { name: 'alice-dev-debug' });
    const alone = statusOf({ ...created, pods: [copy] });
    expect(alone).to.include({ phase: 'Starting', podName: 'alice-dev-0' });
    expect(statusOf({ ...created, pods: [copy, pod(POD_STATUS.crashLoopBackOff())] })).to.include({ phase: 'Failed', podName: 'alice-dev-0' });
  });

  it("ignores pods of another workspace or namespace", () => {
    const stranger = pod(POD_STATUS.ready(), { labels: { 'den.dev/workspace': 'bob-dev' } });
    const elsewhere = pod(POD_STATUS.ready(), { namespace: 'svc-bob' });
    const status = statusOf({ ...created, pods: [stranger, elsewhere] });
    expect(status.phase).to.equal('Starting');
    expect(status.podName).to.equal('alice-dev-0');
  });

  it('tells how to connect once Running', () => {
    const status = statusOf({ ...created, pods: [pod(POD_STATUS.ready())] });
    expect(condition(status, 'Ready').message).to.equal('Pod alice-dev-0 is ready; connect with ssh alice-dev@den.example.com.');
  });

  it('writes Ready, Degraded and ImageResolved in that order, each with the generation it was computed from', () => {
    const status = statusOf({ ...created, pods: [pod(POD_STATUS.ready())] });
    expect(status.conditions.map((c) => c.type)).to.deep.equal(['Ready', 'Degraded', 'ImageResolved']);
    for (const c of status.conditions) expect(c.observedGeneration).to.equal(2);
  });

  it('uses reasons the CRD accepts and keeps quoted kubelet messages short', () => {
    const longMessage = `secret "${'x'.repeat(5000)}" not found`;
    const statuses = [
      statusOf({ image: null }),
      statusOf({ parent: workspace({ storage: undefined }) }),
      statusOf({ ...created, pods: [pod({ ...POD_STATUS.createContainerConfigError(), containerStatuses: [{ name: 'workspace', state: { waiting: { reason: 'CreateContainerConfigError', message: longMessage } } }] })] }),
      ...Object.values(POD_STATUS).map((make) => statusOf({ ...created, pods: [pod((make as (i: string) => Record<string, unknown>)(IMAGE_REF))] })),
    ];
    for (const status of statuses) {
      for (const c of status.conditions) {
        expect(c.reason).to.match(REASON);
        expect(c.message.length).to.be.below(1500);
      }
    }
  });

  it("keeps every message within the CRD's 32768 characters, whatever the Workspace or the API server says", () => {
    const longName = 'v'.repeat(40_000);
    const statuses = [
      statusOf({ parent: workspace({ volumes: [], volumeMounts: [{ name: longName, mountPath: '/data' }] }) }),
      statusOf({ ...created, errors: [{ child: `StatefulSet/${NAME}`, message: `StatefulSet.apps "${NAME}" is invalid: ${longName}` }] }),
    ];
    for (const status of statuses) {
      expect(status.phase).to.equal('Failed');
      for (const c of status.conditions) expect(c.message.length, c.type).to.be.at.most(4000);
    }
  });

  describe('lastTransitionTime', () => {
    it('is now for conditions the workspace did not have', () => {
      const status = statusOf({});
      for (const c of status.conditions) expect(c.lastTransitionTime).to.equal('2026-11-22T10:00:00Z');
    });

    it('stays when a condition keeps its status, even with a new reason, and moves when the status changes', () => {
      const previous = {
        phase: 'Starting',
        conditions: [
          { type: 'Ready', status: 'False', reason: 'PodStarting', message: 'starting', lastTransitionTime: EARLIER },
          { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'fine', lastTransitionTime: EARLIER },
          { type: 'ImageResolved', status: 'True', reason: 'Resolved', message: 'ok', lastTransitionTime: EARLIER },
        ],
      };
      const failing = statusOf({ ...created, parent: workspace({}, { status: previous }), pods: [pod(POD_STATUS.imagePullBackOff())] });
      expect(condition(failing, 'Ready')).to.include({ reason: 'ImagePullBackOff', lastTransitionTime: EARLIER });
      expect(condition(failing, 'Degraded')).to.include({ status: 'True', lastTransitionTime: '2026-11-22T10:00:00Z' });
      expect(condition(failing, 'ImageResolved').lastTransitionTime).to.equal(EARLIER);

      const running = statusOf({ ...created, parent: workspace({}, { status: previous }), pods: [pod(POD_STATUS.ready())] });
      expect(condition(running, 'Ready')).to.include({ status: 'True', lastTransitionTime: '2026-11-22T10:00:00Z' });
      expect(condition(running, 'Degraded').lastTransitionTime).to.equal(EARLIER);
    });
  });

  it("carries the gateway's lastActivityTime over unchanged, and adds none", () => {
    const withActivity = workspace({}, { status: { phase: 'Running', lastActivityTime: '2026-11-22T09:41:07Z' } });
    expect(statusOf({ ...created, parent: withActivity }).lastActivityTime).to.equal('2026-11-22T09:41:07Z');
    expect(statusOf({ ...created })).not.to.have.property('lastActivityTime');
  });
});
