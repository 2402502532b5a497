// LimitRange `svc-limits`: container defaults, so a container that names no resources is still
// admitted under the quota (a quota on requests.cpu refuses pods that request none).
import { Construct } from 'constructs';
import { KubeLimitRange, Quantity } from '../../../imports/k8s.cjs';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

export const LIMITS_NAME = 'svc-limits';

function quantities(values: Record<string, string>): Record<string, Quantity> | undefined {
  const entries = Object.entries(values);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([k, v]) => [k, Quantity.fromString(v)]));
}

export class UserLimits extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeLimitRange(this, 'Resource', {
      metadata: childMetadata(props, LIMITS_NAME, { namespaced: true }),
      spec: {
        limits: [
          {
            type: 'Container',
            defaultRequest: quantities(props.containerDefaults.request),
            default: quantities(props.containerDefaults.limit),
          },
        ],
      },
    });
  }
}
