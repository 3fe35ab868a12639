import type { SealingKey } from '../../domain/sealed-box.ts';
import type { RecordEvent, RecordEvents } from '../../platform/events.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createDeliverer, type Deliverer } from './delivery.ts';
import { deliveryJobDefinition } from './jobs.ts';
import { createDeliveryQueuer, createEventRecorder, oneAtATime } from './recorder.ts';
import { registerWebhookRoutes } from './routes.ts';
import { resealSecrets, sealPlaintextSecrets } from './secrets-at-rest.ts';
import { createWebhooksService, type WebhooksService } from './service.ts';

export type { WebhooksService } from './service.ts';
// What an endpoint may be given, as the API checks it: the dashboard checks its forms with the
// same schemas, so both refuse the same input.
export { CreateEndpointBody as WebhookEndpointInput, UpdateEndpointBody as WebhookEndpointChanges }
  from './schemas.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Webhooks',
    description: 'Endpoints that receive signed events, and their deliveries.',
    guides: [
      { path: 'docs/webhooks.md', title: 'Webhooks' },
    ],
  },
];

// Webhooks (docs/webhooks.md): endpoints an account registers, the events of its scope, and the
// signed delivery of every event to every subscribed endpoint, retried on a schedule.
//
//   routes.ts, schemas.ts, service.ts   the management API: endpoints, events, deliveries
//   recorder.ts                         the outbox other areas write events into
//   delivery.ts, deliver.ts, jobs.ts    the delivery worker: one job is one attempt
//   signature.ts                        the signature header (the SDK verifies it for receivers)
//   secrets-at-rest.ts                  signing secrets sealed with the encryption key
//   retry-schedule.ts, target-policy.ts when to retry, and where deliveries may go
//   store.ts, tables.ts                 every statement on the webhook tables, and the tables
//
// Other areas take only recordEvent / recordEvents (src/platform/events.ts) from this module.

export type WebhooksModule = AreaModule & {
  service: WebhooksService;
  recordEvent: RecordEvent;
  recordEvents: RecordEvents;
  // The delivery worker, whose attempts the jobs run.
  deliverer: Deliverer;
};

// Signing secrets are sealed with the encryption key app.ts loads for every area that seals.
export function createWebhooksModule(
  platform: AreaPlatform,
  deps: { sealing: SealingKey },
): WebhooksModule {
  const { config, database, jobs, outside, log } = platform;
  // One delivery queuer serves the resend operation and the worker's retries; the recorder
  // stages the first attempts of new events itself, all in one statement.
  const queueDelivery = createDeliveryQueuer(jobs.stage);
  const recordEvents = createEventRecorder(jobs.stageMany);
  const privateTargetsAllowed = config.WEBHOOK_PRIVATE_TARGETS_ALLOWED;
  const { sealing } = deps;
  const service = createWebhooksService({
    db: database.db, sealing, queueDelivery, resolveHost: outside.resolveHost,
    privateTargetsAllowed, cursors: platform.cursors,
  });
  const deliverer = createDeliverer({
    db: database.db,
    sealing,
    queueDelivery,
    timeoutMs: config.WEBHOOK_DELIVERY_TIMEOUT_MS,
    privateTargetsAllowed,
    resolveHost: outside.resolveHost,
    now: outside.now,
    random: outside.random,
    log,
    onAttempt: platform.metrics.webhookAttempt,
  });
  return {
    name: 'webhooks',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerWebhookRoutes, { webhooks: service }),
    jobs: [deliveryJobDefinition(deliverer, config.WEBHOOK_DELIVERY_TIMEOUT_MS)] as
      AreaModule['jobs'],
    service,
    recordEvent: oneAtATime(recordEvents),
    recordEvents,
    deliverer,
    // Secrets stored in plain text by releases before sealing are sealed at every start.
    migrateData: async () => {
      const sealed = await sealPlaintextSecrets(database.db, sealing);
      if (sealed > 0) log.info({ endpoints: sealed }, 'sealed plain-text webhook secrets');
    },
    resealSecrets: () => resealSecrets(database.db, sealing),
    close: () => deliverer.close(),
  };
}
