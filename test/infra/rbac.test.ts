import { expect } from 'chai';
import { groupOf, resourceOf } from '../../kube/resources.js';
import { covers, NEEDS, type Process } from './rbac-needs.js';
import { manifests, find, allows, rulesOf, expand, describeRequest, everyRole, userSpaceChildren, requestsOf, grantsOf, type Request } from './rbac-install.js';

describe('install RBAC', () => {
  it('binds each process ServiceAccount to its own ClusterRole of the same name', () => {
    for (const name of ['den-manager', 'den-server', 'den-gateway']) {
      find('ServiceAccount', name, 'svc-system');
      const binding = find('ClusterRoleBinding', name);
      expect(binding.roleRef).to.deep.include({ kind: 'ClusterRole', name });
      expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name, namespace: 'svc-system' }]);
    }
  });

  it('uses no wildcard group, resource or verb and never grants escalate or impersonate', () => {
    for (const role of everyRole) {
      for (const rule of role.rules ?? []) {
        const where = `${role.kind} ${role.metadata.name}`;
        expect(rule.apiGroups, where).to.not.include('*');
        expect(rule.resources, where).to.not.include('*');
        expect(rule.resources.some((r) => r.endsWith('/*')), where).to.equal(false);
        expect(rule.verbs, where).to.not.include.members(['*']);
        expect(rule.verbs, where).to.not.include('escalate');
        expect(rule.verbs, where).to.not.include('impersonate');
      }
    }
  });

  describe('each process is granted exactly what its code calls (test/infra/rbac-needs.ts)', () => {
    for (const process of Object.keys(NEEDS) as Process[]) {
      it(`${process} is granted every call its code makes`, () => {
        for (const need of NEEDS[process]) {
          for (const req of requestsOf(need)) {
            expect(allows(rulesOf(process, req.namespace), req), `${describeRequest(req)} (${need.why})`).to.equal(true);
          }
        }
      });
    }

    /**
     * A grant is needed when a call needs it where the grant holds: a Role's in its namespace, a
     * ClusterRole's everywhere (a call to one namespace justifies it only with a stated reason).
     */
    function needed(process: Process, req: Request): boolean {
      return NEEDS[process].some((need) => {
        if (req.namespace !== undefined || need.scope === 'cluster') return covers(need, req);
        if (need.scope === 'any namespace') return covers(need, { ...req, namespace: 'svc-alice' });
        return need.clusterWide !== undefined && covers(need, { ...req, namespace: need.scope });
      });
    }

    for (const process of ['den-server', 'den-gateway'] as const) {
      it(`${process} is granted nothing its code does not call`, () => {
        for (const { req, role } of grantsOf(process)) expect(needed(process, req), `${role} grants ${describeRequest(req)}`).to.equal(true);
      });
    }

    it('den-manager is granted nothing beyond its calls and what the per-user Roles and ClusterRoles grant', () => {
      const held = userSpaceChildren()
        .filter((c) => c.kind === 'Role' || c.kind === 'ClusterRole')
        .flatMap((c) => (c.rules ?? []).flatMap(expand));
      const grantable = (req: Request) =>
        held.some((h) => h.group === req.group && h.resource === req.resource && h.verb === req.verb && (req.name === undefined || h.name === req.name));
      for (const { req, role } of grantsOf('den-manager')) {
        expect(needed('den-manager', req) || grantable(req), `${role} grants ${describeRequest(req)}`).to.equal(true);
      }
    });

    it('the check notices a grant no code needs and a call no rule grants', () => {
      expect(needed('den-gateway', { verb: 'delete', group: 'den.dev', resource: 'workspaces' })).to.equal(false);
      expect(needed('den-server', { verb: 'get', group: '', resource: 'secrets' })).to.equal(false);
      expect(needed('den-manager', { verb: 'list', group: 'discovery.k8s.io', resource: 'endpointslices' })).to.equal(true);
      expect(needed('den-manager', { verb: 'get', group: '', resource: 'secrets' })).to.equal(false);
      expect(allows(rulesOf('den-manager', 'svc-alice'), { verb: 'update', group: '', resource: 'secrets', name: 'den-webhook-tls', namespace: 'svc-alice' })).to.equal(false);
    });
  });

  describe('den-gateway', () => {
    const cluster = rulesOf('den-gateway', undefined);
    const system = rulesOf('den-gateway', 'svc-system');

    it('has no rule that reaches secrets, anywhere', () => {
      for (const rule of [...cluster, ...system]) expect(rule.resources).to.not.include('secrets');
    });

    it('cannot change a workspace spec, list pods or touch anything else', () => {
      const refused: Request[] = [
        { group: 'den.dev', resource: 'workspaces', verb: 'update' },
        { group: 'den.dev', resource: 'workspaces', verb: 'patch' },
        { group: 'den.dev', resource: 'workspaces', verb: 'delete' },
        { group: '', resource: 'pods', verb: 'list' },
        { group: '', resource: 'pods', verb: 'delete' },
        { group: '', resource: 'secrets', verb: 'get' },
        { group: 'den.dev', resource: 'userspaces', verb: 'get' },
        { group: '', resource: 'serviceaccounts', verb: 'get' },
      ];
      for (const req of refused) expect(allows(cluster, req), describeRequest(req)).to.equal(false);
    });

    it('opens no exec or port forward with its own identity, anywhere: sessions run as the owner', () => {
      for (const rules of [cluster, system, rulesOf('den-gateway', 'svc-alice')]) {
        for (const resource of ['pods/exec', 'pods/portforward', 'pods/attach']) {
          for (const verb of ['create', 'get']) expect(allows(rules, { group: '', resource, verb }), `${verb} ${resource}`).to.equal(false);
        }
      }
    });

    it("mints tokens for the owners' session ServiceAccount and for no other", () => {
      const mint = (name?: string): boolean => allows(cluster, { group: '', resource: 'serviceaccounts/token', verb: 'create', ...(name ? { name } : {}) });
      expect(mint('session')).to.equal(true);
      expect(mint('session-readonly')).to.equal(false);
      expect(mint('workspace')).to.equal(false);
      expect(mint('den-gateway')).to.equal(false);
      expect(mint()).to.equal(false);
    });
  });

  describe('den-server', () => {
    const cluster = rulesOf('den-server', undefined);
    const system = rulesOf('den-server', 'svc-system');

    it('manages secrets in svc-system only', () => {
      for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete']) {
        expect(allows(system, { group: '', resource: 'secrets', verb }), verb).to.equal(true);
      }
      for (const rule of cluster) expect(rule.resources).to.not.include('secrets');
      expect(rulesOf('den-server', 'svc-alice').some((r) => r.resources.includes('secrets'))).to.equal(false);
    });

    it('mints tokens for session and session-readonly and for no other ServiceAccount', () => {
      const mint = (name?: string): boolean =>
        allows(cluster, { group: '', resource: 'serviceaccounts/token', verb: 'create', ...(name ? { name } : {}) });
      expect(mint('session')).to.equal(true);
      expect(mint('session-readonly')).to.equal(true);
      expect(mint('workspace')).to.equal(false);
      expect(mint('den-manager')).to.equal(false);
      expect(mint()).to.equal(false);
    });

    it('reads userspaces and cannot write workspaces or userspaces with its own identity', () => {
      expect(allows(cluster, { group: 'den.dev', resource: 'userspaces', verb: 'list' })).to.equal(true);
      for (const verb of ['create', 'update', 'patch', 'delete']) {
        expect(allows(cluster, { group: 'den.dev', resource: 'userspaces', verb }), verb).to.equal(false);
        expect(allows(cluster, { group: 'den.dev', resource: 'workspaces', verb }), verb).to.equal(false);
      }
      expect(allows(cluster, { group: '', resource: 'pods/exec', verb: 'create' })).to.equal(false);
    });
  });

  describe('den-manager', () => {
    const cluster = rulesOf('den-manager', undefined);
    const system = rulesOf('den-manager', 'svc-system');

    it('may create every child of a UserSpace, including its Roles and bindings, without escalate', () => {
      const children = userSpaceChildren();
      expect(children.map((c) => c.kind)).to.include.members(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Secret']);

      const roles = new Map(children.filter((c) => c.kind === 'Role' || c.kind === 'ClusterRole').map((r) => [`${r.kind}/${r.metadata.name}`, r]));
      for (const child of children) {
        const type = resourceOf(child.apiVersion, child.kind);
        if (!type) throw new Error(`unknown child kind ${child.kind}`);
        const create: Request = { group: groupOf(child.apiVersion), resource: type.plural, verb: 'create' };
        expect(allows(cluster, create), describeRequest(create)).to.equal(true);
        expect(allows(cluster, { ...create, verb: 'patch' }), `patch ${type.plural}`).to.equal(true);

        // The API server refuses a Role granting what its creator does not hold.
        for (const rule of child.rules ?? []) {
          for (const req of expand(rule)) {
            expect(allows(cluster, req), `${child.metadata.name} grants ${describeRequest(req)}`).to.equal(true);
          }
        }
        // ...and a binding to a role whose permissions the creator does not hold, unless it may bind that role.
        if (child.roleRef) {
          const ref = child.roleRef;
          const rendered = roles.get(`${ref.kind}/${ref.name}`);
          const holdsAll = rendered !== undefined && (rendered.rules ?? []).flatMap(expand).every((req) => allows(cluster, req));
          const bind: Request = {
            group: 'rbac.authorization.k8s.io',
            resource: ref.kind === 'Role' ? 'roles' : 'clusterroles',
            verb: 'bind',
            name: ref.name,
          };
          expect(holdsAll || allows(cluster, bind), `${child.metadata.name} binds ${ref.kind} ${ref.name}`).to.equal(true);
        }
      }
    });

    it('may bind exactly the built-in edit and den-admin ClusterRoles and the two per-user Roles by name, and escalate nothing', () => {
      const bindRules = cluster.filter((r) => r.verbs.includes('bind'));
      expect(bindRules).to.deep.equal([
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['bind'],
          resourceNames: ['edit', 'den-admin'],
        },
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles'],
          verbs: ['bind'],
          resourceNames: ['svc-workspace-user', 'svc-workspace-reader'],
        },
      ]);
      expect(cluster.filter((r) => r.verbs.includes('escalate'))).to.deep.equal([]);
    });

    it('updates only the den-webhooks configurations, and watches them by name', () => {
      for (const resource of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
        const group = 'admissionregistration.k8s.io';
        expect(allows(cluster, { group, resource, verb: 'update', name: 'den-webhooks' })).to.equal(true);
        for (const verb of ['list', 'watch']) {
          // kube-apiserver names a list or watch by its metadata.name field selector.
          expect(allows(cluster, { group, resource, verb, name: 'den-webhooks' }), verb).to.equal(true);
          expect(allows(cluster, { group, resource, verb }), `${verb} of every configuration`).to.equal(false);
          expect(allows(cluster, { group, resource, verb, name: 'other' }), verb).to.equal(false);
        }
        expect(allows(cluster, { group, resource, verb: 'update', name: 'other' })).to.equal(false);
        expect(allows(cluster, { group, resource, verb: 'create' })).to.equal(false);
        expect(allows(cluster, { group, resource, verb: 'delete', name: 'den-webhooks' })).to.equal(false);
      }
    });

    it('takes the den-manager Lease in svc-system only', () => {
      const group = 'coordination.k8s.io';
      for (const verb of ['get', 'update']) {
        expect(allows(system, { group, resource: 'leases', verb, name: 'den-manager' }), verb).to.equal(true);
        expect(allows(system, { group, resource: 'leases', verb, name: 'other' }), verb).to.equal(false);
      }
      expect(allows(system, { group, resource: 'leases', verb: 'create' })).to.equal(true);
      expect(allows(cluster, { group, resource: 'leases', verb: 'create' })).to.equal(false);
      expect(allows(rulesOf('den-manager', 'svc-alice'), { group, resource: 'leases', verb: 'create' })).to.equal(false);
    });

    it('writes the status of UserSpaces, Workspaces and ImageRegistries, and cannot touch the webhook certificate elsewhere', () => {
      for (const plural of ['workspaces', 'userspaces', 'imageregistries']) {
        expect(allows(cluster, { group: 'den.dev', resource: `${plural}/status`, verb: 'update' }), plural).to.equal(true);
      }
      expect(allows(system, { group: '', resource: 'secrets', verb: 'update', name: 'den-webhook-tls' })).to.equal(true);
      expect(allows(system, { group: '', resource: 'secrets', verb: 'update', name: 'den-server-session-x' })).to.equal(false);
      expect(allows(cluster, { group: '', resource: 'secrets', verb: 'get', name: 'den-webhook-tls' })).to.equal(false);
    });

    it('syncs registries: reads ImageRegistries, writes only their status, and creates, patches and deletes WorkspaceImages', () => {
      for (const verb of ['get', 'list', 'watch']) expect(allows(cluster, { group: 'den.dev', resource: 'imageregistries', verb }), verb).to.equal(true);
      for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
        expect(allows(cluster, { group: 'den.dev', resource: 'imageregistries', verb }), verb).to.equal(false);
      }
      expect(allows(cluster, { group: 'den.dev', resource: 'imageregistries/status', verb: 'update' })).to.equal(true);
      expect(allows(cluster, { group: 'den.dev', resource: 'imageregistries/status', verb: 'patch' })).to.equal(false);
      for (const verb of ['create', 'patch', 'delete']) expect(allows(cluster, { group: 'den.dev', resource: 'workspaceimages', verb }), verb).to.equal(true);
      for (const verb of ['update', 'deletecollection']) expect(allows(cluster, { group: 'den.dev', resource: 'workspaceimages', verb }), verb).to.equal(false);
      expect(allows(cluster, { group: 'den.dev', resource: 'workspaceimages/status', verb: 'update' })).to.equal(false);
      // Credentials are never in the cluster: the manager's secret rights stay what they were.
      expect(allows(system, { group: '', resource: 'secrets', verb: 'get', name: 'ecr-credentials' })).to.equal(false);
    });
  });

  describe('den-admin', () => {
    const admin = find('ClusterRole', 'den-admin').rules ?? [];

    it('has full CRUD on the four den.dev kinds and may use every catalog entry', () => {
      for (const plural of ['workspaces', 'workspaceimages', 'userspaces', 'imageregistries']) {
        for (const verb of ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']) {
          expect(allows(admin, { group: 'den.dev', resource: plural, verb }), `${verb} ${plural}`).to.equal(true);
        }
      }
      expect(allows(admin, { group: 'den.dev', resource: 'workspaceimages', verb: 'use' })).to.equal(true);
    });

    it('reads pods, logs, events and PVCs cluster-wide and lists namespaces, without writing them (but events) or reading secrets', () => {
      for (const resource of ['pods', 'pods/log', 'events', 'persistentvolumeclaims', 'namespaces']) {
        expect(allows(admin, { group: '', resource, verb: 'list' }), resource).to.equal(true);
      }
      for (const resource of ['pods', 'pods/log', 'persistentvolumeclaims', 'namespaces']) {
        expect(allows(admin, { group: '', resource, verb: 'create' }), resource).to.equal(false);
      }
      for (const resource of ['pods', 'pods/log', 'events', 'namespaces']) {
        expect(allows(admin, { group: '', resource, verb: 'delete' }), resource).to.equal(false);
      }
      expect(admin.some((r) => r.resources.includes('secrets'))).to.equal(false);
      expect(admin.some((r) => r.resources.includes('pods/exec'))).to.equal(false);
    });

    it('may create and patch Events anywhere, so starting, stopping or deleting someone\'s workspace is recorded as the administrator', () => {
      for (const verb of ['create', 'patch']) expect(allows(admin, { group: '', resource: 'events', verb }), verb).to.equal(true);
      for (const verb of ['update', 'delete']) expect(allows(admin, { group: '', resource: 'events', verb }), verb).to.equal(false);
    });

    it('may delete a home PVC, so deleting any workspace through REST removes its volume too', () => {
      expect(allows(admin, { group: '', resource: 'persistentvolumeclaims', verb: 'delete' })).to.equal(true);
      expect(allows(admin, { group: '', resource: 'persistentvolumeclaims', verb: 'update' })).to.equal(false);
    });

    it('is bound to nobody by the chart: the manager binds administrators', () => {
      const bindings = manifests.filter((m) => m.roleRef?.name === 'den-admin');
      expect(bindings).to.deep.equal([]);
    });
  });
});
