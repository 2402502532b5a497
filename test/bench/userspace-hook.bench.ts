// Time of one UserSpace sync hook call, per UserSpace, in the situations the loop meets: a
// first render (nothing observed), a converged UserSpace (every child observed), one with two
// mirrored pull Secrets and the admin binding, and an invalid spec (no render: the observed
// children are held). Every call gets its own UserSpace name, as 2,000 UserSpaces would.
import { syncUserSpace } from '../../hooks/userspace/sync.js';
import type { UserSpaceSyncInput } from '../../hooks/userspace/types.js';
import { input, observe, pullSecret, related, userSpace } from '../hooks/userspace/inputs.js';
import { mean, quantile, timeEach } from './stats.js';

const CALLS = 2000;
const WARMUP = 300;

type Scenario = (name: string) => UserSpaceSyncInput;

const converged = (name: string, labels: Record<string, string> = {}, rel = related()) =>
  observe(syncUserSpace(input(userSpace({ name, labels }), { related: rel })).children);

const withSecrets = () => related({ pullSecrets: [pullSecret('regcred'), pullSecret('mirror-ecr')] });

const scenarios: [string, Scenario][] = [
  ['first render (nothing observed)', (name) => input(userSpace({ name }))],
  ['converged (14 children observed)', (name) => input(userSpace({ name }), { children: converged(name) })],
  [
    'admin, ClusterEgress, 2 pull Secrets, converged',
    (name) => {
      const labels = { 'den.dev/role': 'admin' };
      const parent = userSpace({ name, labels, spec: { networkPolicy: 'ClusterEgress' } });
      return input(parent, { related: withSecrets(), children: converged(name, labels, withSecrets()) });
    },
  ],
  [
    'invalid quota (children held, no render)',
    (name) => input(userSpace({ name, spec: { quota: { cpu: 'lots', memory: '1Gi', storage: '1Gi', workspaces: 1 } } }), { children: converged(name) }),
  ],
];

export async function run(): Promise<string> {
  const rows: string[] = [];
  for (const [label, scenario] of scenarios) {
    const inputs = Array.from({ length: CALLS }, (_, i) => scenario(`u${String(i).padStart(4, '0')}`));
    const times = timeEach(inputs, syncUserSpace, WARMUP);
    const average = mean(times);
    const ms = (v: number) => v.toFixed(3);
    rows.push(`| ${label} | ${CALLS} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.99))} | ${ms(average)} | ${Math.round(1000 / average)} |`);
  }
  return [
    'UserSpace sync hook, one call per UserSpace (pure function: validation, cdk8s render, status).',
    'p99 includes garbage-collection pauses (2,000 inputs are kept alive) and whatever else the machine runs.',
    '',
    '| scenario | calls | median ms | p99 ms | mean ms | UserSpaces/s (one core) |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
