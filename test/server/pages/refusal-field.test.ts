// Which field of the /new form a refusal is shown beside: the webhook reports the refused
// Workspace fields as causes, kube-apiserver passes them on (ToStatusErr keeps the details),
// and the page maps each back to the request field it came from (server/api/mapping.ts
// requestFieldOf). No word of the message is read.
import { expect } from 'chai';
import { deny } from '../../../hooks/admission/review.js';
import { denialStatus, type RuleId } from '../../../hooks/admission/violations.js';
import { KubeApiError } from '../../../kube/errors.js';
import { fieldOfRefusal, refusalBeside } from '../../../server/pages/new.js';
import { refusalOf } from '../../../server/pages/refusal.js';
import { SPACE_BEING_REMOVED } from '../../../koa/errors.js';
import { CLUSTER_FORBIDDEN_ADVICE } from '../../../web/templates/layout.js';
import { fixture } from '../../support/fixtures.js';

const GPU = 'nvidia.com/gpu';

/** The error den server's client raises for a webhook's denial of `field`, as kube-apiserver words it. */
function webhookRefusal(rule: RuleId, field: string, message: string): KubeApiError {
  const status = deny('uid-1', denialStatus([{ rule, field, message, advice: `Words for ${field}.` }])!).status!;
  return new KubeApiError(status.code, { ...status, message: `admission webhook "vworkspace.den.dev" denied the request: ${status.message}` }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
}

const CASES: [RuleId, string, string | undefined][] = [
  ['workspace-name', 'metadata.name', 'name'],
  ['image-exists', 'spec.imageRef.name', 'image'],
  ['quota', 'spec.storage', 'storage'],
  ['ssh-key', 'spec.sshAuthorizedKeys[0]', 'ssh_public_key'],
  ['ssh-key', 'spec.sshAuthorizedKeys', 'ssh_public_key'],
  ['quota', 'spec.resources.requests.cpu', 'cpu'],
  ['request-above-limit', 'spec.resources.limits.memory', 'memory'],
  ['quota', `spec.resources.limits.${GPU}`, 'gpu'],
  ['volume-mount', 'spec.volumes', undefined],
  ['namespace-owner', 'metadata.namespace', undefined],
];

/** A recorded answer of kube-apiserver as den server's client raises it. */
function recorded(name: string): KubeApiError {
  const { status, body, request } = fixture(name);
  return new KubeApiError(status, body, request.method, request.path);
}

describe("a refusal in the person's words (server/pages/refusal.ts)", () => {
  it('says a missing right means asking an administrator, and keeps the 403 naming the right to fold', () => {
    const forbidden = recorded('forbidden-create-workspace-like.json');
    expect(refusalOf(forbidden)).to.deep.equal({ said: CLUSTER_FORBIDDEN_ADVICE, cluster: forbidden.message, status: 403 });
  });

  it("says a full quota is a full quota, not a missing right, in the person's words", () => {
    const body = { ...fixture('forbidden-create-workspace-like.json').body };
    body.message = 'workspaces.den.dev "c" is forbidden: exceeded quota: svc-quota, requested: count/workspaces.den.dev=1, used: count/workspaces.den.dev=2, limited: count/workspaces.den.dev=2';
    const full = new KubeApiError(403, body, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalOf(full)).to.deep.equal({
      said: 'Your space has no room left in its quota for this (ResourceQuota svc-quota): it needs one more workspace while 2 of 2 exist. Delete what you no longer need, or ask an administrator for a larger quota.',
      cluster: body.message,
      status: 403,
    });
  });

  it('says a quota the cluster has not counted yet means a space still being set up, and keeps the 403 to fold', () => {
    const body = { ...fixture('forbidden-create-workspace-like.json').body };
    body.message = 'workspaces.den.dev "dev" is forbidden: status unknown for quota: svc-quota, resources: count/workspaces.den.dev';
    const uncounted = new KubeApiError(403, body, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalOf(uncounted)).to.deep.equal({ said: 'Nothing was created, because your space is still being set up: try again in a few seconds.', cluster: body.message, status: 403 });
  });

  it('says a change made elsewhere at the same moment saved nothing, and to reload', () => {
    const conflict = recorded('conflict-stale-update.json');
    expect(refusalOf(conflict)).to.deep.equal({
      said: 'It was changed elsewhere at the same moment, so nothing was saved: reload the page to see it as it is now, and try again.',
      cluster: conflict.message,
      status: 409,
    });
  });

  it('names a taken name beside the name, by the kind the cluster names', () => {
    const taken = recorded('alreadyexists-configmap.json');
    const { field, said } = refusalOf(taken);
    expect(field).to.equal('metadata.name');
    expect(said).to.match(/^There is already a configmap named \S+: pick another name\.$/);
  });

  it("shows the cluster's own schema refusal beside its field", () => {
    const invalid = recorded('invalid-name.json');
    expect(refusalOf(invalid)).to.include({ field: 'metadata.name', status: 400 });
  });

  it('says a space being removed in words, without the cluster text', () => {
    const terminating = new KubeApiError(403, { reason: 'Forbidden', message: 'workspaces.den.dev "dev" is forbidden: unable to create new content in namespace svc-alice because it is being terminated', details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace svc-alice is being terminated', field: 'metadata.namespace' }] } }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalOf(terminating)).to.deep.equal({ said: SPACE_BEING_REMOVED, status: 409 });
  });

  it('is no refusal when the cluster failed: the error page takes it', () => {
    expect(() => refusalOf(new KubeApiError(500, { message: 'etcd is away' }, 'GET', '/api/v1/pods'))).to.throw('etcd is away');
  });
});

describe('the field of the new-workspace form a refusal is shown beside', () => {
  for (const [rule, field, formField] of CASES) {
    it(`shows a refusal of ${field} ${formField ? `beside ${formField}` : 'above the form'}`, () => {
      expect(fieldOfRefusal(webhookRefusal(rule, field, 'is refused'), GPU)).to.equal(formField);
    });
  }

  it('shows an existing name beside the name', () => {
    const taken = new KubeApiError(409, { reason: 'AlreadyExists', message: 'workspaces.den.dev "dev" already exists', details: { name: 'dev', kind: 'workspaces' } }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(fieldOfRefusal(taken, GPU)).to.equal('name');
  });

  it("shows the refusing rule's words for a person beside the field, with the cluster's text to fold", () => {
    const status = deny('uid-1', denialStatus([{ rule: 'quota', field: 'spec.storage', message: 'exceeded quota of UserSpace "alice"', advice: 'This needs 60Gi of home volume storage, but your space has 50Gi left of 50Gi.' }])!).status!;
    const advised = new KubeApiError(status.code, { ...status, message: `admission webhook "vworkspace.den.dev" denied the request: ${status.message}` }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalBeside(advised, GPU)).to.deep.equal({
      field: 'storage',
      said: 'This needs 60Gi of home volume storage, but your space has 50Gi left of 50Gi.',
      cluster: 'admission webhook "vworkspace.den.dev" denied the request: spec.storage: exceeded quota of UserSpace "alice"',
    });
  });

  it('shows a refusal of a field the form does not have above the form, in the words the rule gave', () => {
    const status = deny('uid-1', denialStatus([{ rule: 'volume-mount', field: 'spec.volumes', message: 'must be a list of volumes', advice: 'Extra volumes are a list.' }])!).status!;
    const refused = new KubeApiError(status.code, { ...status, message: `admission webhook "vworkspace.den.dev" denied the request: ${status.message}` }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalBeside(refused, GPU)).to.deep.equal({ said: 'Extra volumes are a list.', cluster: 'admission webhook "vworkspace.den.dev" denied the request: spec.volumes: must be a list of volumes' });
  });

  it('does not guess a field from the words of a refusal that names none', () => {
    const quota = new KubeApiError(403, { reason: 'Forbidden', message: 'exceeded quota: svc-quota, requested: requests.storage=10Gi, used: requests.storage=0, limited: requests.storage=5Gi' }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(fieldOfRefusal(quota, GPU)).to.equal(undefined);
  });
});
