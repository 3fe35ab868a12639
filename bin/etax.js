#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so `npx etax` works right after
// `npm install` with no build step and can never run stale compiled code.
import { performance } from 'node:perf_hooks';
import { register } from 'tsx/esm/api';

// Node itself has started (src/cli/startup-phases.ts).
performance.mark('etax:node', { detail: process.memoryUsage.rss() });

register();
await import('../src/main.ts');
