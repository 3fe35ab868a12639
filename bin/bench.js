#!/usr/bin/env node
// `npm run bench`: the benchmark harness runs from TypeScript through tsx, like the CLI
// (bin/etax.js), so it always measures the current sources with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
