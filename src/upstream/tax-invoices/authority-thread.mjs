// The entry of the sandbox tax authority's thread (authority-checks.ts). It lowers the thread's
// priority first (platform/background-priority.mjs). A worker thread starts without the loader
// the sources run under (the build, tsx or the test runner), so it registers tsx to load the
// TypeScript module that does the work.
import { register } from 'tsx/esm/api';
import { lowerThreadPriority } from '../../platform/background-priority.mjs';

lowerThreadPriority();
register();
await import('./authority-thread.ts');
