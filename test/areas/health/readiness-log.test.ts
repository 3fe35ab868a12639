// /readyz logs readiness when it changes, never per probe: a load balancer probing a process
// through a database outage gets one warning when readiness is lost and one line when it is
// back. test/integration/database-unavailable.test.ts shows the same against a real outage.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggingReadinessChanges, type ReadinessChecks }
  from '../../../src/areas/health/readiness-log.ts';

const READY: ReadinessChecks = { database: true, migrations: true };
const MIGRATIONS_MISSING: ReadinessChecks = { database: true, migrations: false };
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'),
  { code: 'ECONNREFUSED' });

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'trace' }, destination), lines };
}

describe('readiness logging', () => {
  it('logs a loss once at warn and the return once at info, whatever the probes', async () => {
    const { log, lines } = capturingLogger();
    // What the database does at each probe: answer, refuse, answer without migrations.
    const outcomes: Array<ReadinessChecks | Error> = [READY, READY, refused, refused, refused,
      MIGRATIONS_MISSING, READY, READY];
    let probe = 0;
    const readiness = loggingReadinessChanges(async () => {
      const outcome = outcomes[probe++]!;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    }, log);

    const seen = [];
    for (let index = 0; index < outcomes.length; index += 1) seen.push(await readiness());
    await new Promise((resolve) => setImmediate(resolve));

    expect(seen).toEqual([READY, READY, { database: false, migrations: false },
      { database: false, migrations: false }, { database: false, migrations: false },
      MIGRATIONS_MISSING, READY, READY]);
    expect(lines.map(({ level, msg, reason, checks }) => ({ level, msg, reason, checks })))
      .toEqual([
        { level: 40, msg: 'not ready', reason: 'ECONNREFUSED',
          checks: { database: false, migrations: false } },
        { level: 30, msg: 'ready again', reason: undefined, checks: READY },
      ]);
  });
});
