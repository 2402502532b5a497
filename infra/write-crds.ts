// Writes the CRDs to infra/crds/den.dev.yaml, the input of `cdk8s import` (npm run import).
import { writeFileSync } from 'node:fs';
import { CRDS_YAML_PATH, crdsYaml } from './crds/yaml.js';

writeFileSync(CRDS_YAML_PATH, crdsYaml());
process.stdout.write(`wrote ${CRDS_YAML_PATH}\n`);
