import { expect } from 'chai';
import { homeClaimName } from '../../../kube/group.js';
import { STOP_SCRIPT } from '../../../hooks/workspace/children/stop.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import {
  IMAGE_REF,
  NAME,
  NAMESPACE,
  input,
  observedService,
  observedStatefulSet,
  workspace,
  workspaceImage,
} from './inputs.js';

type Json = Record<string, any>;

function render(spec: Json = {}, imageSpec: Json = {}): { service: Json; statefulSet: Json; pod: Json; container: Json } {
  const { children } = syncWorkspace(input({ parent: workspace(spec), image: workspaceImage(imageSpec) }));
  const service = children.find((c) => c.kind === 'Service') as Json;
  const statefulSet = children.find((c) => c.kind === 'StatefulSet') as Json;
  const pod = statefulSet.spec.template.spec;
  return { service, statefulSet, pod, container: pod.containers[0] };
}

const ref = (c: KubeObject) => `${c.apiVersion} ${c.kind} ${c.metadata?.namespace}/${c.metadata?.name}`;

const GIT_CONFIG = [
  { name: 'GIT_CONFIG_COUNT', value: '2' },
  { name: 'GIT_CONFIG_KEY_0', value: 'credential.helper' },
  { name: 'GIT_CONFIG_VALUE_0', value: '!f() { if [ "$1" = get ]; then git credential-store --file=/var/run/secrets/den.dev/git/credentials get; fi; }; f' },
  { name: 'GIT_CONFIG_KEY_1', value: 'core.sshCommand' },
  {
    name: 'GIT_CONFIG_VALUE_1',
    value:
      'ssh -o IdentityFile=~/.ssh/id_rsa -o IdentityFile=~/.ssh/id_ecdsa -o IdentityFile=~/.ssh/id_ecdsa_sk -o IdentityFile=~/.ssh/id_ed25519 -o IdentityFile=~/.ssh/id_ed25519_sk' +
      ' -o IdentityFile=/var/run/secrets/den.dev/git/ssh-key.%h -o IdentityFile=/var/run/secrets/den.dev/git/ssh-key.%h_%p' +
      " -o 'UserKnownHostsFile=~/.ssh/known_hosts ~/.ssh/known_hosts2 /var/run/secrets/den.dev/git/ssh-known-host.%h /var/run/secrets/den.dev/git/ssh-known-host.%h_%p'",
  },
];
const PERSONAL_ENV = { secretRef: { name: 'den-personal-env', optional: true } };
const GIT_VOLUME = { name: 'den-git-credentials', secret: { secretName: 'den-git-credentials', optional: true, defaultMode: 0o400 } };
const GIT_MOUNT = { name: 'den-git-credentials', mountPath: '/var/run/secrets/den.dev/git', readOnly: true };

describe('syncWorkspace children (SPEC 1.3)', () => {
  it('renders the headless Service first, then the StatefulSet, both named after the workspace in its namespace', () => {
    const { children } = syncWorkspace(input());
    expect(children.map(ref)).to.deep.equal([
      `v1 Service ${NAMESPACE}/${NAME}`,
      `apps/v1 StatefulSet ${NAMESPACE}/${NAME}`,
    ]);
  });

  it('makes the Service headless, selecting the pod label and publishing no port', () => {
    const { service } = render();
    expect(service.spec).to.deep.equal({ clusterIP: 'None', selector: { 'den.dev/workspace': NAME } });
  });

  it('labels both children with the workspace and the manager and leaves ownerReferences to the loop', () => {
    const { service, statefulSet } = render();
    for (const child of [service, statefulSet]) {
      expect(child.metadata.labels).to.deep.equal({ 'den.dev/workspace': NAME, 'app.kubernetes.io/managed-by': 'den-manager' });
      expect(child.metadata).not.to.have.property('ownerReferences');
    }
  });

  it('governs the StatefulSet by the Service and selects the pod by its den.dev/workspace label', () => {
    const { statefulSet } = render();
    expect(statefulSet.spec.serviceName).to.equal(NAME);
    expect(statefulSet.spec.selector).to.deep.equal({ matchLabels: { 'den.dev/workspace': NAME } });
    expect(statefulSet.spec.template.metadata.labels).to.include({ 'den.dev/workspace': NAME });
  });

  for (const [running, replicas] of [[true, 1], [false, 0], [undefined, 1]] as const) {
    it(`runs ${replicas} replica(s) when spec.running is ${String(running)}`, () => {
      const { statefulSet } = render({ running });
      expect(statefulSet.spec.replicas).to.equal(replicas);
    });
  }

  it('manages the pod in parallel so a fixed image replaces a pod stuck in ImagePullBackOff', () => {
    expect(render().statefulSet.spec.podManagementPolicy).to.equal('Parallel');
  });

  it('claims the home volume through a volumeClaimTemplate that yields PVC home-<name>-0 of spec.storage', () => {
    const { statefulSet, container } = render({ storage: '25Gi' });
    const [template, ...others] = statefulSet.spec.volumeClaimTemplates;
    expect(others).to.deep.equal([]);
    expect(template).to.deep.equal({
      metadata: { name: 'home', labels: { 'den.dev/workspace': NAME } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '25Gi' } } },
    });
    // The StatefulSet controller names the claim <template>-<statefulset>-<ordinal>.
    expect(`${template.metadata.name}-${statefulSet.metadata.name}-0`).to.equal(homeClaimName(NAME));
    expect(container.volumeMounts[0]).to.deep.equal({ name: 'home', mountPath: '/home/dev' });
  });

  it('accepts spec.storage written as a bare integer of bytes', () => {
    const { statefulSet } = render({ storage: 10737418240 });
    expect(statefulSet.spec.volumeClaimTemplates[0].spec.resources.requests.storage).to.equal('10737418240');
  });

  it('sets no PVC retention policy and never returns a PersistentVolumeClaim', () => {
    for (const running of [true, false]) {
      const { children } = syncWorkspace(input({ parent: workspace({ running }) }));
      expect(children.map((c) => c.kind)).not.to.include('PersistentVolumeClaim');
      const statefulSet = children.find((c) => c.kind === 'StatefulSet') as Json;
      expect(statefulSet.spec).not.to.have.property('persistentVolumeClaimRetentionPolicy');
    }
  });

  it('runs the pod as ServiceAccount workspace with its token mounted and without Service links', () => {
    const { pod } = render();
    expect(pod.serviceAccountName).to.equal('workspace');
    expect(pod.automountServiceAccountToken).to.equal(true);
    expect(pod.enableServiceLinks).to.equal(false);
  });

  it("runs one container named workspace with the image's reference, pull policy, command and home as working directory", () => {
    const { pod, container } = render({}, {
      imagePullPolicy: 'Always',
      command: ['/usr/bin/tini', '--', 'sleep', 'infinity'],
      homePath: '/workspace',
      shell: '/bin/zsh',
    });
    expect(pod.containers).to.have.length(1);
    expect(container).to.include({ name: 'workspace', image: IMAGE_REF, imagePullPolicy: 'Always', workingDir: '/workspace' });
    expect(container.command).to.deep.equal(['/usr/bin/tini', '--', 'sleep', 'infinity']);
    expect(container.volumeMounts[0]).to.deep.equal({ name: 'home', mountPath: '/workspace' });
    expect(container.env.slice(0, 2)).to.deep.equal([
      { name: 'HOME', value: '/workspace' },
      { name: 'SHELL', value: '/bin/zsh' },
    ]);
  });

  it('keeps the command as PID 1 and stops promptly: a preStop step signals every process, a grace period of a few seconds', () => {
    const { pod, container } = render();
    expect(container.command).to.deep.equal(['sleep', 'infinity']);
    expect(container.lifecycle).to.deep.equal({ preStop: { exec: { command: ['/bin/sh', '-c', STOP_SCRIPT] } } });
    expect(pod.terminationGracePeriodSeconds).to.equal(3);
  });

  describe('fills in the SPEC 2.2 defaults when the WorkspaceImage leaves a field out', () => {
    const { pod, container } = render();
    const cases: [string, () => unknown, unknown][] = [
      ['imagePullPolicy IfNotPresent', () => container.imagePullPolicy, 'IfNotPresent'],
      ['command [sleep, infinity]', () => container.command, ['sleep', 'infinity']],
      ['homePath /home/dev as working directory', () => container.workingDir, '/home/dev'],
      ['homePath /home/dev as home mount', () => container.volumeMounts[0].mountPath, '/home/dev'],
      ['runAsUser 1000', () => pod.securityContext.runAsUser, 1000],
      ['fsGroup 1000', () => pod.securityContext.fsGroup, 1000],
      ['shell /bin/bash', () => container.env.find((e: Json) => e.name === 'SHELL').value, '/bin/bash'],
    ];
    for (const [what, actual, expected] of cases) {
      it(what, () => expect(actual()).to.deep.equal(expected));
    }
  });

  it("takes runAsUser and fsGroup from the image's runAsUser and forbids privilege escalation", () => {
    const { pod, container } = render({}, { runAsUser: 4242 });
    expect(pod.securityContext).to.deep.equal({ runAsUser: 4242, fsGroup: 4242, runAsNonRoot: true });
    expect(container.securityContext).to.deep.equal({ allowPrivilegeEscalation: false });
  });

  it('drops runAsNonRoot for an image that allows root, so uid 0 can run', () => {
    const { pod, container } = render({}, { allowRoot: true, runAsUser: 0 });
    expect(pod.securityContext).to.deep.equal({ runAsUser: 0, fsGroup: 0 });
    expect(container.securityContext).to.deep.equal({ allowPrivilegeEscalation: false });
  });

  it("copies env after HOME, SHELL and git's credential helper configuration, and lets the workspace override HOME and GIT_CONFIG_COUNT", () => {
    const env = [
      { name: 'EDITOR', value: 'vim' },
      { name: 'HOME', value: '/home/dev/alt' },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'GIT_CONFIG_COUNT', value: '0' },
    ];
    const { container } = render({ env });
    expect(container.env).to.deep.equal([{ name: 'SHELL', value: '/bin/bash' }, ...GIT_CONFIG.slice(1), ...env]);
  });

  it('copies envFrom, resources, volumes and mounts verbatim, quantities and renamed fields included', () => {
    const envFrom = [{ configMapRef: { name: 'tooling' } }, { prefix: 'DB_', secretRef: { name: 'db', optional: true } }];
    const resources = { requests: { cpu: '500m', memory: '2Gi' }, limits: { cpu: 2, memory: '2Gi', 'nvidia.com/gpu': 1 } };
    const volumes = [
      { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
      {
        name: 'podinfo',
        downwardAPI: { items: [{ path: 'cpu', resourceFieldRef: { containerName: 'workspace', resource: 'limits.cpu', divisor: '1m' } }] },
      },
      { name: 'datasets', persistentVolumeClaim: { claimName: 'datasets', readOnly: true } },
      { name: 'cache', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } } } },
    ];
    const volumeMounts = [
      { name: 'scratch', mountPath: '/scratch' },
      { name: 'datasets', mountPath: '/data', readOnly: true, recursiveReadOnly: 'IfPossible' },
    ];
    const { pod, container } = render({ envFrom, resources, volumes, volumeMounts });
    expect(container.envFrom).to.deep.equal([PERSONAL_ENV, ...envFrom]);
    // Quantities as the API server answers them: always strings.
    expect(container.resources).to.deep.equal({
      requests: { cpu: '500m', memory: '2Gi' },
      limits: { cpu: '2', memory: '2Gi', 'nvidia.com/gpu': '1' },
    });
    expect(pod.volumes).to.deep.equal([GIT_VOLUME, ...volumes]);
    expect(container.volumeMounts).to.deep.equal([{ name: 'home', mountPath: '/home/dev' }, GIT_MOUNT, ...volumeMounts]);
  });

  it("leaves resources out when the workspace names none, and gives every workspace the person's variables (first, so its own win) and git credentials, read-only, both optional", () => {
    const { pod, container } = render();
    expect(container).not.to.have.any.keys('resources');
    expect(container.envFrom).to.deep.equal([PERSONAL_ENV]);
    expect(container.env).to.deep.equal([{ name: 'HOME', value: '/home/dev' }, { name: 'SHELL', value: '/bin/bash' }, ...GIT_CONFIG]);
    expect(pod.volumes).to.deep.equal([GIT_VOLUME]);
    expect(container.volumeMounts).to.deep.equal([{ name: 'home', mountPath: '/home/dev' }, GIT_MOUNT]);
    expect(pod).not.to.have.any.keys('nodeSelector', 'tolerations', 'affinity', 'imagePullSecrets');
  });

  describe("takes nodeSelector and tolerations from the Workspace when set, else from the image's placement, never merged", () => {
    const imageSelector = { 'node.kubernetes.io/instance-type': 'm5.2xlarge', 'topology.kubernetes.io/zone': 'eu-west-1a' };
    const imageTolerations = [{ key: 'dedicated', operator: 'Equal', value: 'workspaces', effect: 'NoSchedule' }];
    const ownSelector = { 'den.dev/pool': 'gpu' };
    const ownTolerations = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];
    const placement = { nodeSelector: imageSelector, tolerations: imageTolerations };
    const cases: [string, Json, Json, Json | undefined, Json | undefined][] = [
      ['both from the image', {}, { placement }, imageSelector, imageTolerations],
      ['both from the workspace', { nodeSelector: ownSelector, tolerations: ownTolerations }, { placement }, ownSelector, ownTolerations],
      ['nodeSelector from the workspace, tolerations from the image', { nodeSelector: ownSelector }, { placement }, ownSelector, imageTolerations],
      ['tolerations from the workspace, nodeSelector from the image', { tolerations: ownTolerations }, { placement }, imageSelector, ownTolerations],
      ['an explicitly empty workspace list still overrides', { tolerations: [] }, { placement }, imageSelector, []],
      ['the workspace alone when the image has no placement', { nodeSelector: ownSelector }, {}, ownSelector, undefined],
      ['none at all', {}, {}, undefined, undefined],
    ];
    for (const [what, spec, imageSpec, selector, tolerations] of cases) {
      it(what, () => {
        const { pod } = render(spec, imageSpec);
        expect(pod.nodeSelector).to.deep.equal(selector);
        expect(pod.tolerations).to.deep.equal(tolerations);
      });
    }
  });

  it('copies the affinity into the pod spec', () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
        },
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 50, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { team: 'ml' } }, matchLabelKeys: ['den.dev/workspace'] } },
        ],
      },
    };
    expect(render({ affinity }).pod.affinity).to.deep.equal(affinity);
  });

  it("pulls with the image's pull Secret", () => {
    expect(render({}, { imagePullSecretRef: { name: 'ecr-pull' } }).pod.imagePullSecrets).to.deep.equal([{ name: 'ecr-pull' }]);
  });

  describe('writes the observability flags as the pod annotation den.dev/logs-enabled and label den.dev/metrics-enabled', () => {
    const cases: [string, Json | undefined, string, string][] = [
      ['both true by default', undefined, 'true', 'true'],
      ['both true when the block is empty', {}, 'true', 'true'],
      ['logs off', { logsEnabled: false, metricsEnabled: true }, 'false', 'true'],
      ['metrics off', { logsEnabled: true, metricsEnabled: false }, 'true', 'false'],
      ['both off', { logsEnabled: false, metricsEnabled: false }, 'false', 'false'],
    ];
    for (const [what, observability, logs, metrics] of cases) {
      it(what, () => {
        const { statefulSet } = render({ observability });
        expect(statefulSet.spec.template.metadata.annotations).to.deep.equal({ 'den.dev/logs-enabled': logs });
        expect(statefulSet.spec.template.metadata.labels).to.deep.equal({
          'den.dev/workspace': NAME,
          'den.dev/metrics-enabled': metrics,
        });
      });
    }
  });

  it('never modifies the Workspace, its image or the observed objects it is given', () => {
    const given = input({
      parent: workspace({
        env: [{ name: 'EDITOR', value: 'vim' }],
        volumes: [{ name: 'scratch', emptyDir: {} }],
        volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        tolerations: [{ key: 'a', operator: 'Exists' }],
        resources: { limits: { cpu: '1' } },
      }, { status: { phase: 'Starting', conditions: [], lastActivityTime: '2026-11-22T09:30:00Z' } }),
      image: workspaceImage({ placement: { nodeSelector: { a: 'b' } }, command: ['sleep', 'infinity'] }),
      service: observedService(),
      statefulSet: observedStatefulSet(),
    });
    const before = JSON.stringify(given);
    deepFreeze(given);
    syncWorkspace(given);
    expect(JSON.stringify(given)).to.equal(before);
  });

  it('answers the same children in the same order for the same input', () => {
    const spec = { env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }], volumes: [{ name: 'x', emptyDir: {} }], volumeMounts: [{ name: 'x', mountPath: '/x' }] };
    const first = syncWorkspace(input({ parent: workspace(spec) }));
    const second = syncWorkspace(input({ parent: workspace(spec) }));
    expect(JSON.stringify(second)).to.equal(JSON.stringify(first));
  });
});

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
