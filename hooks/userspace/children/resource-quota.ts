// ResourceQuota `svc-quota`: the UserSpace's budget as the API server enforces it (SPEC 2.4).
import { Construct } from 'constructs';
import { KubeResourceQuota, Quantity } from '../../../imports/k8s.cjs';
import { QUOTA_NAME, WORKSPACE_COUNT_KEY } from '../../../contract/user-space.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

/** The `hard` limits, keyed as ResourceQuota expects. A GPU quota of 0 still renders: it forbids GPUs. */
export function quotaHard(props: Pick<UserSpaceChildrenProps, 'quota' | 'gpuResource'>): Record<string, string> {
  return {
    'requests.cpu': props.quota.cpu,
    'requests.memory': props.quota.memory,
    'requests.storage': props.quota.storage,
    [`requests.${props.gpuResource}`]: String(props.quota.gpu),
    [WORKSPACE_COUNT_KEY]: String(props.quota.workspaces),
  };
}

export class UserQuota extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    const hard = Object.fromEntries(Object.entries(quotaHard(props)).map(([k, v]) => [k, Quantity.fromString(v)]));
    new KubeResourceQuota(this, 'Resource', {
      metadata: childMetadata(props, QUOTA_NAME, { namespaced: true }),
      spec: { hard },
    });
  }
}
