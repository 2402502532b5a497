// Deleting a person on a real API server (kube-controller-manager's namespace controller and
// garbage collector at work): the UserSpace's finalizer starts the deletion of its namespace and
// of its cluster-wide RBAC, the UserSpace goes while the namespace is Terminating, a workspace
// asked for meanwhile is refused saying the person has no space, and once the namespace's last finalizer
// is gone nothing of the person is left: no namespace, workspace, StatefulSet or role stuck.
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { LABELS } from '../../kube/group.js';
import { RESOURCES, resourcePath, type ResourceType } from '../../kube/resources.js';
import { NAMESPACE_FINALIZER } from '../../hooks/userspace/controller.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { eventually } from '../support/platform.js';
import { uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import type { Rest, Session } from './rest.js';
import { removeSignedInPerson, signInNewPerson } from './real-person.js';

const HOLD = 'test.den.dev/hold';

describe('deleting a person, on a real API server', function () {
  this.timeout(120_000);
  const image = uniqueName('ubuntu');
  const key = generateSshKey('ed25519').publicLine;
  let admin: KubeClient;
  let rest: Rest;
  let person: Person;
  let session: Session;

  before(async function () {
    this.timeout(300_000);
    ({ admin, rest, person, session } = await signInNewPerson('heidi', image));
    const created = await rest.call('POST', '/workspaces', { body: workspaceRequest('dev', image, key), as: { session } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await eventually(() => admin.get(RESOURCES.statefulSet, 'dev', person.namespace).catch(() => false), 'the StatefulSet of the workspace', 60_000, 250);
  });

  after(async function () {
    this.timeout(120_000);
    if (person) await admin.patch(RESOURCES.configMap, 'held', { metadata: { finalizers: null } }, { namespace: person.namespace, type: 'merge' }).catch(() => undefined);
    await removeSignedInPerson(admin, person, image);
  });

  const exists = (r: ResourceType, name: string, namespace?: string) => admin.get(r, name, namespace).then(() => true, (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)));
  const clusterRbac = async () => {
    const selector = { labelSelector: `${LABELS.userSpace}=${person.name}` };
    return [...(await admin.list(RESOURCES.clusterRole, selector)).items, ...(await admin.list(RESOURCES.clusterRoleBinding, selector)).items].map((o) => `${o.kind}/${o.metadata!.name}`);
  };

  it("carries Den's finalizer, and cluster-wide RBAC labelled with the person", async () => {
    const space = await admin.get<KubeObject>(RESOURCES.userSpace, person.name);
    expect(space.metadata?.finalizers).to.deep.equal([NAMESPACE_FINALIZER]);
    expect(await clusterRbac()).to.not.deep.equal([]);
  });

  it('goes while its namespace is Terminating (held by a finalizer of its own), and the person asking for a workspace meanwhile is told they have no space', async () => {
    // Something in the namespace that only its owner may let go, so Terminating lasts long enough to look at.
    await admin.create(RESOURCES.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: person.namespace, finalizers: [HOLD] } }, person.namespace);
    // Who went first, by the revisions etcd gave the writes: the namespace marked for deletion, or the UserSpace gone.
    const seen = { namespaceDeleting: 0, userSpaceDeleted: 0 };
    const stop = new AbortController();
    const from = (await admin.list(RESOURCES.namespace, { limit: 1 })).metadata?.resourceVersion;
    const watching = [
      admin.watch<KubeObject>(resourcePath(RESOURCES.namespace), { resourceVersion: from, fieldSelector: `metadata.name=${person.namespace}` }, (e) => {
        if (e.object.metadata?.deletionTimestamp && !seen.namespaceDeleting) seen.namespaceDeleting = Number(e.object.metadata.resourceVersion);
      }, stop.signal),
      admin.watch<KubeObject>(resourcePath(RESOURCES.userSpace), { resourceVersion: from, fieldSelector: `metadata.name=${person.name}` }, (e) => {
        if (e.type === 'DELETED') seen.userSpaceDeleted = Number(e.object.metadata?.resourceVersion);
      }, stop.signal),
    ].map((w) => w.catch((err: Error) => (stop.signal.aborted ? undefined : Promise.reject(err))));
    await admin.delete(RESOURCES.userSpace, person.name);
    try {
      await eventually(() => seen.userSpaceDeleted > 0 && seen.namespaceDeleting > 0, 'the UserSpace deleted and its namespace marked for deletion', 60_000, 100);
    } finally {
      stop.abort();
      await Promise.all(watching);
    }
    expect(seen.namespaceDeleting, "the namespace's deletion started before the UserSpace went (SPEC 3.4), not after by garbage collection").to.be.below(seen.userSpaceDeleted);
    const namespace = await admin.get<KubeObject & { status: { phase: string } }>(RESOURCES.namespace, person.namespace);
    expect(namespace.status.phase).to.equal('Terminating');
    expect(await clusterRbac(), "the person's cluster-wide rights end with the UserSpace").to.deep.equal([]);
    const refused = await rest.call('POST', '/workspaces', { body: workspaceRequest('late', image, key), as: { session } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
    expect(refused.body).to.deep.equal({ error: `no UserSpace belongs to ${person.name}@example.com; ask an administrator to create one` });
  });

  it('leaves nothing behind once the last finalizer in the namespace is gone', async () => {
    await admin.patch(RESOURCES.configMap, 'held', { metadata: { finalizers: null } }, { namespace: person.namespace, type: 'merge' });
    await eventually(async () => !(await exists(RESOURCES.namespace, person.namespace)), `namespace ${person.namespace} gone`, 90_000, 250);
    for (const r of [RESOURCES.workspace, RESOURCES.statefulSet, RESOURCES.service, RESOURCES.persistentVolumeClaim, RESOURCES.role, RESOURCES.roleBinding]) {
      expect((await admin.list(r, { namespace: person.namespace })).items.map((o) => o.metadata!.name), `${r.kind}s left in ${person.namespace}`).to.deep.equal([]);
    }
    expect(await clusterRbac()).to.deep.equal([]);
  });
});
