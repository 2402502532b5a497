// The whole rendered child set of one UserSpace, compared with a committed snapshot, so every
// change to what reaches the cluster shows up in review. Regenerate: UPDATE_SNAPSHOTS=1 npx mocha <this file>.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import { input, pullSecret, related, userSpace } from './inputs.js';

const SNAPSHOT = new URL('./snapshots/userspace-children.json', import.meta.url);

describe('syncUserSpace snapshot', () => {
  it('renders the committed child set for an administrator with ClusterEgress, a GPU and a pull Secret', () => {
    const parent = userSpace({
      name: 'carol',
      labels: { 'den.dev/role': 'admin' },
      spec: { owner: 'carol@example.com', quota: { cpu: '8', memory: '16Gi', storage: '200Gi', gpu: 1, workspaces: 5 }, networkPolicy: 'ClusterEgress' },
    });
    const { children } = syncUserSpace(input(parent, { related: related({ pullSecrets: [pullSecret('regcred')] }) }));
    const rendered = JSON.parse(JSON.stringify(children)) as unknown;
    if (process.env.UPDATE_SNAPSHOTS === '1') {
      mkdirSync(new URL('./snapshots/', import.meta.url), { recursive: true });
      writeFileSync(SNAPSHOT, `${JSON.stringify(rendered, null, 2)}\n`);
    }
    expect(rendered).to.deep.equal(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });
});
