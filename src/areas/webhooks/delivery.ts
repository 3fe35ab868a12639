import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { EventType } from '../../platform/event-catalogue.ts';
import { attemptDelivery, createDeliveryAgent, type AttemptOutcome } from './deliver.ts';
import type { DeliveryJobData, QueueDelivery } from './recorder.ts';
import { attemptsMaxFor, nextAttemptAt } from './retry-schedule.ts';
import { signingSecrets } from './secrets-at-rest.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import {
  cancelDelivery,
  findDeliveryForAttempt,
  insertAttempt,
  lockDeliveryForAttempt,
  updateDeliveryAfterAttempt,
} from './store.ts';
import { targetPolicyFor } from './target-policy.ts';
import type { ResolveHost } from '../../platform/outside.ts';

// The delivery worker (docs/webhooks.md § Delivery): one job is one attempt of one delivery.
// It sends the event, records the attempt and, in the same transaction, either completes the
// delivery or queues the next attempt at the time the retry schedule gives. A job that runs
// twice finds its attempt already recorded and does nothing, so delivery is at least once and
// never loops.

type DelivererDeps = {
  db: Db;
  // Opens the endpoints' sealed signing secrets.
  sealing: SealingKey;
  queueDelivery: QueueDelivery;
  timeoutMs: number;
  privateTargetsAllowed: boolean;
  resolveHost: ResolveHost;
  // Injectable so tests drive signatures and the retry schedule without waiting.
  now: () => Date;
  random: () => number;
  log: Logger;
  // Told what came of each attempt made (the metrics).
  onAttempt?: (result: 'canceled' | 'succeeded' | 'retrying' | 'failed') => void;
};

type AttemptResult = 'skipped' | 'canceled' | 'succeeded' | 'retrying' | 'failed';

type Found = NonNullable<Awaited<ReturnType<typeof findDeliveryForAttempt>>>;

// The body is the same bytes on every attempt and every resend of an event. `eventType` repeats
// `type` under a second name, for receivers that switch on `eventType` (docs/webhooks.md).
function eventBody(event: Found['event']): string {
  const { id, type, createdAt, data } = event;
  return JSON.stringify({ id, type, eventType: type, createdAt: createdAt.toISOString(), data });
}

function deliveryHeaders(
  found: Found,
  secrets: string[],
  attemptNumber: number,
  now: Date,
  body: string,
) {
  const timestampSeconds = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'etax-webhooks/1',
    'etax-event-id': found.event.id,
    'etax-event-type': found.event.type,
    'etax-delivery-id': found.delivery.id,
    'etax-delivery-attempt': String(attemptNumber),
    [SIGNATURE_HEADER.toLowerCase()]: signatureHeader({ secrets, timestampSeconds, payload: body }),
  };
}

// Records an attempt and moves its delivery on, in one transaction: completed, or the next
// attempt queued at the time the retry schedule gives.
async function recordAttempt(
  deps: DelivererDeps,
  job: DeliveryJobData & { attemptsMax: number },
  startedAt: Date,
  outcome: AttemptOutcome,
): Promise<AttemptResult> {
  const finishedAt = deps.now();
  const next = outcome.succeeded ? null : nextAttemptAt({ attemptNumber: job.attemptNumber,
    attemptsMax: job.attemptsMax, now: finishedAt, random: deps.random() });
  const status = outcome.succeeded ? 'succeeded' : next === null ? 'failed' : 'pending';
  return deps.db.transaction(async (tx) => {
    if (!(await lockDeliveryForAttempt(tx, job.deliveryId, job.attemptNumber))) {
      return 'skipped' as const;
    }
    const fresh = await insertAttempt(tx, {
      deliveryId: job.deliveryId,
      attemptNumber: job.attemptNumber,
      outcome: outcome.succeeded ? 'succeeded' : 'failed',
      responseStatus: outcome.responseStatus,
      responseBody: outcome.responseBody,
      responseBodyTruncated: outcome.responseBodyTruncated,
      durationMs: outcome.durationMs,
      error: outcome.error,
      startedAt,
      finishedAt,
    });
    if (!fresh) return 'skipped' as const;
    const moved = await updateDeliveryAfterAttempt(tx, {
      deliveryId: job.deliveryId, attemptNumber: job.attemptNumber,
      status, nextAttemptAt: next, responseStatus: outcome.responseStatus,
      durationMs: outcome.durationMs, error: outcome.error,
      completedAt: status === 'pending' ? null : finishedAt,
    });
    if (!moved) return 'skipped' as const;
    if (next !== null) {
      await deps.queueDelivery(tx, {
        deliveryId: job.deliveryId, attemptNumber: job.attemptNumber + 1, startAfter: next,
      });
    }
    return status === 'pending' ? 'retrying' as const : status;
  });
}

export function createDeliverer(deps: DelivererDeps) {
  // Each environment's connection pool (and undici with the first) is made by its first
  // delivery, so a process that delivers nothing never loads undici.
  const agents = new Map<Environment, ReturnType<typeof createDeliveryAgent>>();
  const agentFor = (environment: Environment) => {
    let agent = agents.get(environment);
    if (agent === undefined) {
      const policy = targetPolicyFor(environment, deps.privateTargetsAllowed);
      agent = createDeliveryAgent(policy, deps.resolveHost, deps.timeoutMs);
      agents.set(environment, agent);
    }
    return agent;
  };

  // Works one attempt; what it did is returned for tests and logs.
  async function runAttempt(job: DeliveryJobData): Promise<AttemptResult> {
    const found = await findDeliveryForAttempt(deps.db, job.deliveryId);
    // Gone with its endpoint, finished, or this attempt already made: nothing to do.
    if (found === null || found.delivery.status !== 'pending') return 'skipped';
    if (found.delivery.attemptCount >= job.attemptNumber) return 'skipped';
    if (!found.endpoint.enabled) {
      await cancelDelivery(deps.db, job.deliveryId, 'The endpoint was disabled.');
      return 'canceled';
    }
    const startedAt = deps.now();
    const body = eventBody(found.event);
    const outcome = await attemptDelivery({
      deliveryId: job.deliveryId,
      url: found.endpoint.url,
      body,
      headers: deliveryHeaders(found, signingSecrets(deps.sealing, found.endpoint, startedAt),
        job.attemptNumber, startedAt, body),
      policy: targetPolicyFor(found.endpoint.environment as Environment,
        deps.privateTargetsAllowed),
      dispatcher: agentFor(found.endpoint.environment as Environment),
      timeoutMs: deps.timeoutMs,
      log: deps.log,
    });
    const attemptsMax = attemptsMaxFor(found.event.type as EventType);
    const result = await recordAttempt(deps, { ...job, attemptsMax }, startedAt, outcome);
    if (result !== 'skipped') deps.onAttempt?.(result);
    const details = { ...job, result, responseStatus: outcome.responseStatus };
    // A delivery that used up its attempts is worth an operator's look; the rest is routine, a
    // failed test event too: it checked a receiver for its owner, who reads the delivery log.
    const worthALook = result === 'failed' && found.event.type !== 'WEBHOOK_TEST';
    if (worthALook) deps.log.warn(details, 'webhook delivery failed after every attempt');
    else deps.log.debug(details, 'webhook attempt');
    return result;
  }

  async function close() {
    await Promise.all([...agents.values()].map((agent) => agent.close()));
  }

  return { runAttempt, close };
}

export type Deliverer = ReturnType<typeof createDeliverer>;
