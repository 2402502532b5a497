import { expect } from 'chai';
import { DEFAULT_SETTINGS, imageReference, imageVersion, readInstallSettings, settingsOfConfig } from '../../infra/install/settings.js';
import { configFlag } from '../../infra/install/config-file.js';

describe('install settings', () => {
  it('default to ghcr.io/den-dev/den:0.1.0, den.example.com, ClusterIP Services and two replicas of each process', () => {
    const s = readInstallSettings({});
    expect(imageReference(s.image)).to.equal('ghcr.io/den-dev/den:0.1.0');
    expect(s).to.include({ baseUrl: 'https://den.example.com', gatewayHost: 'den.example.com', gpuResource: 'nvidia.com/gpu', localLogin: true });
    expect([s.server.service.type, s.gateway.service.type]).to.deep.equal(['ClusterIP', 'ClusterIP']);
    expect([s.manager.replicas, s.server.replicas, s.gateway.replicas]).to.deep.equal([2, 2, 2]);
    expect(s.idleStop.enabled).to.equal(false);
    expect(readInstallSettings({ DEN_IMAGE: '' })).to.deep.equal(DEFAULT_SETTINGS);
  });

  it('reads every DEN_* variable', () => {
    const s = readInstallSettings({
      DEN_IMAGE: 'localhost:5000/den:dev',
      DEN_BASE_URL: 'http://localhost:8080',
      DEN_GATEWAY_HOST: 'ssh.dev.local',
      DEN_GPU_RESOURCE: 'amd.com/gpu',
      DEN_SERVER_SERVICE_TYPE: 'NodePort',
      DEN_GATEWAY_SERVICE_TYPE: 'LoadBalancer',
      DEN_LOCAL_LOGIN: 'false',
    });
    expect(s.image).to.include({ repository: 'localhost:5000/den', tag: 'dev', digest: '' });
    expect(s).to.include({ baseUrl: 'http://localhost:8080', gatewayHost: 'ssh.dev.local', gpuResource: 'amd.com/gpu', localLogin: false });
    expect([s.server.service.type, s.gateway.service.type]).to.deep.equal(['NodePort', 'LoadBalancer']);
  });

  it('takes the configuration file first and the variables over it', () => {
    const config = { text: 'gatewayHost: ssh.corp.example\nimage:\n  tag: 1.2.3\nserver:\n  replicas: 3\n', where: 'den.yaml' };
    const s = readInstallSettings({ DEN_GATEWAY_HOST: 'ssh.override.example' }, config);
    expect(s.gatewayHost).to.equal('ssh.override.example');
    expect(imageReference(s.image)).to.equal('ghcr.io/den-dev/den:1.2.3');
    expect(s.server.replicas).to.equal(3);
    expect(s.gateway.replicas, 'keys not in the file keep their default').to.equal(2);
  });

  it('reads a digest-pinned image and keeps the tag label off it', () => {
    const s = readInstallSettings({ DEN_IMAGE: `ghcr.io/den-dev/den@sha256:${'a'.repeat(64)}` });
    expect(s.image).to.include({ repository: 'ghcr.io/den-dev/den', tag: '', digest: `sha256:${'a'.repeat(64)}` });
    expect(imageReference(s.image)).to.equal(`ghcr.io/den-dev/den@sha256:${'a'.repeat(64)}`);
  });

  const refusals: [Record<string, string>, string][] = [
    [{ DEN_IMAGE: 'Den Image' }, 'DEN_IMAGE: "Den Image" is not an image reference like ghcr.io/den-dev/den:0.1.0'],
    [{ DEN_BASE_URL: 'ftp://den.example.com' }, 'DEN_BASE_URL: "ftp://den.example.com" is not an http or https URL'],
    [{ DEN_GATEWAY_HOST: 'den.example.com:22' }, 'DEN_GATEWAY_HOST: "den.example.com:22" is not a DNS host name'],
    [{ DEN_GPU_RESOURCE: 'gpu please' }, 'DEN_GPU_RESOURCE: "gpu please" is not a resource name like nvidia.com/gpu'],
    [{ DEN_SERVER_SERVICE_TYPE: 'Ingress' }, 'DEN_SERVER_SERVICE_TYPE: "Ingress" is not one of ClusterIP, NodePort, LoadBalancer'],
    [{ DEN_GATEWAY_SERVICE_TYPE: 'clusterip' }, 'DEN_GATEWAY_SERVICE_TYPE: "clusterip" is not one of ClusterIP, NodePort, LoadBalancer'],
    [{ DEN_LOCAL_LOGIN: 'maybe' }, 'DEN_LOCAL_LOGIN: "maybe" is not true or false'],
  ];
  for (const [env, message] of refusals) {
    it(`refuses ${Object.entries(env)[0]?.join('=')} naming the variable`, () => {
      expect(() => readInstallSettings(env)).to.throw(message);
    });
  }

  const fileRefusals: [string, string][] = [
    ['server:\n  replicas: 0\n', 'server.replicas: must be an integer ≥ 1'],
    ['server:\n  replicas: "2"\n', 'server.replicas: must be an integer ≥ 1'],
    ['gateway:\n  replica: 2\n', 'gateway.replica: unknown key (see den.config.example.yaml)'],
    ['namespace: den\n', 'namespace: unknown key (see den.config.example.yaml)'],
    ['image:\n  pullPolicy: Sometimes\n', 'image.pullPolicy: must be one of Always, IfNotPresent, Never'],
    ['image:\n  pullSecrets: [Regcred]\n', 'image.pullSecrets[0]: must be a Secret name (lower-case DNS name)'],
    ['manager:\n  resources:\n    limits:\n      memory: lots\n', 'manager.resources.limits.memory: must be a Kubernetes quantity such as 500m or 256Mi'],
    ['server:\n  labels:\n    team: "a b"\n', 'server.labels.team: is not a valid label value'],
    ['server:\n  nodeSelector: [a]\n', 'server.nodeSelector: must be a map of strings'],
    ['gateway:\n  tolerations: {}\n', 'gateway.tolerations: must be a list'],
    ['gateway:\n  service:\n    port: 70000\n', 'gateway.service.port: must be an integer from 1 to 65535'],
    ['gateway:\n  service:\n    externalTrafficPolicy: Local\n', 'gateway.service.externalTrafficPolicy: Local needs gateway.service.type NodePort or LoadBalancer'],
    ['server:\n  ingress:\n    tlsSecret: den-tls\n', 'server.ingress.tlsSecret: needs server.ingress.enabled: true'],
    ['server:\n  apps:\n    tlsSecret: apps-tls\n', 'server.apps.tlsSecret: needs server.apps.domain'],
    ['server:\n  apps:\n    allowPublicPorts: true\n', 'server.apps.allowPublicPorts: needs server.apps.domain: only host-based previews can be shared'],
    ['server:\n  apps:\n    domain: den-apps.example\n    allowPublicPorts: yes-please\n', 'server.apps.allowPublicPorts: must be true or false'],
    ['server:\n  apps:\n    domain: "*.apps.example"\n', 'server.apps.domain: must be a DNS domain such as apps.den.example'],
    ['baseUrl: https://den.example.com\nserver:\n  apps:\n    domain: apps.den.example.com\n', "server.apps.domain: must not be under the host of baseUrl (den.example.com): apps could set cookies on Den's host"],
    ['baseUrl: https://den.example.com\nserver:\n  apps:\n    domain: example.com\n', 'server.apps.domain: must not be a parent of the host of baseUrl (den.example.com): apps would share cookies with Den'],
    ['server:\n  trustedProxies: [10.0.0.0/33]\n', 'server.trustedProxies[0]: must be an IP address or a CIDR range such as 10.0.0.0/8'],
    ['gateway:\n  maxStartupsPerSource: 0\n', 'gateway.maxStartupsPerSource: must be none or an integer from 1 to 1000000'],
    ['gateway:\n  proxyProtocol:\n    trustedProxies: [nlb]\n', 'gateway.proxyProtocol.trustedProxies[0]: must be an IP address or a CIDR range such as 10.0.0.0/8'],
    ['idleStop:\n  enabled: yes please\n', 'idleStop.enabled: must be true or false'],
    ['baseUrl: den.example.com\n', 'baseUrl: must be an http or https URL'],
    ['image: {tag: 1.0}\n', 'image.tag: must be an image tag such as 0.1.0, but YAML read the number 1: write it in quotes'],
    ['image:\n  repository: 2024\n', 'image.repository: must be an image repository such as ghcr.io/den-dev/den, but YAML read the number 2024: write it in quotes'],
    ['server:\n  labels:\n    release: 2.1\n', 'server.labels.release: must be a string, but YAML read the number 2.1: write it in quotes'],
    ['server:\n  annotations:\n    example.com/enabled: true\n', 'server.annotations.example.com/enabled: must be a string, but YAML read the boolean true: write it in quotes'],
    ['metrics:\n  serviceMonitor:\n    enabled: true\n', 'metrics.serviceMonitor.enabled: set metrics.scrapeAnnotations: false as well (one way of scraping)'],
    ['- just\n- a list\n', ': must be a map'],
    ['server: [\n', 'den.yaml: not valid YAML'],
  ];
  for (const [text, message] of fileRefusals) {
    it(`refuses a configuration file saying ${JSON.stringify(text.trim())} with "${message}"`, () => {
      expect(() => settingsOfConfig(text, 'den.yaml')).to.throw(message);
    });
  }

  it('takes --config FILE or --config=FILE and nothing else from the command line', () => {
    expect(configFlag([])).to.equal(undefined);
    expect(configFlag(['--config', 'a.yaml'])).to.equal('a.yaml');
    expect(configFlag(['--config=b.yaml'])).to.equal('b.yaml');
    expect(() => configFlag(['--config'])).to.throw('--config needs a file name');
    expect(() => configFlag(['--output', 'x'])).to.throw("unexpected argument '--output' (only --config FILE)");
  });

  it('labels with the image tag only when there is a valid one', () => {
    expect(imageVersion('ghcr.io/den-dev/den:0.1.0')).to.equal('0.1.0');
    expect(imageVersion('localhost:5000/den')).to.equal(undefined);
    expect(imageVersion('localhost:5000/den:dev@sha256:' + 'b'.repeat(64))).to.equal('dev');
    expect(imageVersion('den@sha256:' + 'b'.repeat(64))).to.equal(undefined);
  });
});
