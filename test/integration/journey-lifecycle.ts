// The journey's last steps (journey.ts): a failing image, stop and start, the activity, deletion,
// a quota change, a password change and a person's removal.
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { homeClaimName, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, gone, UNPULLABLE_REGISTRY } from '../support/platform.js';
import { ssh } from './rest.js';
import type { JourneyState, Json } from './journey-state.js';

/** Defines these steps (mocha `it`s, in order) on the journey's shared state. */
export function lifecycleSteps(s: JourneyState): void {
  it('a workspace whose image cannot be pulled is Failed with a message naming the image, and Pending once its entry is gone', () =>
    s.diagnose(async () => {
      const { env, names, rest, aliceKey, admin, alice, cluster, aliceNs } = s;
      const entry = `${names.image}-broken`;
      const image = `${UNPULLABLE_REGISTRY}/den-journey/missing:${env.suffix}`;
      const name = `${names.workspace}-broken`;
      const added = await rest.call('POST', '/workspace-images', { body: { name: entry, image, display_name: 'Cannot be pulled' }, as: { session: admin } });
      expect(added.status, JSON.stringify(added.body)).to.equal(201);
      const created = await rest.call('POST', '/workspaces', { body: { name, image: entry, storage: '1Gi', ssh_public_key: aliceKey.publicKey }, as: { session: alice } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const failed = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${name}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Failed' && answer.body;
      }, `workspace ${name} Failed`, env.convergeMs);
      const readyCondition = failed.status.conditions.find((c: Json) => c.type === 'Ready');
      expect(readyCondition.status).to.equal('False');
      expect(readyCondition.message).to.include(image);
      const removed = await rest.call('DELETE', `/workspace-images/${entry}`, { as: { session: admin } });
      expect(removed.status).to.equal(204);
      const pending = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${name}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Pending' && answer.body;
      }, `workspace ${name} Pending`, env.convergeMs);
      expect(pending.status.conditions.find((c: Json) => c.type === 'ImageResolved')).to.include({ status: 'False' });
      const kept = await rest.call('DELETE', `/workspaces/${name}?delete_volume=false`, { as: { session: alice } });
      expect(kept.status, 'delete keeping the volume').to.equal(204);
      await eventually(() => gone(cluster(RESOURCES.workspace, name, aliceNs())), `workspace ${name} to go`, env.convergeMs);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(name), aliceNs());
    }));

  it('stopping suspends the workspace, keeps its home volume, and SSH is refused with a clear message', () =>
    s.diagnose(async () => {
      const { env, names, rest, aliceKey, alice, cluster, aliceNs } = s;
      const stopped = await rest.call('POST', `/workspaces/${names.workspace}/stop`, { as: { session: alice } });
      expect(stopped.status, JSON.stringify(stopped.body)).to.equal(200);
      expect(stopped.body.spec.running).to.equal(false);
      await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Suspended';
      }, `workspace ${names.workspace} Suspended`, env.convergeMs);
      const sts = await cluster(RESOURCES.statefulSet, names.workspace, aliceNs());
      expect(sts.spec.replicas).to.equal(0);
      await eventually(() => gone(cluster(RESOURCES.pod, `${names.workspace}-0`, aliceNs())), 'the pod to go', env.convergeMs);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), aliceNs());
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
      expect(result.code).to.equal(255);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include(`workspace ${names.workspace} is Suspended; start it first`);
      const logs = await rest.call('GET', `/workspaces/${names.workspace}/logs`, { as: { session: alice } });
      expect(logs.status).to.equal(409);
      expect(logs.body.error).to.include('start it first');
    }));

  it('starting again brings the workspace back to Running and SSH works again', () =>
    s.diagnose(async () => {
      const { env, names, rest, aliceKey, alice } = s;
      const started = await rest.call('POST', `/workspaces/${names.workspace}/start`, { as: { session: alice } });
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      expect(started.body.spec.running).to.equal(true);
      await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Running';
      }, `workspace ${names.workspace} Running again`, env.convergeMs);
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo back');
      expect(result.stdout, result.stderr).to.equal('back\n');
      expect(result.code).to.equal(0);
    }));

  it("the workspace's activity names alice for the stop and the start, an administrator reads it across namespaces, and alice may not", () =>
    s.diagnose(async () => {
      const { names, rest, admin, alice, aliceNs } = s;
      const mine = await rest.call('GET', `/workspaces/${names.workspace}/events?kind=lifecycle`, { as: { session: alice } });
      expect(mine.status, JSON.stringify(mine.body)).to.equal(200);
      expect(mine.body.items.map((e: Json) => `${e.reason} ${e.person}`)).to.include.members(['Started ' + names.alice, 'Stopped ' + names.alice]);
      expect(mine.body.items.find((e: Json) => e.reason === 'Stopped').message).to.equal(`Stopped by ${names.alice}; the home volume is kept.`);
      const all = await rest.call('GET', `/admin/activity?person=${names.alice}&workspace=${names.workspace}`, { as: { session: admin } });
      expect(all.status, JSON.stringify(all.body)).to.equal(200);
      expect(all.body.items.map((e: Json) => `${e.namespace} ${e.reason}`)).to.include.members([`${aliceNs()} Started`, `${aliceNs()} Stopped`]);
      const refused = await rest.call('GET', '/admin/activity', { as: { session: alice } });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include('cannot list resource "events"');
    }));

  it('deleting the workspace (delete_volume by default) removes it and its home volume', () =>
    s.diagnose(async () => {
      const { env, names, rest, alice, cluster, aliceNs } = s;
      const deleted = await rest.call('DELETE', `/workspaces/${names.workspace}`, { as: { session: alice } });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
      await eventually(async () => (await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } })).status === 404, 'GET to answer 404', env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), aliceNs())), 'the home PVC to go', env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.statefulSet, names.workspace, aliceNs())), 'the StatefulSet to go', env.convergeMs);
    }));

  it("the administrator changes a person's quota and the manager applies it to the namespace", () =>
    s.diagnose(async () => {
      const { env, names, rest, admin, alice, cluster, aliceNs } = s;
      const patched = await rest.call('PATCH', `/admin/quota/${names.alice}`, { body: { cpu: '2', workspaces: 2 }, as: { session: admin } });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.include({ cpu: '2', memory: '8Gi', storage: '50Gi', workspaces: 2 });
      await eventually(async () => {
        const quota = await cluster(RESOURCES.resourceQuota, 'svc-quota', aliceNs());
        return quota.spec.hard['requests.cpu'] === '2' && quota.spec.hard['count/workspaces.den.dev'] === '2';
      }, 'svc-quota to follow the new quota', env.convergeMs);
      // RBAC lets a person patch their own UserSpace (for their SSH keys); the validating webhook refuses the rest.
      const refused = await rest.call('PATCH', `/admin/quota/${names.alice}`, { body: { cpu: '64' }, as: { session: alice } });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.include('admission webhook "vuserspace.den.dev" denied the request').and.include('only an administrator may change');
      expect((await cluster(RESOURCES.userSpace, names.alice)).spec.quota.cpu).to.equal('2');
      const other = await rest.call('PATCH', `/admin/quota/${names.admin}`, { body: { cpu: '64' }, as: { session: alice } });
      expect(other.status).to.equal(403);
      expect(other.body.error).to.include(`cannot patch resource "userspaces" in API group "den.dev"`);
    }));

  it('a person changes their password: the old one stops working, the new one signs in', () =>
    s.diagnose(async () => {
      const { names, rest, alice } = s;
      const fresh = `${names.password} renewed`;
      const wrong = await rest.call('POST', '/profile/password', { body: { current_password: 'not it', new_password: fresh }, as: { session: alice } });
      expect(wrong.status).to.equal(400);
      const changed = await rest.call('POST', '/profile/password', { body: { current_password: names.password, new_password: fresh }, as: { session: alice } });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
      const old = await rest.call('POST', '/login', { body: { username: names.alice, password: names.password } });
      expect(old.status).to.equal(401);
      await rest.login(names.alice, fresh);
    }));

  it("the administrator deletes a person's UserSpace: the object at once, the namespace afterwards", () =>
    s.diagnose(async () => {
      const { env, names, rest, admin, cluster } = s;
      const deleted = await rest.call('DELETE', `/admin/userspaces/${names.bob}`, { as: { session: admin } });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
      await eventually(() => gone(cluster(RESOURCES.userSpace, names.bob)), `UserSpace ${names.bob} to go`, env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.namespace, userNamespace(names.bob))), `namespace ${userNamespace(names.bob)} to go`, env.convergeMs);
      const list = await rest.call('GET', '/admin/userspaces', { as: { session: admin } });
      expect(list.status).to.equal(200);
      const listed = list.body.items.map((u: KubeObject) => u.metadata?.name);
      expect(listed).to.include(names.alice).and.not.include(names.bob);
    }));
}
