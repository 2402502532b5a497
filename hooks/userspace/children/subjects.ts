// RBAC subjects of a UserSpace's bindings, and the one place the disabled label takes effect.
import type { Subject } from '../../../imports/k8s.cjs';
import type { UserSpaceChildrenProps } from './props.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function ownerSubject(props: Pick<UserSpaceChildrenProps, 'owner'>): Subject {
  return { kind: 'User', apiGroup: RBAC_GROUP, name: props.owner };
}

export function serviceAccountSubject(props: Pick<UserSpaceChildrenProps, 'namespace'>, name: string): Subject {
  return { kind: 'ServiceAccount', name, namespace: props.namespace };
}

/** A disabled UserSpace keeps its bindings but without subjects, so nobody holds their rights. */
export function bindingSubjects(props: Pick<UserSpaceChildrenProps, 'disabled'>, subjects: Subject[]): Subject[] | undefined {
  return props.disabled ? undefined : subjects;
}

export function clusterRoleRef(name: string): { apiGroup: string; kind: string; name: string } {
  return { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name };
}

export function roleRef(name: string): { apiGroup: string; kind: string; name: string } {
  return { apiGroup: RBAC_GROUP, kind: 'Role', name };
}
