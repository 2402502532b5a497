// REST create's own environment variables (`env`, issue 34 part 4: a workspace adds to or
// overrides its person's variables) and a create asking for 0 GPUs.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv, KEY } from './support.js';

const CREATE = { name: 'dev', image: 'python', cpu: '1', memory: '2Gi', storage: '10Gi', ssh_public_key: KEY };

describe("REST create's env and a GPU count of 0", () => {
  let env: ApiTestEnv;
  let alice: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
  });
  afterEach(() => env.close());

  it('creates a Workspace asked for 0 GPUs with no GPU resource at all', async () => {
    const res = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, gpu: '0' } });
    expect(res.status).to.equal(201);
    expect(env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice').spec.resources).to.deep.equal({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } });
  });

  it('creates the Workspace with its own environment variables from env, taken literally', async () => {
    const res = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, env: { EDITOR: 'vim', NPM_TOKEN: 'override', PROMPT: '$(HOSTNAME) $$ $' } } });
    expect(res.status).to.equal(201);
    // The kubelet expands $(VAR) and reads $$ as $: every $ is doubled, so the shell sees what was sent.
    expect(env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice').spec.env).to.deep.equal([
      { name: 'EDITOR', value: 'vim' },
      { name: 'NPM_TOKEN', value: 'override' },
      { name: 'PROMPT', value: '$$(HOSTNAME) $$$$ $$' },
    ]);
  });

  it('answers 400 naming env\'s field and creates nothing for a variable a workspace cannot have', async () => {
    const before = env.api.resourceVersion;
    for (const [variables, message] of [
      [{ '1X': 'a' }, 'env: name "1X" is not an environment variable name: use letters, digits and "_", not starting with a digit'],
      [{ HOME: '/tmp' }, 'env: name HOME is set by Den in every workspace: choose another name'],
      [{ DEN_SOURCE_URL: 'x' }, 'env: name DEN_SOURCE_URL starts with DEN_, which Den reserves: choose another name'],
      [{ EDITOR: 7 }, 'env.EDITOR must be a string'],
      [{ BIG: 'x'.repeat(16_385) }, 'env.BIG must be at most 16384 bytes'],
      [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`V${i}`, 'x'])), 'env must have at most 50 variables (got 51)'],
      [['EDITOR=vim'], 'env must be an object of variable names to values'],
    ] as const) {
      const res = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, env: variables } });
      expect(res.status, message).to.equal(400);
      expect(res.body.error).to.contain(message);
    }
    expect(env.api.resourceVersion).to.equal(before);
  });
});
