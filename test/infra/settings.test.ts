import { expect } from 'chai';
import { DEFAULT_SETTINGS, imageVersion, readInstallSettings } from '../../infra/install/settings.js';

describe('install settings', () => {
  it('defaults to ghcr.io/den-dev/den:0.1.0, den.example.com and ClusterIP Services', () => {
    expect(readInstallSettings({})).to.deep.equal({
      image: 'ghcr.io/den-dev/den:0.1.0',
      baseUrl: 'https://den.example.com',
      gatewayHost: 'den.example.com',
      gpuResource: 'nvidia.com/gpu',
      serverServiceType: 'ClusterIP',
      gatewayServiceType: 'ClusterIP',
    });
    expect(readInstallSettings({ DEN_IMAGE: '' })).to.deep.equal(DEFAULT_SETTINGS);
  });

  it('reads every DEN_* variable', () => {
    expect(
      readInstallSettings({
        DEN_IMAGE: 'localhost:5000/den:dev',
        DEN_BASE_URL: 'http://localhost:8080',
        DEN_GATEWAY_HOST: 'ssh.dev.local',
        DEN_GPU_RESOURCE: 'amd.com/gpu',
        DEN_SERVER_SERVICE_TYPE: 'NodePort',
        DEN_GATEWAY_SERVICE_TYPE: 'LoadBalancer',
      }),
    ).to.deep.equal({
      image: 'localhost:5000/den:dev',
      baseUrl: 'http://localhost:8080',
      gatewayHost: 'ssh.dev.local',
      gpuResource: 'amd.com/gpu',
      serverServiceType: 'NodePort',
      gatewayServiceType: 'LoadBalancer',
    });
  });

  const refusals: [Record<string, string>, string][] = [
    [{ DEN_IMAGE: 'Den Image' }, 'DEN_IMAGE: "Den Image" is not an image reference like ghcr.io/den-dev/den:0.1.0'],
    [{ DEN_BASE_URL: 'ftp://den.example.com' }, 'DEN_BASE_URL: "ftp://den.example.com" is not an http or https URL'],
    [{ DEN_GATEWAY_HOST: 'den.example.com:22' }, 'DEN_GATEWAY_HOST: "den.example.com:22" is not a DNS host name'],
    [{ DEN_GPU_RESOURCE: 'gpu please' }, 'DEN_GPU_RESOURCE: "gpu please" is not a resource name like nvidia.com/gpu'],
    [{ DEN_SERVER_SERVICE_TYPE: 'Ingress' }, 'DEN_SERVER_SERVICE_TYPE: "Ingress" is not one of ClusterIP, NodePort, LoadBalancer'],
    [{ DEN_GATEWAY_SERVICE_TYPE: 'clusterip' }, 'DEN_GATEWAY_SERVICE_TYPE: "clusterip" is not one of ClusterIP, NodePort, LoadBalancer'],
  ];
  for (const [env, message] of refusals) {
    it(`refuses ${Object.entries(env)[0]?.join('=')} naming the variable`, () => {
      expect(() => readInstallSettings(env)).to.throw(message);
    });
  }

  it('labels with the image tag only when there is a valid one', () => {
    expect(imageVersion('ghcr.io/den-dev/den:0.1.0')).to.equal('0.1.0');
    expect(imageVersion('localhost:5000/den')).to.equal(undefined);
    expect(imageVersion('localhost:5000/den:dev@sha256:' + 'b'.repeat(64))).to.equal('dev');
    expect(imageVersion('den@sha256:' + 'b'.repeat(64))).to.equal(undefined);
  });
});
