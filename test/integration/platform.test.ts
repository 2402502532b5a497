// The whole platform on this machine: the real `den manager`, `den server` and `den gateway`
// processes (bin/den.js, each under its own ServiceAccount token) against the fake API
// server, with the harness playing the StatefulSet controller and the kubelet, and the real
// OpenSSH client and `den users add` as a person runs them.
import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform } from '../support/platform.js';
import { uncoveredRequests } from '../infra/rbac-needs.js';
import { platformJourney } from './journey.js';

describe('Den on this machine: a person from sign-up to SSH and back', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();

  before(async function () {
    this.timeout(60_000);
    platform.suffix = 'it';
    await platform.start();
  });

  after(async function () {
    this.timeout(20_000);
    await platform.stop();
  });

  platformJourney(() => platform);

  it('after the API server drops every watch and forgets their history, the manager still provisions a new UserSpace', async () => {
    // As after an API server restart: every watch ends, and resuming from its resourceVersion answers 410 Gone.
    platform.api.compact();
    platform.api.dropWatches();
    await platform.admin.create(RESOURCES.userSpace, {
      apiVersion: RESOURCES.userSpace.apiVersion,
      kind: 'UserSpace',
      metadata: { name: 'carol-it' },
      spec: { owner: 'carol@example.com', quota: { cpu: '1', memory: '1Gi', storage: '5Gi', workspaces: 1 }, networkPolicy: 'Isolated' },
    });
    const ready = await eventually(() => platform.api.object<any>(RESOURCES.userSpace, 'carol-it')?.status?.phase === 'Ready', 'UserSpace carol-it Ready', 15_000);
    expect(ready).to.equal(true);
    expect(platform.api.object(RESOURCES.serviceAccount, 'session', 'svc-carol-it')).to.not.equal(undefined);
  });

  for (const process of ['den-manager', 'den-server', 'den-gateway'] as const) {
    it(`${process} made only the API calls its RBAC is meant to grant (test/infra/rbac-needs.ts)`, () => {
      expect(platform.api.requests.some((r) => r.user === `system:serviceaccount:svc-system:${process}`), `${process} made no call`).to.equal(true);
      expect(uncoveredRequests(process, platform.api.requests)).to.deep.equal([]);
    });
  }

  it('none of the processes has crashed along the way', () => {
    for (const p of Object.values(platform.processes)) expect(p.running, `den ${p.role}:\n${p.tail()}`).to.equal(true);
  });
});
