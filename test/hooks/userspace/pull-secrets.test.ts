import { expect } from 'chai';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import { input, pullSecret, related, userSpace } from './inputs.js';

function mirrors(pullSecrets: KubeObject[], managerNamespace = 'svc-system'): KubeObject[] {
  const out = syncUserSpace(input(userSpace({ name: 'alice' }), { related: related({ pullSecrets }), config: { gpuResource: 'nvidia.com/gpu', managerNamespace } }));
  return out.children.filter((c) => c.kind === 'Secret' && c.metadata.labels?.['den.dev/pull-secret-mirror'] === 'true');
}

describe('syncUserSpace pull Secret mirrors (SPEC 1.2 rule 7)', () => {
  it('copies a labelled pull Secret into the user namespace with the same name, type and data, and nothing else of it', () => {
    const source = pullSecret('regcred', { data: { '.dockerconfigjson': 'eyJhdXRocyI6eyJyZWcuZXhhbXBsZS5jb20iOnt9fX0=' } });
    expect(mirrors([source])).to.deep.equal([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'regcred',
          namespace: 'svc-alice',
          labels: { 'app.kubernetes.io/managed-by': 'den-manager', 'den.dev/pull-secret-mirror': 'true', 'den.dev/userspace': 'alice' },
        },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': 'eyJhdXRocyI6eyJyZWcuZXhhbXBsZS5jb20iOnt9fX0=' },
      },
    ]);
  });

  it('mirrors every labelled source, sorted by name, after the other children', () => {
    const out = syncUserSpace(input(userSpace(), { related: related({ pullSecrets: [pullSecret('zeta'), pullSecret('alpha', { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': 'e30=' } })] }) }));
    expect(out.children.slice(-2).map((c) => `${c.kind}/${c.metadata.name}/${c.type}`)).to.deep.equal([
      'Secret/alpha/kubernetes.io/dockercfg',
      'Secret/zeta/kubernetes.io/dockerconfigjson',
    ]);
  });

  const ignored: { why: string; secret: KubeObject }[] = [
    { why: 'is not labelled den.dev/pull-secret=true', secret: pullSecret('a', { labels: { 'den.dev/pull-secret': 'yes' } }) },
    { why: 'lives outside the manager namespace', secret: pullSecret('b', { namespace: 'default' }) },
    { why: 'is not a registry credential', secret: pullSecret('c', { type: 'Opaque', data: { password: 'aHVudGVyMg==' } }) },
    { why: 'is a ServiceAccount token', secret: pullSecret('d', { type: 'kubernetes.io/service-account-token' }) },
    { why: 'is being deleted', secret: { ...pullSecret('e'), metadata: { ...pullSecret('e').metadata, deletionTimestamp: '2026-11-22T09:59:00Z' } } },
  ];
  for (const c of ignored) {
    it(`does not mirror a Secret that ${c.why}`, () => {
      expect(mirrors([c.secret])).to.deep.equal([]);
    });
  }

  it('reads the manager namespace from the configuration', () => {
    expect(mirrors([pullSecret('regcred', { namespace: 'den' })], 'den').map((s) => s.metadata!.name)).to.deep.equal(['regcred']);
  });

  it('drops the mirror when its source goes, so the loop prunes it', () => {
    expect(mirrors([pullSecret('regcred')]).length).to.equal(1);
    expect(mirrors([]).length).to.equal(0);
  });

  it('follows a change of the source data', () => {
    const [copy] = mirrors([pullSecret('regcred', { data: { '.dockerconfigjson': 'bmV3' } })]);
    expect(copy!.data).to.deep.equal({ '.dockerconfigjson': 'bmV3' });
  });
});
