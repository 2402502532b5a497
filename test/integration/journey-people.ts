// The journey's first steps (journey.ts): people are added with den users add, the manager
// provisions their spaces, they sign in, and the administrator fills the catalog.
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { LABELS, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, runDen } from '../support/platform.js';
import type { JourneyState } from './journey-state.js';

/** Defines these steps (mocha `it`s, in order) on the journey's shared state. */
export function peopleSteps(s: JourneyState): void {
  it('den users add creates an administrator and two people from a password on stdin', () =>
    s.diagnose(async () => {
      const { env, names } = s;
      for (const [name, admin] of [[names.admin, true], [names.alice, false], [names.bob, false]] as const) {
        const args = ['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', env.kubeconfig, ...(admin ? ['--admin'] : [])];
        const result = await runDen(args, { stdin: `${names.password}\n` });
        expect(result.stderr, `den ${args.join(' ')}`).to.equal('');
        expect(result.code).to.equal(0);
        expect(result.stdout).to.include(`created UserSpace ${name}`).and.include(`role ${admin ? 'admin' : 'user'}`).and.include(`namespace ${userNamespace(name)}`);
      }
      const again = await runDen(['users', 'add', names.alice, '--owner', `${names.alice}@example.com`, '--password-stdin', '--kubeconfig', env.kubeconfig], { stdin: `${names.password}\n` });
      expect(again.code, 'adding the same person twice').to.equal(1);
      expect(again.stderr).to.include(`UserSpace ${names.alice} already exists; nothing was changed`);
    }));

  it("the manager provisions each person's namespace, quota and RBAC", () =>
    s.diagnose(async () => {
      const { env, names, cluster, aliceNs } = s;
      for (const name of [names.admin, names.alice, names.bob]) {
        const space = await eventually(async () => {
          const us = await cluster(RESOURCES.userSpace, name);
          return us.status?.phase === 'Ready' && us;
        }, `UserSpace ${name} Ready`, env.convergeMs);
        expect(space.status.namespace).to.equal(userNamespace(name));
        expect(space.metadata.labels?.[LABELS.role]).to.equal(name === names.admin ? 'admin' : 'user');
      }
      const ns = aliceNs();
      await cluster(RESOURCES.namespace, ns);
      const quota = await cluster(RESOURCES.resourceQuota, 'svc-quota', ns);
      expect(quota.spec.hard).to.include({ 'requests.cpu': '4', 'requests.memory': '8Gi', 'requests.storage': '50Gi' });
      const owner = await cluster(RESOURCES.roleBinding, 'svc-owner', ns);
      expect(owner.subjects).to.deep.include({ kind: 'ServiceAccount', name: 'session', namespace: ns });
      expect(owner.roleRef.name).to.equal('svc-workspace-user');
      const reader = await cluster(RESOURCES.roleBinding, 'svc-reader', ns);
      expect(reader.subjects).to.deep.include({ kind: 'ServiceAccount', name: 'session-readonly', namespace: ns });
      const clusterRole = await cluster(RESOURCES.clusterRole, `svc-userspace-${names.alice}`);
      expect(clusterRole.rules).to.deep.include({ apiGroups: ['den.dev'], resources: ['userspaces'], resourceNames: [names.alice], verbs: ['get', 'watch', 'patch'] });
    }));

  it('refuses a wrong password with 401 and no cookie', () =>
    s.diagnose(async () => {
      const { names, rest } = s;
      const answer = await rest.call('POST', '/login', { body: { username: names.alice, password: 'not the password' } });
      expect(answer.status).to.equal(401);
      expect(answer.body.error).to.be.a('string').and.not.equal('');
      expect(answer.headers.getSetCookie().filter((c) => c.startsWith('svc_session=') && !/svc_session=;/.test(c))).to.deep.equal([]);
    }));

  it('the administrator signs in and adds a catalog entry', () =>
    s.diagnose(async () => {
      const { env, names, rest, cluster } = s;
      const admin = (s.admin = await rest.login(names.admin, names.password));
      const session = await rest.call('GET', '/session', { as: { session: admin } });
      expect(session.status).to.equal(200);
      expect(session.body).to.include({ userspace: names.admin, namespace: userNamespace(names.admin), role: 'admin' });
      const entry = { name: names.image, image: env.workspaceImage, display_name: `Ubuntu (${env.suffix})`, tags: ['journey'] };
      const withoutCsrf = await rest.call('POST', '/workspace-images', { body: entry, as: { session: admin, csrf: false } });
      expect(withoutCsrf.status, 'a cookie request without X-CSRF-Token').to.equal(403);
      expect(withoutCsrf.body.error).to.include('X-CSRF-Token');
      const created = await rest.call('POST', '/workspace-images', { body: entry, as: { session: admin } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.spec).to.include({ image: env.workspaceImage, displayName: entry.display_name });
      const stored = await cluster(RESOURCES.workspaceImage, names.image);
      expect(stored.spec.image).to.equal(env.workspaceImage);
    }));

  it('a person signs in, sees the entry in the catalog and cannot change the catalog', () =>
    s.diagnose(async () => {
      const { env, names, rest, aliceNs } = s;
      const alice = (s.alice = await rest.login(names.alice, names.password));
      const catalog = await rest.call('GET', '/workspace-images', { as: { session: alice } });
      expect(catalog.status).to.equal(200);
      expect(catalog.body.items.map((i: KubeObject) => i.metadata?.name)).to.include(names.image);
      const refused = await rest.call('POST', '/workspace-images', { body: { name: `${names.image}-x`, image: env.workspaceImage }, as: { session: alice } });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session" cannot create resource "workspaceimages" in API group "den.dev"`);
    }));
}
