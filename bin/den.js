#!/usr/bin/env node
// Development entry point: runs the TypeScript sources through tsx.
// The container image runs the compiled `build/cli/den.js` instead.
import { register } from 'tsx/esm/api';

register();
await import('../cli/den.ts');
