import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { denCrds } from '../../contract/index.js';
import { CRDS_YAML_PATH, crdsYaml } from '../../contract/yaml.js';

const ROOT = resolve(import.meta.dirname, '../..');
const REGENERATE = 'run `npm run crds` and commit contract/den.dev.yaml';

describe('generated CRD files', () => {
  it(`${CRDS_YAML_PATH} holds exactly denCrds()`, async () => {
    const committed = await readFile(join(ROOT, CRDS_YAML_PATH), 'utf8');
    const documents = parseAllDocuments(committed).map((d) => d.toJS());
    expect(documents, REGENERATE).to.deep.equal(denCrds());
    expect(committed, REGENERATE).to.equal(crdsYaml());
  });
});
