// Writes the CRDs to contract/den.dev.yaml (npm run crds), for `kubectl apply` by hand and review.
import { writeFileSync } from 'node:fs';
import { CRDS_YAML_PATH, crdsYaml } from './yaml.js';

writeFileSync(CRDS_YAML_PATH, crdsYaml());
process.stdout.write(`wrote ${CRDS_YAML_PATH}\n`);
