// Which field of the /new form a refusal is shown beside: the webhook reports the refused
// Workspace fields as causes, kube-apiserver passes them on (ToStatusErr keeps the details),
// and the page maps each back to the request field it came from (server/api/mapping.ts
// requestFieldOf). No word of the message is read.
import { expect } from 'chai';
import { deny } from '../../../hooks/admission/review.js';
import { denialStatus, type RuleId } from '../../../hooks/admission/violations.js';
import { KubeApiError } from '../../../kube/errors.js';
import { fieldOfRefusal, refusalBeside } from '../../../server/pages/new.js';

const GPU = 'nvidia.com/gpu';

/** The error den server's client raises for a webhook's denial of `field`, as kube-apiserver words it. */
function webhookRefusal(rule: RuleId, field: string, message: string): KubeApiError {
  const status = deny('uid-1', denialStatus([{ rule, field, message }])!).status!;
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

  it("shows the refusing rule's words for a person beside the field, and the cluster's words when the rule has none", () => {
    const status = deny('uid-1', denialStatus([{ rule: 'quota', field: 'spec.storage', message: 'exceeded quota of UserSpace "alice"', advice: 'This needs 60Gi of home volume storage, but your space has 50Gi left of 50Gi.' }])!).status!;
    const advised = new KubeApiError(status.code, { ...status, message: `admission webhook "vworkspace.den.dev" denied the request: ${status.message}` }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(refusalBeside(advised, GPU)).to.deep.equal({ field: 'storage', said: 'This needs 60Gi of home volume storage, but your space has 50Gi left of 50Gi.' });
    expect(refusalBeside(webhookRefusal('volume-mount', 'spec.volumes', 'is refused'), GPU)).to.deep.equal({ said: 'admission webhook "vworkspace.den.dev" denied the request: spec.volumes: is refused' });
  });

  it('does not guess a field from the words of a refusal that names none', () => {
    const quota = new KubeApiError(403, { reason: 'Forbidden', message: 'exceeded quota: svc-quota, requested: requests.storage=10Gi, used: requests.storage=0, limited: requests.storage=5Gi' }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
    expect(fieldOfRefusal(quota, GPU)).to.equal(undefined);
  });
});
