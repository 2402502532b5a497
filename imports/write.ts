// Writes imports/k8s.cjs and its declarations from the installed cdk8s-plus-28
// (npm run k8s-imports): run after upgrading it, and when a child construct needs another kind.
import { writeFileSync } from 'node:fs';
import { K8S_IMPORTS_PATH, trimmedFromInstalled } from './trim.js';

const { module, declarations } = trimmedFromInstalled();
writeFileSync(K8S_IMPORTS_PATH, module);
writeFileSync(K8S_IMPORTS_PATH.replace(/\.cjs$/, '.d.cts'), declarations);
process.stdout.write(`wrote ${K8S_IMPORTS_PATH} and its declarations\n`);
