// The chart as a configuration file shapes it: the example documents every default, each key
// changes exactly the objects it should, the defaults are highly available, and every object
// carries the label upgrades prune by.
import { expect } from 'chai';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS, readInstallSettings, settingsOfConfig } from '../../infra/install/settings.js';

type Obj = Record<string, any>;
const ROOT = resolve(import.meta.dirname, '../..');
const CONFIGS = join(import.meta.dirname, 'configs');
const SNAPSHOTS = join(import.meta.dirname, '__snapshots__');

function render(yaml: string): Obj[] {
  return renderInstall(readInstallSettings({}, { text: yaml, where: 'test.yaml' }));
}

const id = (o: Obj) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** Objects added, removed or changed between two renderings, by kind and name. */
function changed(before: Obj[], after: Obj[]): string[] {
  const was = new Map(before.map((o) => [id(o), JSON.stringify(o)]));
  const now = new Map(after.map((o) => [id(o), JSON.stringify(o)]));
  const keys = new Set([...was.keys(), ...now.keys()]);
  return [...keys].filter((k) => was.get(k) !== now.get(k)).sort();
}

function find(objects: Obj[], kind: string, name: string): Obj {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

/** Every leaf path of a settings object: `server.ingress.host`. */
function leaves(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (path && Object.keys(value).length === 0)) return [path];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
}

describe('install configuration file', () => {
  const defaults = renderInstall(DEFAULT_SETTINGS);

  it('den.config.example.yaml names every key with its default', async () => {
    const text = await readFile(join(ROOT, 'den.config.example.yaml'), 'utf8');
    expect(settingsOfConfig(text, 'den.config.example.yaml')).to.deep.equal(DEFAULT_SETTINGS);
    const written = leaves((await import('yaml')).parse(text));
    expect(written).to.have.members(leaves(DEFAULT_SETTINGS));
  });

  describe('each key changes exactly the objects it should', () => {
    const D = 'Deployment svc-system/';
    const table: [string, string[]][] = [
      ['image: { tag: 2.0.0 }', [`${D}den-gateway`, `${D}den-manager`, `${D}den-server`, 'PodDisruptionBudget svc-system/den-gateway', 'PodDisruptionBudget svc-system/den-manager', 'PodDisruptionBudget svc-system/den-server', 'Service svc-system/den-gateway', 'Service svc-system/den-manager-webhook', 'Service svc-system/den-server']],
      ['image: { pullSecrets: [regcred] }', [`${D}den-gateway`, `${D}den-manager`, `${D}den-server`]],
      ['image: { pullPolicy: Always }', [`${D}den-gateway`, `${D}den-manager`, `${D}den-server`]],
      ['baseUrl: https://dev.corp.example', [`${D}den-server`]],
      ['gatewayHost: ssh.corp.example', [`${D}den-manager`]],
      ['gpuResource: amd.com/gpu', [`${D}den-manager`, `${D}den-server`]],
      ['localLogin: false', [`${D}den-server`]],
      ['idleStop: { enabled: true }', [`${D}den-manager`]],
      ['metrics: { scrapeAnnotations: false }', [`${D}den-gateway`, `${D}den-manager`, `${D}den-server`]],
      ['metrics: { scrapeAnnotations: false, serviceMonitor: { enabled: true } }', [`${D}den-gateway`, `${D}den-manager`, `${D}den-server`, 'Service svc-system/den-metrics', 'ServiceMonitor svc-system/den']],
      ['networkPolicy: { enabled: false }', ['NetworkPolicy svc-system/den-default-deny', 'NetworkPolicy svc-system/den-gateway', 'NetworkPolicy svc-system/den-manager', 'NetworkPolicy svc-system/den-server']],
      ['networkPolicy: { apiServerPorts: [8443] }', ['NetworkPolicy svc-system/den-gateway', 'NetworkPolicy svc-system/den-manager', 'NetworkPolicy svc-system/den-server']],
      ['manager: { replicas: 3 }', [`${D}den-manager`]],
      ['manager: { replicas: 1 }', [`${D}den-manager`, 'PodDisruptionBudget svc-system/den-manager']],
      ['manager: { serviceAccount: { annotations: { eks.amazonaws.com/role-arn: arn } } }', ['ServiceAccount svc-system/den-manager']],
      ['manager: { registryCredentialsSecret: den-aws }', [`${D}den-manager`]],
      ['manager: { resources: { limits: { memory: 1Gi } } }', [`${D}den-manager`]],
      ['server: { resources: { limits: { memory: 1Gi } } }', [`${D}den-server`]],
      ['server: { nodeSelector: { pool: platform } }', [`${D}den-server`]],
      ['gateway: { tolerations: [{ key: platform, operator: Exists }] }', [`${D}den-gateway`]],
      ['gateway: { affinity: { nodeAffinity: {} } }', [`${D}den-gateway`]],
      ['gateway: { labels: { team: platform } }', [`${D}den-gateway`]],
      ['gateway: { annotations: { owner: platform } }', [`${D}den-gateway`]],
      ['server: { service: { type: LoadBalancer, annotations: { a: b } } }', ['Service svc-system/den-server']],
      ['server: { ingress: { enabled: true } }', ['Ingress svc-system/den-server']],
      ['server: { identityProviders: { secretName: den-idp } }', [`${D}den-server`]],
      ['server: { trustedProxies: [10.0.0.0/8] }', [`${D}den-server`]],
      ['server: { apps: { domain: den-apps.example } }', [`${D}den-server`]],
      ['server: { ingress: { enabled: true }, apps: { domain: den-apps.example } }', [`${D}den-server`, 'Ingress svc-system/den-server', 'Ingress svc-system/den-server-apps']],
      // The server names the port in the ssh command and VS Code link its pages offer.
      ['gateway: { service: { port: 2022 } }', [`${D}den-server`, 'Service svc-system/den-gateway']],
      ['gateway: { service: { type: LoadBalancer, externalTrafficPolicy: Local } }', ['Service svc-system/den-gateway']],
      ['gateway: { maxStartupsPerSource: 10 }', [`${D}den-gateway`]],
      ['gateway: { proxyProtocol: { trustedProxies: [10.0.0.0/8] } }', [`${D}den-gateway`]],
    ];
    for (const [yaml, objects] of table) {
      it(`${yaml} → ${objects.length === 1 ? objects[0] : `${objects.length} objects`}`, () => {
        expect(changed(defaults, render(yaml))).to.deep.equal([...objects].sort());
      });
    }
  });

  describe('what the keys render', () => {
    it('the defaults are highly available: two replicas, a PodDisruptionBudget and a spread per process, surge-only rollouts', () => {
      for (const name of ['den-manager', 'den-server', 'den-gateway']) {
        const d = find(defaults, 'Deployment', name);
        expect(d.spec.replicas, name).to.equal(2);
        expect(d.spec.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
        const pdb = find(defaults, 'PodDisruptionBudget', name);
        expect(pdb.spec).to.deep.equal({ maxUnavailable: 1, selector: { matchLabels: d.spec.selector.matchLabels } });
        const spread = d.spec.template.spec.topologySpreadConstraints as Obj[];
        expect(spread.map((c) => c.topologyKey)).to.deep.equal(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
        for (const c of spread) expect(c).to.deep.include({ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: d.spec.selector.matchLabels } });
      }
      const env = (name: string) => Object.fromEntries((find(defaults, 'Deployment', name).spec.template.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
      expect(env('den-manager').DEN_LEADER_ELECT).to.equal('true');
      expect(env('den-manager').DEN_IDLE_STOP, 'idle stop is opt-in').to.equal('false');
    });

    it('the manager\'s V8 old generation is five thirty-seconds of its memory limit, at least 64 MiB, its semi-spaces 2 MiB, V8 optimizes for size, and glibc keeps two malloc arenas', () => {
      const nodeOptions = (objects: Obj[]) => (find(objects, 'Deployment', 'den-manager').spec.template.spec.containers[0].env as Obj[]).find((e) => e.name === 'NODE_OPTIONS')?.value;
      expect(nodeOptions(defaults)).to.equal('--max-old-space-size=80 --max-semi-space-size=2');
      expect(nodeOptions(render('manager: { resources: { limits: { memory: 2Gi } } }'))).to.equal('--max-old-space-size=320 --max-semi-space-size=2');
      expect(nodeOptions(render('manager: { resources: { limits: { memory: 1G } } }'))).to.equal('--max-old-space-size=148 --max-semi-space-size=2');
      expect(nodeOptions(render('manager: { resources: { limits: { memory: 768Mi } } }'))).to.equal('--max-old-space-size=120 --max-semi-space-size=2');
      expect(nodeOptions(render('manager: { resources: { limits: { memory: 128Mi } } }'))).to.equal('--max-old-space-size=64 --max-semi-space-size=2');
      const arenas = (objects: Obj[], name: string) => (find(objects, 'Deployment', name).spec.template.spec.containers[0].env as Obj[]).find((e) => e.name === 'MALLOC_ARENA_MAX')?.value;
      expect(arenas(defaults, 'den-manager')).to.equal('2');
      expect(arenas(defaults, 'den-server')).to.equal('2');
      expect(arenas(defaults, 'den-gateway')).to.equal(undefined);
      // Node refuses --optimize-for-size in NODE_OPTIONS: it goes on the command line, before the image's entry point.
      expect(find(defaults, 'Deployment', 'den-manager').spec.template.spec.containers[0].command, 'den-manager').to.deep.equal(['node', '--optimize-for-size', '--no-maglev', '--no-opt', 'build/cli/den.js']);
      for (const name of ['den-server', 'den-gateway']) expect(nodeOptions([find(defaults, 'Deployment', name)].map((d) => ({ ...d, metadata: { ...d.metadata, name: 'den-manager' } })))).to.equal(undefined);
    });

    it('the gateway\'s V8 first collects its old generation at 64 MiB, at most a quarter of its memory limit, a flag on its command line', () => {
      const command = (objects: Obj[]) => find(objects, 'Deployment', 'den-gateway').spec.template.spec.containers[0].command;
      expect(command(defaults)).to.deep.equal(['node', '--initial-old-space-size=64', 'build/cli/den.js']);
      expect(command(render('gateway: { resources: { limits: { memory: 2Gi } } }'))).to.deep.equal(['node', '--initial-old-space-size=64', 'build/cli/den.js']);
      expect(command(render('gateway: { resources: { limits: { memory: 128Mi } } }'))).to.deep.equal(['node', '--initial-old-space-size=32', 'build/cli/den.js']);
      expect(find(defaults, 'Deployment', 'den-server').spec.template.spec.containers[0].command, 'den-server').to.equal(undefined);
    });

    it('gives each process a termination grace longer than the preStop pause and its own drain bound', () => {
      const pod = (name: string) => find(defaults, 'Deployment', name).spec.template.spec;
      // Drain bounds: manager 10 s (reconciles 5 s, then webhooks 5 s); server 10 s of requests; gateway 25 s of SSH sessions and 2 s to close.
      const drain: Record<string, number> = { 'den-manager': 10, 'den-server': 10, 'den-gateway': 27 };
      for (const name of Object.keys(drain)) {
        const preStop = pod(name).containers[0].lifecycle.preStop.exec.command;
        expect(preStop).to.deep.equal(['sleep', '5']);
        expect(pod(name).terminationGracePeriodSeconds, name).to.be.above(5 + drain[name]!);
      }
      expect(['den-manager', 'den-server', 'den-gateway'].map((n) => pod(n).terminationGracePeriodSeconds)).to.deep.equal([30, 30, 40]);
    });

    it('puts scrape annotations for the health port on every pod', () => {
      for (const name of ['den-manager', 'den-server', 'den-gateway']) {
        expect(find(defaults, 'Deployment', name).spec.template.metadata.annotations, name).to.deep.equal({
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': '8081',
          'prometheus.io/path': '/metrics',
        });
      }
    });

    it('lets NetworkPolicies in only on the ports each process serves, and out only to DNS and the API server ports', () => {
      const policy = (name: string) => find(defaults, 'NetworkPolicy', name).spec;
      const ports = (rules: Obj[]) => rules.flatMap((r) => (r.ports as Obj[]).map((p) => `${p.protocol}/${p.port}`));
      expect(ports(policy('den-manager').ingress)).to.deep.equal(['TCP/9443', 'TCP/8081']);
      expect(ports(policy('den-server').ingress)).to.deep.equal(['TCP/8080', 'TCP/8081']);
      expect(ports(policy('den-gateway').ingress)).to.deep.equal(['TCP/2222', 'TCP/8081']);
      for (const name of ['den-manager', 'den-server', 'den-gateway']) {
        expect(policy(name).policyTypes).to.deep.equal(['Ingress', 'Egress']);
        expect(ports(policy(name).egress)).to.deep.equal(['UDP/53', 'TCP/53', 'TCP/443', 'TCP/6443']);
        for (const rule of [...policy(name).ingress, ...policy(name).egress]) expect(rule, 'no peer restriction').to.have.keys('ports');
      }
      expect(policy('den-default-deny')).to.deep.equal({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    });

    it('renders the Ingress for the base URL host with TLS and class when asked', () => {
      const objects = render('baseUrl: https://den.corp.example\nserver: { ingress: { enabled: true, className: nginx, tlsSecret: den-tls, annotations: { a: b } } }');
      const ingress = find(objects, 'Ingress', 'den-server');
      expect(ingress.metadata.annotations).to.deep.equal({ a: 'b' });
      expect(ingress.spec).to.deep.equal({
        ingressClassName: 'nginx',
        tls: [{ hosts: ['den.corp.example'], secretName: 'den-tls' }],
        rules: [{ host: 'den.corp.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'den-server', port: { name: 'http' } } } }] } }],
      });
      expect(defaults.some((o) => o.kind === 'Ingress'), 'none by default').to.equal(false);
    });

    it('renders a wildcard Ingress for the apps domain, with its own TLS Secret and annotations, and tells den server the domain', async () => {
      const objects = render('baseUrl: https://den.corp.example\nserver: { ingress: { enabled: true, className: nginx, tlsSecret: den-tls }, apps: { domain: den-apps.example, tlsSecret: den-apps-wildcard, annotations: { c: d } } }');
      const ingress = find(objects, 'Ingress', 'den-server-apps');
      expect(ingress.metadata.annotations).to.deep.equal({ c: 'd' });
      expect(ingress.spec).to.deep.equal({
        ingressClassName: 'nginx',
        tls: [{ hosts: ['*.den-apps.example'], secretName: 'den-apps-wildcard' }],
        rules: [{ host: '*.den-apps.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'den-server', port: { name: 'http' } } } }] } }],
      });
      const env = Object.fromEntries((find(objects, 'Deployment', 'den-server').spec.template.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
      expect(env.DEN_APPS_DOMAIN).to.equal('den-apps.example');
      const { ROLES } = await import('../../cli/roles.js');
      const { readSettings } = await import('../../process/settings.js');
      const { settings } = await ROLES.server!();
      expect((readSettings(settings, [], env) as Record<string, unknown>).appsDomain).to.equal('den-apps.example');
      expect(find(defaults, 'Deployment', 'den-server').spec.template.spec.containers[0].env.map((e: Obj) => e.name)).not.to.include('DEN_APPS_DOMAIN');
    });

    it('tells den server that public ports are allowed only where server.apps.allowPublicPorts says so', async () => {
      const envOf = (objects: Obj[]) => Object.fromEntries((find(objects, 'Deployment', 'den-server').spec.template.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
      const allowed = envOf(render('baseUrl: https://den.corp.example\nserver: { apps: { domain: den-apps.example, allowPublicPorts: true } }'));
      expect(allowed.DEN_APPS_ALLOW_PUBLIC_PORTS).to.equal('true');
      expect(envOf(render('baseUrl: https://den.corp.example\nserver: { apps: { domain: den-apps.example } }'))).not.to.have.property('DEN_APPS_ALLOW_PUBLIC_PORTS');
      const { ROLES } = await import('../../cli/roles.js');
      const { readSettings } = await import('../../process/settings.js');
      const { settings } = await ROLES.server!();
      expect((readSettings(settings, [], allowed) as Record<string, unknown>).appsAllowPublicPorts).to.equal(true);
      expect((readSettings(settings, [], { DEN_BASE_URL: 'https://den.corp.example' }) as Record<string, unknown>).appsAllowPublicPorts).to.equal(false);
    });

    it('exposes the gateway on the configured Service port while the container keeps 2222', () => {
      const objects = render('gateway: { service: { type: LoadBalancer, port: 2022, externalTrafficPolicy: Local, annotations: { lb: nlb } } }');
      const service = find(objects, 'Service', 'den-gateway');
      expect(service.metadata.annotations).to.deep.equal({ lb: 'nlb' });
      expect(service.spec).to.deep.include({ type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
      expect(service.spec.ports).to.deep.equal([{ name: 'ssh', port: 2022, targetPort: 'ssh', protocol: 'TCP' }]);
      expect(find(objects, 'Deployment', 'den-gateway').spec.template.spec.containers[0].ports[0]).to.deep.equal({ name: 'ssh', containerPort: 2222, protocol: 'TCP' });
    });

    it('mounts the identity providers Secret and points the server at its file', () => {
      const pod = find(render('server: { identityProviders: { secretName: den-idp, fileKey: providers.yaml } }'), 'Deployment', 'den-server').spec.template.spec;
      expect(pod.volumes).to.deep.include({ name: 'identity-providers', secret: { secretName: 'den-idp', optional: false, defaultMode: 0o400 } });
      expect(pod.containers[0].volumeMounts).to.deep.include({ name: 'identity-providers', mountPath: '/etc/den/identity-providers', readOnly: true });
      expect(pod.containers[0].env).to.deep.include({ name: 'DEN_IDENTITY_PROVIDERS_FILE', value: '/etc/den/identity-providers/providers.yaml' });
    });

    it('gives the manager registry credentials from a Secret and its ServiceAccount the cloud role annotation', () => {
      const objects = render('manager: { registryCredentialsSecret: den-aws, serviceAccount: { annotations: { eks.amazonaws.com/role-arn: "arn:aws:iam::1:role/r" } } }');
      expect(find(objects, 'Deployment', 'den-manager').spec.template.spec.containers[0].envFrom).to.deep.equal([{ secretRef: { name: 'den-aws', optional: false } }]);
      expect(find(objects, 'ServiceAccount', 'den-manager').metadata.annotations).to.deep.equal({ 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/r' });
    });

    it('passes the trusted proxies to the server as `den server` reads them', async () => {
      const { ROLES } = await import('../../cli/roles.js');
      const { readSettings } = await import('../../process/settings.js');
      const c = find(render('server: { trustedProxies: [10.0.0.0/8, 192.168.1.7] }'), 'Deployment', 'den-server').spec.template.spec.containers[0];
      const env = Object.fromEntries((c.env as Obj[]).map((e) => [e.name, e.value]));
      expect(env.DEN_TRUSTED_PROXIES).to.equal('10.0.0.0/8,192.168.1.7');
      const { settings } = await ROLES.server!();
      expect((readSettings(settings, [], env) as Record<string, unknown>).trustedProxies).to.deep.equal(['10.0.0.0/8', '192.168.1.7']);
    });

    it('passes the per-source cap and the PROXY protocol balancers to the gateway as `den gateway` reads them', async () => {
      const { ROLES } = await import('../../cli/roles.js');
      const { readSettings } = await import('../../process/settings.js');
      const c = find(render('gateway: { maxStartupsPerSource: 10, proxyProtocol: { trustedProxies: [10.0.0.0/8, 192.168.1.7] } }'), 'Deployment', 'den-gateway').spec.template.spec.containers[0];
      const env = Object.fromEntries((c.env as Obj[]).map((e) => [e.name, e.value]));
      expect(env).to.include({ DEN_MAX_STARTUPS_PER_SOURCE: '10', DEN_PROXY_PROTOCOL_FROM: '10.0.0.0/8,192.168.1.7' });
      const { settings } = await ROLES.gateway!();
      expect(readSettings(settings, [], env) as Record<string, unknown>).to.deep.include({ maxStartupsPerSource: 10, proxyProtocolFrom: ['10.0.0.0/8', '192.168.1.7'] });
    });

    it('keeps Den\'s own labels over an installer\'s labels of the same key', () => {
      const d = find(render('server: { labels: { app.kubernetes.io/component: web, team: x } }'), 'Deployment', 'den-server');
      expect(d.spec.template.metadata.labels).to.include({ 'app.kubernetes.io/component': 'server', team: 'x' });
    });
  });

  it('labels every rendered object app.kubernetes.io/part-of=den, which upgrades prune by', async () => {
    const configs = (await readdir(CONFIGS)).filter((f) => f.endsWith('.yaml'));
    for (const objects of [defaults, ...(await Promise.all(configs.map(async (f) => render(await readFile(join(CONFIGS, f), 'utf8')))))]) {
      for (const o of objects) expect(o.metadata.labels?.['app.kubernetes.io/part-of'], id(o)).to.equal('den');
    }
  });

  describe('example configurations match their snapshots', () => {
    for (const name of ['production', 'small']) {
      it(`test/infra/configs/${name}.yaml`, async () => {
        const rendered = render(await readFile(join(CONFIGS, `${name}.yaml`), 'utf8')).map((o) => stringify(o)).join('---\n');
        const file = join(SNAPSHOTS, `${name}.k8s.yaml`);
        if (process.env.UPDATE_SNAPSHOTS === '1') await writeFile(file, rendered);
        expect(rendered === (await readFile(file, 'utf8')), 'review, then UPDATE_SNAPSHOTS=1 npx mocha test/infra/config.test.ts').to.equal(true);
      });
    }
  });
});
