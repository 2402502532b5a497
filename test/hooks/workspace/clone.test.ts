import { expect } from 'chai';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Condition, WorkspaceStatus } from '../../../hooks/workspace/types.js';
import type { KubeObject } from '../../../kube/client.js';
import { input, NAME, NAMESPACE, observedService, observedStatefulSet, pod, POD_STATUS, workspace, workspaceImage, type InputOptions } from './inputs.js';

type Json = Record<string, any>;

const URL = 'https://git.example.com/team/api.git';
const SOURCE = { git: { url: URL, ref: 'main' } };
const DEN_IMAGE = 'registry.example.com/den/den:0.1.0';
const CLONE = { image: DEN_IMAGE, imagePullPolicy: 'Always' as const };
const created = { service: observedService(), statefulSet: observedStatefulSet() };

function sync(opts: InputOptions & { previous?: Condition[] }) {
  const base = input(opts);
  const parent = opts.previous ? { ...base.parent, status: { phase: 'Starting', conditions: opts.previous } } : base.parent;
  return syncWorkspace({ ...base, parent, config: { ...base.config, clone: CLONE } });
}

function podSpecOf(spec: Json, imageSpec: Json = {}): Json {
  const { children } = sync({ parent: workspace(spec), image: workspaceImage(imageSpec) });
  return (children.find((c) => c.kind === 'StatefulSet') as Json).spec.template.spec;
}

const PENDING_INIT = {
  phase: 'Pending',
  conditions: [
    { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [clone]' },
    { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [workspace]' },
    { type: 'PodScheduled', status: 'True' },
  ],
  containerStatuses: [{ name: 'workspace', state: { waiting: { reason: 'PodInitializing' } }, lastState: {}, ready: false, restartCount: 0, image: 'registry.example.com/dev/ubuntu:24.04', imageID: '', started: false }],
};
const FAILURE = `Cloning ${URL} failed: the repository has no branch, tag or commit "main". Check the ref (it is case-sensitive), or leave it empty for the default branch, then recreate the workspace.`;
const cloneStatus = (state: Json, lastState: Json = {}, restartCount = 0) => ({ name: 'clone', state, lastState, ready: false, restartCount, image: DEN_IMAGE, imageID: '', started: state.running !== undefined });
const failed = { terminated: { exitCode: 1, reason: 'Error', message: FAILURE, startedAt: '2026-11-22T08:58:10Z', finishedAt: '2026-11-22T08:58:11Z' } };

/** Pods as the kubelet reports a workspace pod while its clone init container runs, fails and finishes. */
const CLONE_POD = {
  cloning: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ running: { startedAt: '2026-11-22T08:58:10Z' } })] }),
  justFailed: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus(failed)] }),
  backingOff: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=clone pod=${NAME}-0_${NAMESPACE}(9a7d)` } }, failed, 1)] }),
  retrying: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ running: { startedAt: '2026-11-22T08:59:10Z' } }, failed, 2)] }),
  cloneImageUnpullable: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${DEN_IMAGE}"` } })] }),
  exitedSilently: () => pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ terminated: { exitCode: 137, reason: 'OOMKilled' } })] }),
  cloned: (message = `Cloned ${URL} (branch main) into ~/api.`) =>
    pod({ ...POD_STATUS.ready(), initContainerStatuses: [{ ...cloneStatus({ terminated: { exitCode: 0, reason: 'Completed', message } }), ready: true }] }),
};

function condition(status: WorkspaceStatus, type: Condition['type']): Condition | undefined {
  return status.conditions.find((c) => c.type === type);
}

describe('a workspace with spec.source (issue 34)', () => {
  describe('its pod', () => {
    it('runs Den\'s image as a clone init container over the home volume, as the workspace\'s uid, with the repository in its environment', () => {
      const spec = podSpecOf({ source: { git: { url: URL, ref: 'v2', path: 'src/api' } }, resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } }, { runAsUser: 1001, homePath: '/home/me' });
      expect(spec.initContainers).to.deep.equal([
        {
          name: 'clone',
          image: DEN_IMAGE,
          imagePullPolicy: 'Always',
          args: ['clone-source'],
          env: [
            { name: 'DEN_SOURCE_URL', value: URL },
            { name: 'DEN_SOURCE_REF', value: 'v2' },
            { name: 'DEN_SOURCE_DIRECTORY', value: 'src/api' },
            { name: 'HOME', value: '/home/me' },
          ],
          workingDir: '/home/me',
          volumeMounts: [{ name: 'home', mountPath: '/home/me' }, { name: 'den-git-credentials', mountPath: '/var/run/secrets/den.dev/git', readOnly: true }],
          resources: { requests: { cpu: '1' }, limits: { cpu: '1' } },
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ]);
      expect(spec.securityContext).to.include({ runAsUser: 1001, fsGroup: 1001, runAsNonRoot: true });
      expect(spec.containers.map((c: Json) => c.name)).to.deep.equal(['workspace']);
    });

    it('clones into ~/<repository name> with the default branch when no path or ref is given', () => {
      const [clone] = podSpecOf({ source: { git: { url: URL } } }).initContainers;
      expect(clone.env).to.deep.equal([
        { name: 'DEN_SOURCE_URL', value: URL },
        { name: 'DEN_SOURCE_DIRECTORY', value: 'api' },
        { name: 'HOME', value: '/home/dev' },
      ]);
      expect(clone).to.not.have.property('resources');
    });

    it("lists the clone image's pull Secrets after the entry's in the pod's imagePullSecrets, each once, in every pod (every pod runs the clone step)", () => {
      const withSecrets = (spec: Json) => {
        const base = input({ parent: workspace(spec), image: workspaceImage({ imagePullSecretRef: { name: 'team-registry' } }) });
        const { children } = syncWorkspace({ ...base, config: { ...base.config, clone: { ...CLONE, imagePullSecrets: ['den-registry', 'team-registry'] } } });
        return (children.find((c) => c.kind === 'StatefulSet') as Json).spec.template.spec.imagePullSecrets;
      };
      expect(withSecrets({ source: SOURCE })).to.deep.equal([{ name: 'team-registry' }, { name: 'den-registry' }]);
      expect(withSecrets({})).to.deep.equal([{ name: 'team-registry' }, { name: 'den-registry' }]);
    });

    it('runs the clone step without spec.source too, with no repository in its environment (it clones the person\'s dotfiles)', () => {
      const [clone, ...others] = podSpecOf({}).initContainers;
      expect(others).to.deep.equal([]);
      expect(clone).to.deep.include({ name: 'clone', image: DEN_IMAGE, args: ['clone-source'], env: [{ name: 'HOME', value: '/home/dev' }] });
      expect(clone.volumeMounts).to.deep.include({ name: 'den-git-credentials', mountPath: '/var/run/secrets/den.dev/git', readOnly: true });
    });

    it('renders nothing and says why for a source the webhook would refuse (admitted before the rule)', () => {
      const { children, status } = sync({ parent: workspace({ source: { git: { url: 'git@github.com:' } } }) });
      expect(children).to.deep.equal([]);
      expect((status as WorkspaceStatus).phase).to.equal('Failed');
      expect(condition(status as WorkspaceStatus, 'Ready')).to.include({ reason: 'InvalidSpec' });
      expect(condition(status as WorkspaceStatus, 'Ready')!.message).to.match(/^spec\.source\.git\.url: "git@github\.com:" names no repository on github\.com/);
    });
  });

  describe('its status, read from the clone init container', () => {
    it('is Starting with Ready and Cloned saying "Cloning" while the clone runs, and records a Cloning Event', () => {
      const out = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloning()] });
      const status = out.status as WorkspaceStatus;
      expect(status.phase).to.equal('Starting');
      const message = `Cloning ${URL} into ~/api; the workspace starts once it is in place.`;
      expect(condition(status, 'Ready')).to.include({ status: 'False', reason: 'Cloning', message });
      expect(condition(status, 'Cloned')).to.include({ status: 'False', reason: 'Cloning', message });
      expect(out.events).to.deep.equal([{ type: 'Normal', reason: 'Cloning', message, annotations: { 'den.dev/kind': 'lifecycle' } }]);
    });

    for (const [what, make] of [['the clone step has just failed', CLONE_POD.justFailed], ['the kubelet backs off before retrying it', CLONE_POD.backingOff]] as const) {
      it(`is Failed with the clone step's own words when ${what}, and records a Warning Event`, () => {
        const out = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [make()] });
        const status = out.status as WorkspaceStatus;
        expect(status.phase).to.equal('Failed');
        for (const type of ['Ready', 'Cloned'] as const) expect(condition(status, type)).to.include({ status: 'False', reason: 'CloneFailed', message: FAILURE });
        expect(condition(status, 'Degraded')).to.include({ status: 'True', reason: 'CloneFailed', message: FAILURE });
        expect(out.events).to.deep.equal([{ type: 'Warning', reason: 'CloneFailed', message: FAILURE, annotations: { 'den.dev/kind': 'lifecycle' } }]);
      });
    }

    it('records the failure once, not on every pass that sees it again', () => {
      const first = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.backingOff()] });
      const again = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.backingOff()], previous: (first.status as WorkspaceStatus).conditions });
      expect(again.events).to.equal(undefined);
    });

    it('says Cloning again with the last attempt\'s words while the kubelet retries', () => {
      const status = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.retrying()] }).status as WorkspaceStatus;
      expect(status.phase).to.equal('Starting');
      expect(condition(status, 'Cloned')).to.include({ reason: 'Cloning', message: `Cloning ${URL} into ~/api again; the last attempt said: ${FAILURE}` });
    });

    it('blames Den\'s clone image, not the catalog entry, when the clone image cannot be pulled', () => {
      const status = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloneImageUnpullable()] }).status as WorkspaceStatus;
      expect(status.phase).to.equal('Failed');
      const message = `Den's clone image ${DEN_IMAGE} cannot be pulled in this namespace (ImagePullBackOff), so the repository cannot be cloned. The kubelet says: Back-off pulling image "${DEN_IMAGE}". Ask an administrator to check den manager --clone-image (DEN_CLONE_IMAGE) and that this namespace may pull it: a private image's pull Secret named in --clone-image-pull-secrets and labelled den.dev/pull-secret=true in Den's namespace is copied into every person's namespace.`;
      for (const type of ['Ready', 'Cloned'] as const) expect(condition(status, type)).to.include({ reason: 'CloneFailed', message });
    });

    it('says what it knows when the clone step ended without a message', () => {
      const status = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.exitedSilently()] }).status as WorkspaceStatus;
      expect(status.phase).to.equal('Failed');
      expect(condition(status, 'Cloned')!.message).to.equal('The clone step into ~/api stopped (exit code 137, OOMKilled) without saying why. Its log (den logs, or the pod\'s clone container) tells more.');
    });

    it('is Running with Cloned True and the clone step\'s words once the pod is ready, and records a Cloned Event', () => {
      const out = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloned()] });
      const status = out.status as WorkspaceStatus;
      expect(status.phase).to.equal('Running');
      expect(condition(status, 'Ready')).to.include({ status: 'True', reason: 'PodReady' });
      expect(condition(status, 'Cloned')).to.include({ status: 'True', reason: 'Cloned', message: `Cloned ${URL} (branch main) into ~/api.` });
      expect(out.events).to.deep.equal([{ type: 'Normal', reason: 'Cloned', message: `Cloned ${URL} (branch main) into ~/api.`, annotations: { 'den.dev/kind': 'lifecycle' } }]);
    });

    it('records no Event on a later start, whose clone step only says the repository is there', () => {
      const first = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloned()] });
      const later = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloned('The repository was cloned on an earlier start; Den leaves ~/api as it is.')], previous: (first.status as WorkspaceStatus).conditions });
      expect(condition(later.status as WorkspaceStatus, 'Cloned')).to.include({ status: 'True', message: 'The repository was cloned on an earlier start; Den leaves ~/api as it is.' });
      expect(later.events).to.equal(undefined);
    });

    it('keeps saying Cloned, with no Cloning and no second Cloned Event, while a later start\'s clone step waits and runs (as a real node reports it)', () => {
      const first = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloned()] });
      let previous = (first.status as WorkspaceStatus).conditions;
      const laterPods = [
        pod({ ...PENDING_INIT, initContainerStatuses: [cloneStatus({ waiting: { reason: 'PodInitializing' } })] }),
        CLONE_POD.cloning(),
        CLONE_POD.cloned('The repository was cloned on an earlier start; Den leaves ~/api as it is.'),
      ];
      for (const later of laterPods) {
        const out = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [later], previous });
        const status = out.status as WorkspaceStatus;
        expect(condition(status, 'Cloned')).to.include({ status: 'True', reason: 'Cloned' });
        expect(condition(status, 'Ready')!.reason).to.not.equal('Cloning');
        expect(out.events).to.equal(undefined);
        previous = status.conditions;
      }
    });

    it('keeps the last word while the workspace is stopped', () => {
      const first = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.cloned()] });
      const stopped = sync({ parent: workspace({ source: SOURCE, running: false }), service: observedService(), statefulSet: observedStatefulSet(0), previous: (first.status as WorkspaceStatus).conditions });
      expect((stopped.status as WorkspaceStatus).phase).to.equal('Suspended');
      expect(condition(stopped.status as WorkspaceStatus, 'Cloned')).to.include({ status: 'True', reason: 'Cloned' });
    });

    it('forgets an old failure once a new pod replaces the failed one, before the kubelet reports on it', () => {
      const first = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [CLONE_POD.backingOff()] });
      const fresh = pod(POD_STATUS.unschedulable());
      const next = sync({ parent: workspace({ source: { git: { url: URL } } }), ...created, pods: [fresh], previous: (first.status as WorkspaceStatus).conditions });
      const status = next.status as WorkspaceStatus;
      expect(status.phase).to.equal('Starting');
      expect(condition(status, 'Ready')).to.include({ reason: 'Unschedulable' });
      expect(condition(status, 'Cloned')).to.include({ status: 'False', reason: 'NotYetCloned' });
    });

    it('says the clone is still to come before the pod exists', () => {
      const status = sync({ parent: workspace({ source: SOURCE }), ...created }).status as WorkspaceStatus;
      expect(status.phase).to.equal('Starting');
      expect(condition(status, 'Cloned')).to.include({ status: 'False', reason: 'NotYetCloned', message: `${URL} is cloned into ~/api when the workspace first starts.` });
    });

    it('has no Cloned condition without spec.source', () => {
      const status = sync({ ...created, pods: [pod(POD_STATUS.ready())] as KubeObject[] }).status as WorkspaceStatus;
      expect(condition(status, 'Cloned')).to.equal(undefined);
    });
  });
});
