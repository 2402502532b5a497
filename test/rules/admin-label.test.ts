// The labels den.dev/role and den.dev/disabled on a UserSpace have one reading, roleOf and
// isDisabled in contract/user-space.ts, fed alike here to every reader: the UserSpace hook
// (which binds den-admin, or empties every binding), den server's directory (who may do
// what), the REST answer and the admin page's people table.
import { expect } from 'chai';
import { isDisabled, roleOf } from '../../contract/user-space.js';
import { ADMIN_CLUSTER_ROLE } from '../../contract/names.js';
import { syncUserSpace } from '../../hooks/userspace/sync.js';
import { membershipOf as directoryMembership } from '../../server/auth/directory.js';
import { membershipOf as restMembership } from '../../server/api/mapping.js';
import { personLine } from '../../server/pages/admin-people.js';
import { input, userSpace } from '../hooks/userspace/inputs.js';

const ROLES: [string | undefined, 'admin' | 'user'][] = [
  ['admin', 'admin'],
  ['user', 'user'],
  ['Admin', 'user'],
  ['administrator', 'user'],
  ['', 'user'],
  [undefined, 'user'],
];
const DISABLED: [string | undefined, boolean][] = [
  ['true', true],
  ['false', false],
  ['True', false],
  ['yes', false],
  ['', false],
  [undefined, false],
];

const labelled = (key: string, value: string | undefined) => userSpace({ name: 'alice', labels: value === undefined ? {} : { [key]: value } });

/** Whether the hook's children bind the UserSpace's owner to the administrators' ClusterRole. */
function hookBindsAdmin(parent: ReturnType<typeof userSpace>): boolean {
  const { children } = syncUserSpace(input(parent));
  return children.some((c) => c.kind === 'ClusterRoleBinding' && (c as { roleRef?: { name?: string } }).roleRef?.name === ADMIN_CLUSTER_ROLE);
}

/** Whether every binding the hook renders is left without subjects, so that nobody holds its rights. */
function hookEmptiesBindings(parent: ReturnType<typeof userSpace>): boolean {
  const bindings = syncUserSpace(input(parent)).children.filter((c) => c.kind === 'RoleBinding' || c.kind === 'ClusterRoleBinding');
  expect(bindings, 'the hook renders bindings').to.not.deep.equal([]);
  return bindings.every((b) => ((b as { subjects?: unknown[] }).subjects ?? []).length === 0);
}

describe('the administrator and disabled labels of a UserSpace', () => {
  for (const [value, role] of ROLES) {
    it(`reads den.dev/role ${JSON.stringify(value)} as ${role} in the hook, the directory, the REST answer and the admin page`, () => {
      const parent = labelled('den.dev/role', value);
      expect(roleOf(parent)).to.equal(role);
      expect(hookBindsAdmin(parent), 'the hook binds den-admin').to.equal(role === 'admin');
      expect(directoryMembership(parent).role, 'the directory').to.equal(role);
      expect(restMembership(parent).role, 'the REST answer').to.equal(role);
      expect(personLine(parent).role, 'the admin page').to.equal(role);
    });
  }

  for (const [value, disabled] of DISABLED) {
    it(`reads den.dev/disabled ${JSON.stringify(value)} as ${disabled ? 'disabled' : 'enabled'} in the hook, the directory, the REST answer and the admin page`, () => {
      const parent = labelled('den.dev/disabled', value);
      expect(isDisabled(parent)).to.equal(disabled);
      expect(directoryMembership(parent).disabled, 'the directory').to.equal(disabled);
      expect(restMembership(parent).disabled, 'the REST answer').to.equal(disabled);
      expect(personLine(parent).disabled, 'the admin page').to.equal(disabled);
      expect(hookEmptiesBindings(parent), 'the hook empties every binding').to.equal(disabled);
    });
  }
});
