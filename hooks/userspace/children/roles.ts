// Roles `svc-workspace-user` (owner rights, SPEC 1.2 rule 2) and `svc-workspace-reader`
// (the same minus every write verb, rule 3).
import { Construct } from 'constructs';
import { KubeRole, type PolicyRule } from '../../../imports/k8s.cjs';
import { GROUP, PLURALS } from '../../../kube/group.js';
import { GIT_CREDENTIALS_SECRET, PERSONAL_ENV_SECRET } from '../../../contract/personal.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

import { READER_ROLE, USER_ROLE } from '../../../contract/names.js';

export { READER_ROLE, USER_ROLE };

const READ = ['get', 'list', 'watch'];
const PERSONAL_SECRETS = [PERSONAL_ENV_SECRET, GIT_CREDENTIALS_SECRET];

export const USER_RULES: PolicyRule[] = [
  {
    apiGroups: [GROUP],
    resources: [PLURALS.workspace],
    verbs: [...READ, 'create', 'update', 'patch', 'delete', 'deletecollection'],
  },
  { apiGroups: [''], resources: ['pods', 'events'], verbs: READ },
  // Den's Events about what the person does (kube/den-events.ts) are written with their own
  // token: created, then patched to count a burst.
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  // Websocket exec and port forwarding (SSH through den gateway, which acts as the owner's
  // `session` ServiceAccount) are a GET on older API servers and a create on newer ones.
  { apiGroups: [''], resources: ['pods/exec', 'pods/portforward'], verbs: ['create', 'get'] },
  // DELETE /workspaces removes the retained home PVC with the caller's own token (SPEC 4.2).
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: [...READ, 'delete'] },
  // The person's own variables and git credentials, by name only: no other Secret of the
  // namespace (the mirrored pull Secrets) is theirs to read. The manager creates both.
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'patch'], resourceNames: PERSONAL_SECRETS },
  // Sharing a workspace with another person (contract/share.ts, docs/sharing.md): the owner writes
  // a Role and a RoleBinding with their own token. Kubernetes' escalation check lets them grant
  // only what they hold here; no update or patch, so the manager's own bindings keep their subjects.
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: [...READ, 'create', 'delete'] },
];

export const READER_RULES: PolicyRule[] = [
  { apiGroups: [GROUP], resources: [PLURALS.workspace], verbs: READ },
  { apiGroups: [''], resources: ['pods', 'events'], verbs: READ },
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: READ },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: PERSONAL_SECRETS },
];

export class WorkspaceRoles extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeRole(this, USER_ROLE, {
      metadata: childMetadata(props, USER_ROLE, { namespaced: true }),
      rules: USER_RULES,
    });
    new KubeRole(this, READER_ROLE, {
      metadata: childMetadata(props, READER_ROLE, { namespaced: true }),
      rules: READER_RULES,
    });
  }
}
