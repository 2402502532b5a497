import { expect } from 'chai';
import { childName, controllerReference, isControlledBy, keyOf, parentKeysOf, refOf } from '../../../hooks/loop/keys.js';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';

describe('loop keys', () => {
  describe('keyOf and refOf', () => {
    const cases = [
      { resource: RESOURCES.userSpace, ref: { name: 'alice' }, key: 'alice' },
      { resource: RESOURCES.workspace, ref: { namespace: 'svc-alice', name: 'dev' }, key: 'svc-alice/dev' },
      { resource: RESOURCES.userSpace, ref: { namespace: 'ignored', name: 'bob' }, key: 'bob' },
    ];
    for (const { resource, ref, key } of cases) {
      it(`keys ${resource.kind} ${JSON.stringify(ref)} as '${key}' and back`, () => {
        expect(keyOf(resource, ref)).to.equal(key);
        expect(refOf(resource, key)).to.deep.equal(resource.namespaced ? ref : { name: ref.name });
      });
    }

    it('refuses to key a namespaced object without a namespace', () => {
      expect(() => keyOf(RESOURCES.workspace, { name: 'dev' })).to.throw(/needs a namespace/);
    });

    for (const bad of ['dev', '/dev', 'svc-alice/']) {
      it(`refuses '${bad}' as a namespaced key`, () => {
        expect(() => refOf(RESOURCES.workspace, bad)).to.throw(/not a namespace\/name key/);
      });
    }
  });

  describe('parentKeysOf', () => {
    const us = { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name: 'alice', uid: 'u-1' } };
    const ws = { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice', uid: 'w-1' } };
    const cases: { it: string; obj: KubeObject; parent: typeof RESOURCES.userSpace | typeof RESOURCES.workspace; label?: string; keys: string[] }[] = [
      { it: 'maps a child to its cluster-scoped controller', obj: { metadata: { namespace: 'svc-alice', name: 'svc-quota', ownerReferences: [controllerReference(us)] } }, parent: RESOURCES.userSpace, keys: ['alice'] },
      { it: 'maps a child to its namespaced controller in its own namespace', obj: { metadata: { namespace: 'svc-alice', name: 'dev', ownerReferences: [controllerReference(ws)] } }, parent: RESOURCES.workspace, keys: ['svc-alice/dev'] },
      { it: 'ignores an owner reference that is not the controller', obj: { metadata: { name: 'x', ownerReferences: [{ ...controllerReference(us), controller: false }] } }, parent: RESOURCES.userSpace, keys: [] },
      { it: 'ignores a controller of another kind', obj: { metadata: { namespace: 'svc-alice', name: 'x', ownerReferences: [controllerReference(ws)] } }, parent: RESOURCES.userSpace, keys: [] },
      { it: 'accepts an owner reference of another version of the same group', obj: { metadata: { name: 'x', ownerReferences: [{ ...controllerReference(us), apiVersion: 'den.dev/v1beta1' }] } }, parent: RESOURCES.userSpace, keys: ['alice'] },
      { it: 'falls back to the parent label when the reference is gone', obj: { metadata: { name: 'svc-userspace-alice', labels: { 'den.dev/userspace': 'alice' } } }, parent: RESOURCES.userSpace, label: 'den.dev/userspace', keys: ['alice'] },
      { it: 'gives both parents when reference and label disagree', obj: { metadata: { name: 'x', labels: { 'den.dev/userspace': 'bob' }, ownerReferences: [controllerReference(us)] } }, parent: RESOURCES.userSpace, label: 'den.dev/userspace', keys: ['alice', 'bob'] },
      { it: 'gives one key when reference and label agree', obj: { metadata: { name: 'x', labels: { 'den.dev/userspace': 'alice' }, ownerReferences: [controllerReference(us)] } }, parent: RESOURCES.userSpace, label: 'den.dev/userspace', keys: ['alice'] },
      { it: 'maps a labelled pod to its workspace', obj: { metadata: { namespace: 'svc-alice', name: 'dev-0', labels: { 'den.dev/workspace': 'dev' } } }, parent: RESOURCES.workspace, label: 'den.dev/workspace', keys: ['svc-alice/dev'] },
      { it: 'cannot map a cluster-scoped object to a namespaced parent', obj: { metadata: { name: 'x', labels: { 'den.dev/workspace': 'dev' } } }, parent: RESOURCES.workspace, label: 'den.dev/workspace', keys: [] },
    ];
    for (const c of cases) {
      it(c.it, () => {
        expect(parentKeysOf(c.obj, c.parent, c.label)).to.deep.equal(c.keys);
      });
    }
  });

  it('builds a controller reference that blocks owner deletion', () => {
    expect(controllerReference({ apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name: 'alice', uid: 'u-1' } })).to.deep.equal({
      apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', name: 'alice', uid: 'u-1', controller: true, blockOwnerDeletion: true,
    });
  });

  it('refuses to build a controller reference for a parent without uid', () => {
    expect(() => controllerReference({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).to.throw(/metadata.uid/);
  });

  it('tells whether a child is controlled by a uid', () => {
    const child = { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'p', uid: 'a', controller: true }] } };
    expect(isControlledBy(child, 'a')).to.equal(true);
    expect(isControlledBy(child, 'b')).to.equal(false);
  });

  it('names a child Kind/name', () => {
    expect(childName({ kind: 'ResourceQuota', metadata: { name: 'svc-quota', namespace: 'svc-a' } })).to.equal('ResourceQuota/svc-quota');
  });
});
