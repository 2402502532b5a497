// The UserSpace sync hook (SPEC 1.2, DESIGN.md hook contract): pure, no I/O, no clock.
// Observed children and related objects in; the desired children and the status out.
import { renderUserSpaceChildren } from './children/chart.js';
import { isDisabled, roleOf } from '../../contract/user-space.js';
import { SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { apiServerRules } from './api-server.js';
import { holdObserved } from './observed.js';
import { mirroredPullSecrets } from './pull-secrets.js';
import { userSpaceStatus } from './status.js';
import type { ChildObject, UserSpaceSyncInput, UserSpaceSyncResult } from './types.js';
import { planUserSpace } from './validate.js';

export type { UserSpaceSyncInput, UserSpaceSyncResult } from './types.js';

export function syncUserSpace(input: UserSpaceSyncInput): UserSpaceSyncResult {
  const { parent, children: observed, related, now, config } = input;
  const disabled = isDisabled(parent);
  const namespace = userNamespace(parent.metadata?.name ?? '');
  const apiServer = apiServerRules(related.apiServer);

  // The decision: an invalid spec changes nothing that exists; a valid one renders everything.
  const planned = planUserSpace(parent, [config.managerNamespace, SYSTEM_NAMESPACE]);
  const children: ChildObject[] = planned.ok
    ? (renderUserSpaceChildren({
        userSpace: planned.plan.name,
        namespace: planned.plan.namespace,
        owner: planned.plan.owner,
        quota: planned.plan.quota,
        gpuResource: config.gpuResource,
        containerDefaults: planned.plan.containerDefaults,
        networkPolicy: planned.plan.networkPolicy,
        apiServer,
        admin: roleOf(parent) === 'admin',
        disabled,
        pullSecrets: mirroredPullSecrets(related.pullSecrets, config.managerNamespace),
      }) as ChildObject[])
    : holdObserved(observed, disabled);

  const status = userSpaceStatus({
    parent,
    namespace,
    observed,
    desired: planned.ok ? children : [],
    problems: planned.ok ? [] : planned.problems,
    errors: input.errors ?? [],
    apiServerResolved: apiServer.length > 0,
    disabled,
    now,
  });
  return { status, children };
}
