// The help texts say what the code does: where a kubeconfig is looked up, what `den server` serves.
import { expect } from 'chai';
import { runDen } from '../support/platform.js';

const LOOKUP = 'empty: KUBECONFIG, else ~/.kube/config, else the in-cluster ServiceAccount';

describe('den help wording', function () {
  this.timeout(120_000);

  for (const args of [['manager', '--help'], ['server', '--help'], ['gateway', '--help'], ['users', '--help']]) {
    it(`den ${args.join(' ')} says a missing --kubeconfig means KUBECONFIG, then ~/.kube/config, then the in-cluster ServiceAccount`, async () => {
      const { code, stdout } = await runDen(args, { timeoutMs: 60_000 });
      expect(code).to.equal(0);
      const lines = stdout.split('\n');
      const flag = lines.findIndex((line) => line.startsWith('  --kubeconfig '));
      expect(lines[flag + 1]).to.match(new RegExp(`; ${LOOKUP.replace(/[.*+?^${}()|[\]\\/~]/g, '\\$&')}$`));
    });
  }

  it('den --help describes the server as the web UI and REST API', async () => {
    const { code, stdout } = await runDen(['--help'], { timeoutMs: 60_000 });
    expect(code).to.equal(0);
    expect(stdout).to.match(/^ {2}server +web UI and REST API: /m);
  });
});
