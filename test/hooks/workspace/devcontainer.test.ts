import { expect } from 'chai';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Condition, WorkspaceStatus } from '../../../hooks/workspace/types.js';
import type { KubeObject } from '../../../kube/client.js';
import { LIFECYCLE_SCRIPT, START_SCRIPT } from '../../../hooks/workspace/children/lifecycle.js';
import { jsoncToJson, summarizeDevcontainer } from '../../../source/devcontainer.js';
import { LIFECYCLE_REPOSITORY } from '../../support/git-http-server.js';
import { input, observedService, observedStatefulSet, pod, POD_STATUS, workspace, workspaceImage, type InputOptions } from './inputs.js';

type Json = Record<string, any>;

const URL = 'https://git.example.com/team/lifecycle.git';
const SOURCE = { git: { url: URL } };
const DEN_IMAGE = 'registry.example.com/den/den:0.1.0';
const created = { service: observedService(), statefulSet: observedStatefulSet() };
const SUMMARY = summarizeDevcontainer(JSON.parse(jsoncToJson(jsoncToJson(LIFECYCLE_REPOSITORY['.devcontainer/devcontainer.json']!))), '.devcontainer/devcontainer.json', '/home/dev', 'lifecycle');
const OFFERING = workspaceImage({ displayName: 'Dev 1', image: 'registry.example/dev:1', imagePullPolicy: 'Always', imagePullSecretRef: { name: 'dev-pull' } }, 'dev-one');

function sync(opts: InputOptions & { status?: Json }) {
  const base = input(opts);
  const parent = opts.status ? { ...base.parent, status: opts.status } : base.parent;
  return syncWorkspace({ ...base, parent, config: { ...base.config, clone: { image: DEN_IMAGE, imagePullPolicy: 'IfNotPresent' } } });
}

/** The pod of the first start: its clone step has reported devcontainer.json, the template predates it. */
function clonedPod(report: Json, annotations: Record<string, string> = {}, lifecycle?: Json): KubeObject {
  const clone = { name: 'clone', state: { terminated: { exitCode: 0, reason: 'Completed', message: JSON.stringify(report) } }, ready: true, restartCount: 0, image: DEN_IMAGE };
  return pod({ ...POD_STATUS.ready(), initContainerStatuses: [clone, ...(lifecycle ? [{ name: 'lifecycle', state: lifecycle, ready: true, restartCount: 0 }] : [])] }, { annotations: { 'den.dev/logs-enabled': 'true', ...annotations } });
}

function templateOf(children: KubeObject[]): Json {
  return (children.find((c) => c.kind === 'StatefulSet') as Json).spec.template;
}

function condition(status: WorkspaceStatus, type: Condition['type']): Condition | undefined {
  return status.conditions.find((c) => c.type === type);
}

describe('a workspace applies the devcontainer.json its clone step read (issue 34 part 2)', () => {
  const report = { message: `Cloned ${URL} (branch main) into ~/lifecycle.`, devcontainer: SUMMARY };
  const first = () => sync({ parent: workspace({ source: SOURCE, env: [{ name: 'GREETING', value: 'mine' }] }), ...created, catalog: [workspaceImage(), OFFERING], pods: [clonedPod(report)] });

  it('keeps what was read in status.devcontainer', () => {
    expect((first().status as WorkspaceStatus).devcontainer).to.deep.equal(SUMMARY);
  });

  it('runs the image a usable catalog entry offers, with that entry\'s pull policy and pull Secret', () => {
    const spec = templateOf(first().children).spec;
    expect(spec.containers[0]).to.include({ image: 'registry.example/dev:1', imagePullPolicy: 'Always' });
    expect(spec.imagePullSecrets).to.deep.equal([{ name: 'dev-pull' }]);
  });

  it('keeps its own entry and says why when no catalog entry offers the image, or only a deprecated one does', () => {
    const deprecated = workspaceImage({ image: 'registry.example/dev:1', deprecated: true }, 'old');
    const out = sync({ parent: workspace({ source: SOURCE }), ...created, catalog: [workspaceImage(), deprecated], pods: [clonedPod(report)] });
    expect(templateOf(out.children).spec.containers[0].image).to.equal('registry.example.com/dev/ubuntu:24.04');
    expect(condition(out.status as WorkspaceStatus, 'Devcontainer')!.message).to.include(
      'image registry.example/dev:1: no catalog entry offers it, so the workspace keeps its entry "ubuntu" (registry.example.com/dev/ubuntu:24.04); ask an administrator to add the image to the catalog.',
    );
  });

  it('sets containerEnv in the workspace container, the workspace\'s own spec.env winning', () => {
    const env = templateOf(first().children).spec.containers[0].env as { name: string; value: string }[];
    expect(env.filter((e) => ['GREETING', 'WHERE', 'TOKEN'].includes(e.name))).to.deep.equal([
      { name: 'WHERE', value: '/home/dev/lifecycle/src' },
      { name: 'TOKEN', value: 'none' },
      { name: 'GREETING', value: 'mine' },
    ]);
  });

  it('runs onCreate/postCreate and the user check in a lifecycle init container of the workspace image, after the clone, with the workspace container\'s environment', () => {
    const spec = templateOf(first().children).spec;
    expect(spec.initContainers.map((c: Json) => c.name)).to.deep.equal(['clone', 'lifecycle']);
    const lifecycle = spec.initContainers[1];
    expect(lifecycle.image).to.equal('registry.example/dev:1');
    expect(lifecycle.command).to.deep.equal([
      '/bin/sh', '-c', LIFECYCLE_SCRIPT, 'den-lifecycle', '/home/dev/lifecycle/src', SUMMARY.onCreateCommand, SUMMARY.postCreateCommand, 'containerUser=no-such-user remoteUser=root', '',
    ]);
    expect(lifecycle.env).to.deep.equal(spec.containers[0].env);
    expect(lifecycle.envFrom).to.deep.equal(spec.containers[0].envFrom);
    expect(lifecycle.volumeMounts).to.deep.equal(spec.containers[0].volumeMounts);
    expect(lifecycle.lifecycle).to.equal(undefined);
  });

  it('wraps the entry\'s command to replay that output and start postStartCommand in the background', () => {
    expect(templateOf(first().children).spec.containers[0].command).to.deep.equal(['/bin/sh', '-c', START_SCRIPT, 'den-start', '/home/dev/lifecycle/src', 'echo started >> started.txt', 'sleep', 'infinity']);
  });

  it('is Starting while the pod that predates devcontainer.json is replaced, then Running', () => {
    const out = first();
    const status = out.status as WorkspaceStatus;
    expect(status.phase).to.equal('Starting');
    expect(condition(status, 'Ready')).to.include({ status: 'False', reason: 'ApplyingDevcontainer' });
    const digest = templateOf(out.children).metadata.annotations['den.dev/devcontainer-applied'];
    expect(digest).to.match(/^[0-9a-f]{16}$/);
    const ran = { terminated: { exitCode: 0, reason: 'Completed', message: 'ok\nremoteUser "root": the workspace runs as root (uid 0). postCreateCommand ran.' } };
    const again = sync({ parent: workspace({ source: SOURCE, env: [{ name: 'GREETING', value: 'mine' }] }), ...created, catalog: [workspaceImage(), OFFERING], pods: [clonedPod(report, { 'den.dev/devcontainer-applied': digest }, ran)], status });
    expect((again.status as WorkspaceStatus).phase).to.equal('Running');
    expect(condition(again.status as WorkspaceStatus, 'Lifecycle')).to.include({ status: 'True', reason: 'Ran', message: 'remoteUser "root": the workspace runs as root (uid 0). postCreateCommand ran.' });
  });

  it('reports a failed command as the Lifecycle condition and one Warning Event, and stays Running', () => {
    const failed = { terminated: { exitCode: 0, reason: 'Completed', message: 'failed\npostCreateCommand failed (exit 3): about to fail. Its output is in ~/.den/logs/postCreateCommand.log and the workspace log; the workspace runs anyway.' } };
    const opts = { parent: workspace({ source: SOURCE }), ...created, catalog: [workspaceImage(), OFFERING], pods: [clonedPod(report, {}, failed)] };
    const probe = sync(opts);
    const stamped = { ...opts, pods: [clonedPod(report, { 'den.dev/devcontainer-applied': templateOf(probe.children).metadata.annotations['den.dev/devcontainer-applied'] }, failed)] };
    const out = sync(stamped);
    const status = out.status as WorkspaceStatus;
    expect(status.phase).to.equal('Running');
    expect(condition(status, 'Lifecycle')).to.include({ status: 'False', reason: 'CommandFailed' });
    expect(condition(status, 'Lifecycle')!.message).to.match(/^postCreateCommand failed \(exit 3\): about to fail\./);
    expect(out.events!.filter((e) => e.type === 'Warning')).to.deep.equal([{ type: 'Warning', reason: 'LifecycleCommandFailed', message: condition(status, 'Lifecycle')!.message, annotations: { 'den.dev/kind': 'lifecycle' } }]);
    expect(sync({ ...stamped, status }).events?.filter((e) => e.type === 'Warning') ?? []).to.deep.equal([]);
  });

  it('says in the Devcontainer condition what it applied, the hostRequirements advice and what it did not apply, with why', () => {
    const said = condition(first().status as WorkspaceStatus, 'Devcontainer')!;
    expect(said).to.include({ status: 'True', reason: 'PartlyApplied' });
    expect(said.message).to.include('image registry.example/dev:1: offered by catalog entry "dev-one"');
    expect(said.message).to.include('forwardPorts: 3000 (Web), 8080 are the workspace\'s apps.');
    expect(said.message).to.include('VS Code extensions the repository recommends: dbaeumer.vscode-eslint');
    expect(said.message).to.include('hostRequirements asks for more than this workspace has: cpus 4 (the workspace sets no CPU limit');
    expect(said.message).to.include('storage 32gb (the workspace has 10Gi)');
    expect(said.message).to.include('Not applied: remoteEnv.PATH (it uses a ${...} variable');
    expect(said.message).to.include('build (Den builds no images');
  });

  it('keeps status.devcontainer while stopped, and applies nothing of a file that could not be read', () => {
    const status = first().status as WorkspaceStatus;
    const stopped = sync({ parent: workspace({ source: SOURCE, running: false }), service: observedService(), statefulSet: observedStatefulSet(0), status });
    expect((stopped.status as WorkspaceStatus).devcontainer).to.deep.equal(SUMMARY);
    const broken = { message: 'Cloned.', devcontainer: { file: 'lifecycle/.devcontainer.json', problem: 'it is not a JSON object' } };
    const out = sync({ parent: workspace({ source: SOURCE }), ...created, pods: [clonedPod(broken)] });
    expect(condition(out.status as WorkspaceStatus, 'Devcontainer')).to.include({ status: 'False', reason: 'NotApplied', message: '~/lifecycle/.devcontainer.json: it is not a JSON object; Den applies none of it.' });
    const spec = templateOf(out.children).spec;
    expect(spec.initContainers.map((c: Json) => c.name)).to.deep.equal(['clone']);
    expect(spec.containers[0].command).to.deep.equal(['sleep', 'infinity']);
    expect((out.status as WorkspaceStatus).phase).to.equal('Running');
  });
});
