// The loops of due work (src/platform/due-work.ts): many loops wait on one stop signal at once,
// which is no leak, and a stop ends them all, even in the middle of a long pause.
import { setImmediate } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDueWorkRunner, type DueWorkDefinition } from '../../src/platform/due-work.ts';

const warnings: Error[] = [];
const keepWarning = (warning: Error) => warnings.push(warning);

afterEach(() => {
  process.off('warning', keepWarning);
  warnings.length = 0;
});

// Work with nothing due: each batch takes nothing, so every loop pauses for a minute.
function idleWork(name: string, concurrency: number, batches: { count: number }):
  DueWorkDefinition {
  return { name, concurrency, batchSize: 10, pollIntervalMs: 60_000,
    runBatch: async () => { batches.count += 1; return 0; } };
}

describe('due work', () => {
  it('pauses a dozen loops on one stop signal without a listener-leak warning, and stops them',
    async () => {
      process.on('warning', keepWarning);
      const batches = { count: 0 };
      const runner = createDueWorkRunner({ workersEnabled: true, log: pino({ level: 'silent' }) });
      runner.start([idleWork('issue', 2, batches), idleWork('transmit', 4, batches),
        idleWork('approve', 2, batches), idleWork('send', 2, batches),
        idleWork('bulks', 1, batches), idleWork('receipt bulks', 1, batches)]);
      for (let turn = 0; turn < 5; turn += 1) await setImmediate();
      expect(batches.count).toBe(12);
      const started = performance.now();
      await runner.stop();
      expect(performance.now() - started).toBeLessThan(5_000);
      await setImmediate();
      expect(warnings.map((warning) => warning.name)).toEqual([]);
    });

  it('runs nothing where workers are disabled', async () => {
    const batches = { count: 0 };
    const runner = createDueWorkRunner({ workersEnabled: false,
      log: pino({ level: 'silent' }) });
    runner.start([idleWork('issue', 2, batches)]);
    await setImmediate();
    expect(batches.count).toBe(0);
    await runner.stop();
  });
});
