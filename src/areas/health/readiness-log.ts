import type { Logger } from 'pino';
import { unavailableReason } from '../../platform/db/unavailable.ts';

export type ReadinessChecks = { database: boolean; migrations: boolean };

// Readiness as /readyz reports it, logged only when it changes: load balancers probe every few
// seconds, and an outage would otherwise log one error, with its stack, per probe. Losing
// readiness is a warning (the process answers 503 until it is back), regaining it is news.
export function loggingReadinessChanges(
  check: () => Promise<ReadinessChecks>,
  log: Logger,
): () => Promise<ReadinessChecks> {
  // A process is ready when it starts serving: it has just reached its migrated database.
  let wasReady = true;
  return async () => {
    let checks: ReadinessChecks;
    let reason: string | undefined;
    try {
      checks = await check();
    } catch (error) {
      checks = { database: false, migrations: false };
      reason = unavailableReason(error);
    }
    const ready = checks.database && checks.migrations;
    if (ready !== wasReady) {
      wasReady = ready;
      if (ready) log.info({ checks }, 'ready again');
      else log.warn({ checks, reason }, 'not ready');
    }
    return checks;
  };
}
