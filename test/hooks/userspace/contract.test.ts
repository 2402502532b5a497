import { expect } from 'chai';
import type { SyncHook } from '../../../hooks/loop/types.js';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { UserSpaceHookConfig, UserSpaceRelated } from '../../../hooks/userspace/types.js';
import type { KubeObject } from '../../../kube/client.js';
import { CONFIG, related } from './inputs.js';

describe('syncUserSpace as the loop runs it', () => {
  it('fits the loop\'s hook type and takes a parent as the informer hands it over', () => {
    const hook: SyncHook<UserSpaceHookConfig, UserSpaceRelated> = syncUserSpace;
    const parent: KubeObject = JSON.parse(
      '{"apiVersion":"den.dev/v1alpha1","kind":"UserSpace","metadata":{"name":"dan","uid":"u","generation":1},"spec":{"owner":"dan","quota":{"cpu":"1","memory":"1Gi","storage":"1Gi","workspaces":1},"networkPolicy":"Isolated"}}',
    );
    const out = hook({ parent, children: {}, related: related(), now: new Date(0), config: CONFIG });
    expect(out.children.map((c) => c.metadata?.name)).to.include('svc-dan');
    expect(out.status.phase).to.equal('Pending');
  });
});
