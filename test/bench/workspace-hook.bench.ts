// Time of one Workspace sync hook call, per Workspace, in the situations the loop meets most:
// a first render, a steady Running workspace, a failing pod, and a missing image (no render,
// status only). Every call gets its own Workspace name, as 2,000 Workspaces would.
import { syncWorkspace } from '../../hooks/workspace/sync.js';
import type { WorkspaceHookInput } from '../../hooks/workspace/types.js';
import type { KubeObject } from '../../kube/client.js';
import {
  POD_STATUS,
  input,
  observedService,
  observedStatefulSet,
  pod,
  workspace,
  type InputOptions,
} from '../hooks/workspace/inputs.js';
import { mean, quantile, timeEach } from './stats.js';

const CALLS = 2000;
const WARMUP = 300;
/** About 2 s a run: cheap enough to run more often than the others. */
export const repetitions = 7;

function renamed(obj: KubeObject, name: string, podName?: string): KubeObject {
  const labels = obj.metadata?.labels ? { ...obj.metadata.labels, 'den.dev/workspace': name } : undefined;
  return { ...obj, metadata: { ...obj.metadata, name: podName ?? name, ...(labels ? { labels } : {}) } };
}

function inputs(scenario: (name: string) => InputOptions): WorkspaceHookInput[] {
  return Array.from({ length: CALLS }, (_, i) => {
    const name = `ws-${String(i).padStart(4, '0')}`;
    return input({ parent: renamed(workspace({ env: [{ name: 'EDITOR', value: 'vim' }] }), name), ...scenario(name) });
  });
}

const scenarios: [string, (name: string) => InputOptions][] = [
  ['first render (nothing observed)', () => ({})],
  [
    'Running (Service, StatefulSet, ready pod observed)',
    (name) => ({
      service: renamed(observedService(), name),
      statefulSet: renamed(observedStatefulSet(1, 1), name),
      pods: [renamed(pod(POD_STATUS.ready()), name, `${name}-0`)],
    }),
  ],
  [
    'Failed (ImagePullBackOff pod)',
    (name) => ({
      service: renamed(observedService(), name),
      statefulSet: renamed(observedStatefulSet(), name),
      pods: [renamed(pod(POD_STATUS.imagePullBackOff()), name, `${name}-0`)],
    }),
  ],
  ['missing WorkspaceImage (status only, no render)', () => ({ image: null })],
];

export async function run(): Promise<string> {
  const rows: { name: string; median: number; p99: number; mean: number }[] = [];
  for (const [name, scenario] of scenarios) {
    const batch = inputs(scenario);
    const times = timeEach(batch, syncWorkspace, WARMUP);
    rows.push({ name, median: quantile(times, 0.5), p99: quantile(times, 0.99), mean: mean(times) });
  }
  const baseline = rows[rows.length - 1].median;
  const lines = [
    `| situation (${CALLS} Workspaces, one call each) | median ms | p99 ms | mean ms | Workspaces/s | median vs status only |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.median.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.mean.toFixed(3)} | ${Math.round(1000 / r.mean)} | ${(r.median / baseline).toFixed(1)}x |`,
    ),
  ];
  return lines.join('\n');
}
