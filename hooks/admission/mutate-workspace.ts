// The mutating webhook on Workspace CREATE (SPEC 1.4): copy the owner's SSH keys when the
// workspace names none, and record who asked for it.
import { ANNOTATIONS } from '../../kube/group.js';
import type { UserSpace, Workspace } from './objects.js';

export type JsonPatchOp = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown };

export interface WorkspaceMutationInput {
  object: Workspace;
  /** The UserSpace whose namespace is the request's namespace, when it exists. */
  userSpace: UserSpace | undefined;
  /** `request.userInfo.username`: the authenticated identity, never a client-supplied value. */
  username: string;
}

/** RFC 6901: `/` and `~` in a key are escaped in a JSON pointer. */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function mutateWorkspace(input: WorkspaceMutationInput): JsonPatchOp[] {
  const { object, userSpace, username } = input;
  const patch: JsonPatchOp[] = [];
  const annotations = object.metadata?.annotations;
  if (!annotations || typeof annotations !== 'object') {
    patch.push({ op: 'add', path: '/metadata/annotations', value: { [ANNOTATIONS.requester]: username } });
  } else {
    // `add` on an existing member replaces it: a requester written by the client is overwritten.
    patch.push({ op: 'add', path: `/metadata/annotations/${pointerSegment(ANNOTATIONS.requester)}`, value: username });
  }

  const named = object.spec?.sshAuthorizedKeys;
  const ownerKeys = userSpace?.spec?.sshAuthorizedKeys;
  const namesNone = !Array.isArray(named) || named.length === 0;
  if (namesNone && Array.isArray(ownerKeys) && ownerKeys.length > 0) {
    const keys = ownerKeys.filter((k): k is string => typeof k === 'string');
    if (!object.spec || typeof object.spec !== 'object') patch.push({ op: 'add', path: '/spec', value: { sshAuthorizedKeys: keys } });
    else patch.push({ op: 'add', path: '/spec/sshAuthorizedKeys', value: keys });
  }
  return patch;
}
