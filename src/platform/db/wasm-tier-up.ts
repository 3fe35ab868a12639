import { setFlagsFromString } from 'node:v8';

// PGlite is PostgreSQL compiled to WebAssembly. V8 first runs each function it calls from quickly
// made baseline code and recompiles the ones that run a lot, in the background, with its
// optimizing compiler. A start runs much of PostgreSQL once (reading the catalogs, planning the
// first queries), and at V8's default budget so many of those functions qualify that their
// recompilation took about a second of CPU, on both cores of a small machine, while the start
// waited for the same cores. With a budget a hundred times larger (roughly, bytes of code a
// function runs before it is recompiled), a start recompiles little (bench/RESULTS.md § Start-up),
// and the functions that queries run all day still reach optimized code: a server's first
// few thousand queries run at the speed of later ones within the noise of a shared machine. The
// budget is read when a module is instantiated, so this is set before PGlite's.
const TIER_UP_BUDGET = 180_000_000;

let set = false;

export function delayWasmTierUp(): void {
  if (set) return;
  setFlagsFromString(`--wasm-tiering-budget=${TIER_UP_BUDGET}`);
  set = true;
}
