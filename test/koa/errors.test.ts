// How REST answers a request the cluster refused because Den's own admission webhook did not
// answer (failurePolicy Fail): the Status as kube-apiserver 1.25 writes it, mapped to a 502 that
// says what happened and what to do, the cluster's words kept.
import { expect } from 'chai';
import { describeError, unansweredDenWebhook } from '../../koa/errors.js';
import { KubeApiError } from '../../kube/errors.js';

function internalError(message: string): KubeApiError {
  return new KubeApiError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'InternalError', code: 500 }, 'POST', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces');
}

const TIMED_OUT = 'Internal error occurred: failed calling webhook "mworkspace.den.dev": failed to call webhook: Post "https://127.0.0.1:40123/mutate-workspace?timeout=10s": context deadline exceeded';

describe('REST answers for a request refused because a webhook did not answer', () => {
  it("names den manager and what to do, keeping the cluster's words, as a 502", () => {
    expect(describeError(internalError(TIMED_OUT))).to.deep.equal({
      status: 502,
      message: `den manager did not answer the cluster's admission check (webhook mworkspace.den.dev), so the cluster refused the request rather than let it through unchecked; nothing was changed: try again shortly, and if it persists ask an administrator to check den manager (the cluster said: ${TIMED_OUT})`,
      headers: {},
    });
  });

  it("leaves another party's webhook and other failures to the plain 502", () => {
    const theirs = internalError('Internal error occurred: failed calling webhook "policy.example.com": failed to call webhook: Post "https://policy:443/": EOF');
    expect(unansweredDenWebhook(theirs)).to.equal(undefined);
    expect(describeError(theirs).message).to.equal(`the cluster API failed: ${theirs.message}`);
    expect(describeError(internalError('etcdserver: request timed out')).message).to.equal('the cluster API failed: etcdserver: request timed out');
  });

  it('does not read a denial (4xx) as an unanswered webhook', () => {
    const denied = new KubeApiError(400, { kind: 'Status', message: 'admission webhook "vworkspace.den.dev" denied the request: failed calling webhook "vworkspace.den.dev"', code: 400 }, 'POST', '/x');
    expect(unansweredDenWebhook(denied)).to.equal(undefined);
  });
});
