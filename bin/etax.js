#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so `npx etax` works right after
// `npm install` with no build step and can never run stale compiled code.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
