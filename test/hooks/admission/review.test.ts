import { expect } from 'chai';
import { answer, deny } from '../../../hooks/admission/review.js';
import { denialStatus } from '../../../hooks/admission/violations.js';

describe('AdmissionReview answers', () => {
  it('name the refusing rules for the figures but never send them to the API server', () => {
    const denial = denialStatus([
      { rule: 'ssh-key', field: 'spec.sshAuthorizedKeys[0]', message: 'is empty', advice: 'Paste your first key.' },
      { rule: 'quota', field: 'spec.resources.requests.cpu', message: 'exceeds', advice: 'Ask for less.' },
      { rule: 'ssh-key', field: 'spec.sshAuthorizedKeys[1]', message: 'is empty', advice: 'Paste your second key.' },
    ])!;
    // The quota refusal is dropped when the object is invalid anyway.
    expect(denial.rules).to.deep.equal(['ssh-key']);
    const response = deny('uid-1', denial);
    expect(response.rules).to.deep.equal(['ssh-key']);
    expect(answer(response).response).to.deep.equal({
      uid: 'uid-1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'spec.sshAuthorizedKeys[0]: is empty; spec.sshAuthorizedKeys[1]: is empty',
        details: {
          causes: [
            { reason: 'FieldValueInvalid', field: 'spec.sshAuthorizedKeys[0]', message: 'Paste your first key.' },
            { reason: 'FieldValueInvalid', field: 'spec.sshAuthorizedKeys[1]', message: 'Paste your second key.' },
          ],
        },
      },
    });
    expect(denialStatus([{ rule: 'quota', field: 'spec.resources.requests.cpu', message: 'exceeds', advice: 'Ask for less.' }])?.rules).to.deep.equal(['quota']);
  });
});
