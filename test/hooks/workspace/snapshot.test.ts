// The rendered StatefulSet of a workspace that uses every field, compared with the committed
// snapshot. Run with UPDATE_SNAPSHOTS=1 to rewrite it after an intended change.
import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import { input, workspace, workspaceImage } from './inputs.js';

const SNAPSHOT = new URL('./__snapshots__/statefulset.json', import.meta.url);

function renderedStatefulSet(): unknown {
  const parent = workspace({
    resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
    env: [{ name: 'EDITOR', value: 'vim' }, { name: 'GIT_TOKEN', valueFrom: { secretKeyRef: { name: 'git', key: 'token' } } }],
    envFrom: [{ configMapRef: { name: 'tooling' } }],
    volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '2Gi' } }],
    volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } },
    observability: { logsEnabled: true, metricsEnabled: false },
  });
  const image = workspaceImage({
    imagePullPolicy: 'Always',
    shell: '/bin/zsh',
    homePath: '/home/dev',
    runAsUser: 1001,
    placement: {
      nodeSelector: { 'den.dev/pool': 'workspaces' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'workspaces', effect: 'NoSchedule' }],
    },
    imagePullSecretRef: { name: 'ecr-pull' },
  });
  return syncWorkspace(input({ parent, image })).children.find((c) => c.kind === 'StatefulSet');
}

describe('rendered StatefulSet snapshot', () => {
  it('matches test/hooks/workspace/__snapshots__/statefulset.json', () => {
    const actual = renderedStatefulSet();
    if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(actual, null, 2)}\n`);
    expect(existsSync(SNAPSHOT), 'snapshot missing: run with UPDATE_SNAPSHOTS=1').to.equal(true);
    expect(actual).to.deep.equal(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });
});
