#!/usr/bin/env node
// The `etax` command. It runs the build of the current sources (bin/build.js), building it first
// when the sources changed since the last one, so it never runs stale code. When no build can be
// made (no esbuild, a read-only checkout) it runs the TypeScript sources through tsx instead:
// the same program, only slower to start.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { build, buildEntry, sourceFingerprint } from './build.js';

// Node itself has started (src/platform/startup-phases.ts).
performance.mark('etax:node', { detail: process.memoryUsage.rss() });

async function builtEntry() {
  const fingerprint = sourceFingerprint();
  const entry = buildEntry(fingerprint);
  if (existsSync(entry)) return entry;
  try {
    return await build(fingerprint);
  } catch (error) {
    process.stderr.write(`etax: no build of the current sources (${error.message}); ` +
      'running them through tsx\n');
    return null;
  }
}

const entry = await builtEntry();
if (entry !== null) {
  // Stack traces name the TypeScript sources, through the build's source maps. Node reads the
  // map of every module it loads: about 60 ms of a start on a 2-core machine
  // (bench/RESULTS.md § Start-up), kept for stack traces an operator can follow.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
