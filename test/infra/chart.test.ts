import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROLES } from '../../cli/roles.js';
import { readSettings } from '../../process/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import { readInstallSettings } from '../../infra/install/settings.js';

type Obj = Record<string, any>;

/** The chart as `npm run synth` renders it with these DEN_* variables. */
function render(env: Record<string, string> = {}): Obj[] {
  return renderInstall(readInstallSettings(env));
}

function find(objects: Obj[], kind: string, name: string): Obj {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

function container(objects: Obj[], deployment: string): Obj {
  return find(objects, 'Deployment', deployment).spec.template.spec.containers[0];
}

function envOf(c: Obj): Record<string, string> {
  return Object.fromEntries((c.env as { name: string; value: string }[]).map((e) => [e.name, e.value]));
}

const PROCESSES = ['den-manager', 'den-server', 'den-gateway'] as const;

describe('install chart', () => {
  const objects = render();

  it('gives every object an explicit name and puts namespaced ones in svc-system', () => {
    const clusterScoped = ['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
    for (const o of objects) {
      expect(o.metadata.name, o.kind).to.be.a('string').and.not.equal('');
      if (clusterScoped.includes(o.kind)) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).to.equal(undefined);
      else expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).to.equal('svc-system');
    }
  });

  it('creates the namespace first, then the CRDs, and the webhooks last', () => {
    const kinds = objects.map((o) => o.kind);
    expect(kinds[0]).to.equal('Namespace');
    expect(kinds.slice(1, 5)).to.deep.equal(Array(4).fill('CustomResourceDefinition'));
    expect(kinds.slice(-2)).to.deep.equal(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    expect(find(objects, 'Namespace', 'svc-system').metadata.labels['pod-security.kubernetes.io/enforce']).to.equal('restricted');
  });

  describe('Deployments', () => {
    for (const name of PROCESSES) {
      it(`${name} runs non-root on a read-only root filesystem with no privilege escalation, no capabilities and RuntimeDefault seccomp`, () => {
        const pod = find(objects, 'Deployment', name).spec.template.spec;
        expect(pod.serviceAccountName).to.equal(name);
        expect(pod.automountServiceAccountToken).to.equal(true);
        expect(pod.securityContext).to.deep.equal({
          runAsNonRoot: true,
          runAsUser: 65532,
          runAsGroup: 65532,
          fsGroup: 65532,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(pod.containers).to.have.length(1);
        expect(pod.containers[0].securityContext).to.deep.equal({
          runAsNonRoot: true,
          runAsUser: 65532,
          runAsGroup: 65532,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(pod.containers[0].volumeMounts).to.deep.include({ name: 'tmp', mountPath: '/tmp' });
        expect(pod.volumes).to.deep.include({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } });
      });

      it(`${name} has requests and limits and probes /healthz and /readyz`, () => {
        const c = container(objects, name);
        expect(Object.keys(c.resources.requests)).to.have.members(['cpu', 'memory']);
        expect(Object.keys(c.resources.limits)).to.have.members(['cpu', 'memory']);
        expect(c.livenessProbe.httpGet.path).to.equal('/healthz');
        expect(c.readinessProbe.httpGet.path).to.equal('/readyz');
        const portNames = (c.ports as { name: string }[]).map((p) => p.name);
        expect(portNames).to.include(c.livenessProbe.httpGet.port);
        expect(portNames).to.include(c.readinessProbe.httpGet.port);
      });
    }

    it('runs `den manager`, `den server` and `den gateway` from the default image', () => {
      for (const name of PROCESSES) {
        const c = container(objects, name);
        expect(c.image).to.equal('ghcr.io/den-dev/den:0.1.0');
        expect(c.args).to.deep.equal([name.slice('den-'.length)]);
      }
    });

    it('takes the image from DEN_IMAGE settings and labels pods with its tag', () => {
      const custom = render({ DEN_IMAGE: 'registry.example.com:5000/team/den:1.2.3' });
      for (const name of PROCESSES) {
        expect(container(custom, name).image).to.equal('registry.example.com:5000/team/den:1.2.3');
        expect(find(custom, 'Deployment', name).spec.template.metadata.labels['app.kubernetes.io/version']).to.equal('1.2.3');
      }
      const digest = render({ DEN_IMAGE: `ghcr.io/den-dev/den@sha256:${'a'.repeat(64)}` });
      expect(find(digest, 'Deployment', 'den-server').metadata.labels).to.not.have.property('app.kubernetes.io/version');
    });

    it("gives the manager the image's pull Secrets for the workspace pods that clone with it, as `den manager` reads them", async () => {
      const custom = renderInstall(readInstallSettings({}, { text: 'image:\n  pullSecrets: [regcred, mirror-2]\n', where: 'den.config.yaml' }));
      const env = envOf(container(custom, 'den-manager'));
      expect(env.DEN_CLONE_IMAGE_PULL_SECRETS).to.equal('regcred,mirror-2');
      const { settings } = await ROLES.manager!();
      expect((readSettings(settings, [], env) as Record<string, unknown>).cloneImagePullSecrets).to.deep.equal(['regcred', 'mirror-2']);
      expect(() => readSettings(settings, [], { ...env, DEN_CLONE_IMAGE_PULL_SECRETS: 'regcred,Bad_Name' })).to.throw("'Bad_Name' is not a Secret name (a lower-case DNS name)");
      expect(envOf(container(objects, 'den-manager'))).to.not.have.property('DEN_CLONE_IMAGE_PULL_SECRETS');
    });

    it('gives each process Node flags and NODE_OPTIONS that the Node of the image accepts', async () => {
      // Node refuses an unknown flag ("bad option") and a flag NODE_OPTIONS may not carry, exit 9.
      for (const name of PROCESSES) {
        const c = container(objects, name);
        const flags = ((c.command as string[] | undefined) ?? []).slice(1, -1);
        const { NODE_OPTIONS } = envOf(c);
        const malloc = Object.fromEntries(Object.entries(envOf(c)).filter(([variable]) => variable.startsWith('MALLOC_')));
        const env = { PATH: process.env.PATH, ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}), ...malloc };
        const { stdout } = await promisify(execFile)(process.execPath, [...flags, '-e', 'process.stdout.write(process.execArgv.filter((a) => a.startsWith("--")).join(" "))'], { env });
        expect(stdout, name).to.equal(flags.join(' '));
      }
      expect(((container(objects, 'den-manager').command as string[]) ?? []).slice(1, -1)).to.not.deep.equal([]);
    });

    it('configures each process with the settings of docs/contracts.md', () => {
      expect(envOf(container(objects, 'den-manager'))).to.deep.equal({
        DEN_NAMESPACE: 'svc-system',
        DEN_HEALTH_LISTEN: ':8081',
        DEN_WEBHOOK_LISTEN: ':9443',
        DEN_WEBHOOK_SERVICE: 'den-manager-webhook',
        DEN_GATEWAY_HOST: 'den.example.com',
        DEN_GPU_RESOURCE: 'nvidia.com/gpu',
        DEN_LEADER_ELECT: 'true',
        DEN_IDLE_STOP: 'false',
        DEN_CLONE_IMAGE: 'ghcr.io/den-dev/den:0.1.0',
        DEN_CLONE_IMAGE_PULL_POLICY: 'IfNotPresent',
        DEN_DORMANT_STOP_DAYS: '0',
        DEN_DORMANT_DELETE_DAYS: '0',
        DEN_DORMANT_DELETE_HOME: 'false',
        NODE_OPTIONS: '--max-old-space-size=80 --max-semi-space-size=2',
        MALLOC_ARENA_MAX: '2',
        MALLOC_MMAP_THRESHOLD_: '131072',
        MALLOC_TRIM_THRESHOLD_: '131072',
      });
      expect(envOf(container(objects, 'den-server'))).to.deep.equal({
        DEN_NAMESPACE: 'svc-system',
        DEN_LISTEN: ':8080',
        DEN_HEALTH_LISTEN: ':8081',
        DEN_BASE_URL: 'https://den.example.com',
        DEN_LOCAL_AUTH: 'true',
        DEN_GPU_RESOURCE: 'nvidia.com/gpu',
        DEN_GATEWAY_PORT: '22',
        MALLOC_ARENA_MAX: '2',
        MALLOC_MMAP_THRESHOLD_: '131072',
        MALLOC_TRIM_THRESHOLD_: '131072',
      });
      expect(envOf(container(objects, 'den-gateway'))).to.deep.equal({
        DEN_NAMESPACE: 'svc-system',
        DEN_LISTEN: ':2222',
        DEN_HEALTH_LISTEN: ':8081',
        DEN_HOST_KEY_FILE: '/etc/den/ssh/ssh_host_ed25519_key',
      });
      const custom = render({ DEN_BASE_URL: 'https://dev.corp.example', DEN_GATEWAY_HOST: 'ssh.corp.example' });
      expect(envOf(container(custom, 'den-server')).DEN_BASE_URL).to.equal('https://dev.corp.example');
      expect(envOf(container(custom, 'den-manager')).DEN_GATEWAY_HOST).to.equal('ssh.corp.example');
    });

    describe('as each role reads them', () => {
      /** The role's port a named container port must be, per the role's own settings. */
      const listeners: Record<string, Record<string, string>> = {
        'den-manager': { https: 'webhookListen', health: 'healthListen' },
        'den-server': { http: 'listen', health: 'healthListen' },
        'den-gateway': { ssh: 'listen', health: 'healthListen' },
      };

      for (const name of PROCESSES) {
        const role = name.slice('den-'.length);
        it(`${name}: \`den ${role}\` accepts its args and variables, every variable is one of its settings, every port one it listens on`, async () => {
          const { settings } = await ROLES[role]!();
          const c = container(objects, name);
          const env = envOf(c);
          const known = Object.values(settings).map((s) => s.env);
          // NODE_OPTIONS and MALLOC_* are Node's and glibc's own (the manager's memory), not settings of the role.
          for (const variable of Object.keys(env).filter((v) => v !== 'NODE_OPTIONS' && !v.startsWith('MALLOC_'))) expect(known, `${name} sets ${variable}`).to.include(variable);
          const read = readSettings(settings, c.args.slice(1), env) as Record<string, unknown>;
          expect(read.namespace).to.equal('svc-system');
          expect(read.kubeconfig, 'in-cluster identity').to.equal('');
          const ports = c.ports as { name: string; containerPort: number }[];
          expect(ports.map((p) => p.name)).to.have.members(Object.keys(listeners[name]!));
          for (const p of ports) {
            const address = read[listeners[name]![p.name]!] as { host: string; port: number };
            expect(address, `${name} port ${p.name}`).to.deep.equal({ host: '0.0.0.0', port: p.containerPort });
          }
        });
      }

      it('probes reach the health listener of each role', () => {
        expect(container(objects, 'den-manager').livenessProbe.httpGet.port).to.equal('health');
        expect(container(objects, 'den-gateway').readinessProbe.httpGet.port).to.equal('health');
        // The server answers /healthz and /readyz on its one HTTP listener.
        expect(container(objects, 'den-server').readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'http', scheme: 'HTTP' });
      });

      it('the gateway reads its host key from inside the mounted Secret', async () => {
        const { settings } = await ROLES.gateway!();
        const c = container(objects, 'den-gateway');
        const read = readSettings(settings, [], envOf(c)) as Record<string, unknown>;
        const mount = (c.volumeMounts as Obj[]).find((m) => m.name === 'host-key')!;
        expect(read.hostKeyFile).to.equal(`${mount.mountPath}/ssh_host_ed25519_key`);
      });
    });

    it('mounts the gateway host key Secret read-only with mode 0400 and refuses to start without it', () => {
      const pod = find(objects, 'Deployment', 'den-gateway').spec.template.spec;
      expect(pod.volumes).to.deep.include({
        name: 'host-key',
        secret: {
          secretName: 'den-gateway-host-key',
          optional: false,
          defaultMode: 0o400,
          items: [{ key: 'ssh_host_ed25519_key', path: 'ssh_host_ed25519_key', mode: 0o400 }],
        },
      });
      expect(pod.containers[0].volumeMounts).to.deep.include({ name: 'host-key', mountPath: '/etc/den/ssh', readOnly: true });
      for (const name of ['den-manager', 'den-server']) {
        const volumes = find(objects, 'Deployment', name).spec.template.spec.volumes as Obj[];
        expect(volumes.some((v) => v.secret), name).to.equal(false);
      }
    });

    it('selects its pods by component labels that match its Service', () => {
      const pairs = [
        ['den-manager', 'den-manager-webhook'],
        ['den-server', 'den-server'],
        ['den-gateway', 'den-gateway'],
      ];
      for (const [deployment, service] of pairs) {
        const d = find(objects, 'Deployment', deployment as string);
        const s = find(objects, 'Service', service as string);
        expect(d.spec.selector.matchLabels).to.deep.equal(s.spec.selector);
        expect(d.spec.template.metadata.labels).to.include(d.spec.selector.matchLabels);
      }
    });
  });

  describe('Services', () => {
    const table: [string, number, string, number][] = [
      ['den-manager-webhook', 443, 'https', 9443],
      ['den-server', 80, 'http', 8080],
      ['den-gateway', 22, 'ssh', 2222],
    ];
    for (const [name, port, portName, containerPort] of table) {
      it(`${name} forwards ${port} to ${containerPort}`, () => {
        const service = find(objects, 'Service', name);
        expect(service.spec.ports).to.deep.equal([{ name: portName, port, targetPort: portName, protocol: 'TCP' }]);
        const deployment = objects.find(
          (o) => o.kind === 'Deployment' && JSON.stringify(o.spec.selector.matchLabels) === JSON.stringify(service.spec.selector),
        );
        const c = deployment?.spec.template.spec.containers[0];
        expect(c.ports).to.deep.include({ name: portName, containerPort, protocol: 'TCP' });
      });
    }

    it('exposes the server and gateway as the settings ask, the webhook only inside the cluster', () => {
      const custom = render({ DEN_SERVER_SERVICE_TYPE: 'LoadBalancer', DEN_GATEWAY_SERVICE_TYPE: 'NodePort' });
      expect(find(custom, 'Service', 'den-server').spec.type).to.equal('LoadBalancer');
      expect(find(custom, 'Service', 'den-gateway').spec.type).to.equal('NodePort');
      expect(find(custom, 'Service', 'den-manager-webhook').spec.type).to.equal('ClusterIP');
      expect(find(objects, 'Service', 'den-gateway').spec.type).to.equal('ClusterIP');
    });
  });

  describe('webhook configurations', () => {
    const mutating = find(objects, 'MutatingWebhookConfiguration', 'den-webhooks');
    const validating = find(objects, 'ValidatingWebhookConfiguration', 'den-webhooks');
    const all: Obj[] = [...mutating.webhooks, ...validating.webhooks];

    it('register the five webhooks at their paths on den-manager-webhook', () => {
      const byName = Object.fromEntries(all.map((w) => [w.name, w.clientConfig]));
      const service = (path: string) => ({ service: { namespace: 'svc-system', name: 'den-manager-webhook', path, port: 443 } });
      expect(mutating.webhooks.map((w: Obj) => w.name)).to.deep.equal(['mworkspace.den.dev']);
      expect(validating.webhooks.map((w: Obj) => w.name)).to.deep.equal(['vworkspace.den.dev', 'vuserspace.den.dev', 'vimageregistry.den.dev', 'vworkspaceimage.den.dev']);
      expect(byName['mworkspace.den.dev']).to.deep.equal(service('/mutate-workspace'));
      expect(byName['vworkspace.den.dev']).to.deep.equal(service('/validate-workspace'));
      expect(byName['vuserspace.den.dev']).to.deep.equal(service('/validate-userspace'));
      expect(byName['vimageregistry.den.dev']).to.deep.equal(service('/validate-imageregistry'));
      expect(byName['vworkspaceimage.den.dev']).to.deep.equal(service('/validate-workspaceimage'));
    });

    it('mutate Workspace on CREATE, validate it on CREATE and UPDATE, validate UserSpace on UPDATE, ImageRegistry and WorkspaceImage on CREATE and UPDATE', () => {
      const rules = Object.fromEntries(all.map((w) => [w.name, w.rules]));
      const rule = (resources: string[], operations: string[], scope: string) => [
        { apiGroups: ['den.dev'], apiVersions: ['v1alpha1'], resources, operations, scope },
      ];
      expect(rules['mworkspace.den.dev']).to.deep.equal(rule(['workspaces'], ['CREATE'], 'Namespaced'));
      expect(rules['vworkspace.den.dev']).to.deep.equal(rule(['workspaces'], ['CREATE', 'UPDATE'], 'Namespaced'));
      expect(rules['vuserspace.den.dev']).to.deep.equal(rule(['userspaces'], ['UPDATE'], 'Cluster'));
      expect(rules['vimageregistry.den.dev']).to.deep.equal(rule(['imageregistries'], ['CREATE', 'UPDATE'], 'Cluster'));
      expect(rules['vworkspaceimage.den.dev']).to.deep.equal(rule(['workspaceimages'], ['CREATE', 'UPDATE'], 'Cluster'));
    });

    it('exclude svc-system and kube-system and fail closed', () => {
      for (const w of all) {
        expect(w.namespaceSelector, w.name).to.deep.equal({
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['svc-system', 'kube-system'] }],
        });
        expect(w, w.name).to.include({ failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 10 });
        expect(w.admissionReviewVersions).to.deep.equal(['v1']);
      }
    });

    it('leave caBundle for the manager to patch', () => {
      for (const w of all) expect(w.clientConfig, w.name).to.not.have.property('caBundle');
    });
  });
});
