import { expect } from 'chai';
import { overrunInWords, quotaOverrunOf, uncountedQuotaOf } from '../../kube/quota-refusal.js';

describe("ResourceQuota's refusals (kube/quota-refusal.ts)", () => {
  it('reads the quota and each overrun resource from the admission plugin\'s message', () => {
    const overrun = quotaOverrunOf('pods "dev-0" is forbidden: exceeded quota: svc-quota, requested: requests.cpu=2,requests.memory=1Gi, used: requests.cpu=3,requests.memory=8Gi, limited: requests.cpu=4,requests.memory=8Gi');
    expect(overrun).to.deep.equal({
      quota: 'svc-quota',
      resources: [
        { name: 'requests.cpu', requested: '2', used: '3', limited: '4' },
        { name: 'requests.memory', requested: '1Gi', used: '8Gi', limited: '8Gi' },
      ],
    });
    expect(overrunInWords(overrun!)).to.equal('2 CPU while 3 of 4 are in use; 1Gi memory while 8Gi of 8Gi are in use');
  });

  it('says counted objects as objects: one more workspace, two more pods', () => {
    const words = (message: string) => overrunInWords(quotaOverrunOf(message)!);
    expect(words('exceeded quota: svc-quota, requested: count/workspaces.den.dev=1, used: count/workspaces.den.dev=2, limited: count/workspaces.den.dev=2')).to.equal('one more workspace while 2 of 2 exist');
    expect(words('exceeded quota: q, requested: pods=2, used: pods=9, limited: pods=10')).to.equal('2 more pods while 9 of 10 exist');
    expect(words('exceeded quota: q, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1')).to.equal('1 nvidia.com/gpu while 1 of 1 are in use');
  });

  it('reads nothing into other refusals', () => {
    expect(quotaOverrunOf('pods "dev-0" is forbidden: maximum cpu usage per Container is 2, but limit is 4')).to.equal(undefined);
    expect(quotaOverrunOf('failed quota: svc-quota: must specify limits.cpu for: job')).to.equal(undefined);
    expect(quotaOverrunOf('workspaces.den.dev "w2" is forbidden: status unknown for quota: svc-quota, resources: count/workspaces.den.dev')).to.equal(undefined);
  });

  it('reads the quota and resources of a refusal before the quota controller counted them', () => {
    // As kube-apiserver 1.25 words it while status.used lacks a key of status.hard.
    expect(uncountedQuotaOf('workspaces.den.dev "w2" is forbidden: status unknown for quota: svc-quota, resources: count/workspaces.den.dev')).to.deep.equal({ quota: 'svc-quota', resources: ['count/workspaces.den.dev'] });
    expect(uncountedQuotaOf('pods "dev-0" is forbidden: status unknown for quota: svc-quota, resources: requests.cpu,requests.memory')).to.deep.equal({ quota: 'svc-quota', resources: ['requests.cpu', 'requests.memory'] });
    expect(uncountedQuotaOf('pods "dev-0" is forbidden: exceeded quota: svc-quota, requested: pods=1, used: pods=1, limited: pods=1')).to.equal(undefined);
  });
});
