import { expect } from 'chai';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import { childOf, CONFIG, input, userSpace } from './inputs.js';

const quota = (q: Record<string, unknown>) => ({ quota: q });

describe('syncUserSpace quota and container defaults', () => {
  it('renders svc-quota from spec.quota, with workspaces as count/workspaces.den.dev and GPUs under the configured name', () => {
    const parent = userSpace({ spec: quota({ cpu: '6', memory: '12Gi', storage: '100Gi', gpu: 2, workspaces: 4 }) });
    const rq = childOf(syncUserSpace(input(parent, { config: { ...CONFIG, gpuResource: 'amd.com/gpu' } })).children, 'ResourceQuota', 'svc-quota');
    expect(rq.spec).to.deep.equal({
      hard: {
        'requests.cpu': '6',
        'requests.memory': '12Gi',
        'requests.storage': '100Gi',
        'requests.amd.com/gpu': '2',
        'count/workspaces.den.dev': '4',
      },
    });
  });

  it('forbids GPUs with a hard limit of 0 when spec.quota.gpu is left out', () => {
    const parent = userSpace({ spec: quota({ cpu: '1', memory: '1Gi', storage: '1Gi', workspaces: 1 }) });
    const rq = childOf(syncUserSpace(input(parent)).children, 'ResourceQuota', 'svc-quota');
    expect((rq.spec as { hard: Record<string, string> }).hard['requests.nvidia.com/gpu']).to.equal('0');
  });

  it('accepts a quantity written as a JSON number', () => {
    const parent = userSpace({ spec: quota({ cpu: 2, memory: '1Gi', storage: '1Gi', workspaces: 1 }) });
    const rq = childOf(syncUserSpace(input(parent)).children, 'ResourceQuota', 'svc-quota');
    expect((rq.spec as { hard: Record<string, string> }).hard['requests.cpu']).to.equal('2');
  });

  const defaults: { budget: { cpu: string; memory: string }; request: Record<string, string>; limit: Record<string, string> }[] = [
    { budget: { cpu: '4', memory: '8Gi' }, request: { cpu: '100m', memory: '128Mi' }, limit: { cpu: '1', memory: '1Gi' } },
    { budget: { cpu: '1', memory: '1Gi' }, request: { cpu: '100m', memory: '128Mi' }, limit: { cpu: '1', memory: '1Gi' } },
    { budget: { cpu: '500m', memory: '512Mi' }, request: { cpu: '100m', memory: '128Mi' }, limit: { cpu: '500m', memory: '512Mi' } },
    { budget: { cpu: '50m', memory: '64Mi' }, request: { cpu: '50m', memory: '64Mi' }, limit: { cpu: '50m', memory: '64Mi' } },
    { budget: { cpu: '0.1', memory: '1G' }, request: { cpu: '100m', memory: '128Mi' }, limit: { cpu: '0.1', memory: '1G' } },
    { budget: { cpu: '0', memory: '2Gi' }, request: { memory: '128Mi' }, limit: { memory: '1Gi' } },
    { budget: { cpu: '0', memory: '0' }, request: {}, limit: {} },
  ];
  for (const d of defaults) {
    it(`defaults a container to requests ${JSON.stringify(d.request)} and limits ${JSON.stringify(d.limit)} under a budget of ${d.budget.cpu} CPU and ${d.budget.memory}`, () => {
      const parent = userSpace({ spec: quota({ ...d.budget, storage: '1Gi', workspaces: 1 }) });
      const lr = childOf(syncUserSpace(input(parent)).children, 'LimitRange', 'svc-limits');
      const item: Record<string, unknown> = { type: 'Container' };
      if (Object.keys(d.limit).length) item.default = d.limit;
      if (Object.keys(d.request).length) item.defaultRequest = d.request;
      expect(lr.spec).to.deep.equal({ limits: [item] });
    });
  }
});
