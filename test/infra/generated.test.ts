import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { denCrds } from '../../infra/crds/index.js';
import { CRDS_YAML_PATH, crdsYaml } from '../../infra/crds/yaml.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const REGENERATE = 'run `npm run import` and commit infra/crds/den.dev.yaml and imports/';

describe('generated CRD files', () => {
  it(`${CRDS_YAML_PATH} holds exactly denCrds()`, async () => {
    const committed = await readFile(join(ROOT, CRDS_YAML_PATH), 'utf8');
    const documents = parseAllDocuments(committed).map((d) => d.toJS());
    expect(documents, REGENERATE).to.deep.equal(denCrds());
    expect(committed, REGENERATE).to.equal(crdsYaml());
  });

  it('imports/ is what `cdk8s import` makes of the CRDs today', async function () {
    this.timeout(60_000);
    const dir = await mkdtemp(join(tmpdir(), 'den-import-'));
    try {
      // Imported from a fresh rendering, not the committed YAML, so either being stale fails.
      await writeFile(join(dir, 'den.dev.yaml'), crdsYaml());
      await run(
        join(ROOT, 'node_modules/.bin/cdk8s'),
        ['import', 'den.dev.yaml', '--language', 'typescript', '--output', 'imports', '--no-save', '--no-check-upgrade'],
        { cwd: dir },
      );
      const fresh = (await readdir(join(dir, 'imports'))).sort();
      const committed = (await readdir(join(ROOT, 'imports'))).sort();
      expect(committed, REGENERATE).to.deep.equal(fresh);
      for (const file of fresh) {
        const want = await readFile(join(dir, 'imports', file), 'utf8');
        const have = await readFile(join(ROOT, 'imports', file), 'utf8');
        expect(have === want, `imports/${file} is stale: ${REGENERATE}`).to.equal(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
