import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The figures an operator alerts on (docs/operations.md § Metrics), in the Prometheus text
// format. Each app has its own registry, so several apps in one process (tests, an embedding
// application) never mix their figures; the process's own figures (CPU, memory, event loop,
// GC) are one registry per process, since every app of the process would report the same.

// One queue's work that waits: a pg-boss queue or an area's due-work table.
export type QueueBacklog = { queue: string; waiting: number; oldestAgeSeconds: number };

export type ScrapeSources = {
  // Work that waits now, per queue; read at scrape time.
  backlogs(): Promise<QueueBacklog[]>;
  // Mails of the outbox waiting to be sent; read at scrape time.
  mailOutboxPending(): Promise<number>;
  // Whether the rate limiter counts in its own memory because Redis does not answer.
  rateLimiterInMemory(): boolean;
  // The main database pool (pg.Pool); null on the embedded database.
  pool: { totalCount: number; idleCount: number; waitingCount: number } | null;
};

// Seconds: from a fast cached read (1 ms) to the upstream timeouts (10 s and more).
const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
  2.5, 5, 10, 30];

let processRegistry: Registry | null = null;

function processMetrics(): Registry {
  if (processRegistry === null) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

// The gauges read at scrape time: the backlogs, the outbox, the limiter and the pool.
function registerScrapeGauges(registry: Registry, sources: ScrapeSources,
  backlogs: () => Promise<QueueBacklog[]>) {
  new Gauge({
    name: 'etax_jobs_waiting',
    help: 'Jobs due and not yet taken, per queue',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const backlog of await backlogs()) {
        this.set({ queue: backlog.queue }, backlog.waiting);
      }
    },
  });
  new Gauge({
    name: 'etax_jobs_oldest_waiting_age_seconds',
    help: 'Seconds the oldest due job of each queue has waited',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const backlog of await backlogs()) {
        this.set({ queue: backlog.queue }, backlog.oldestAgeSeconds);
      }
    },
  });
  new Gauge({
    name: 'etax_mail_outbox_pending',
    help: 'Mails in the outbox waiting to be sent',
    registers: [registry],
    async collect() {
      this.set(await sources.mailOutboxPending());
    },
  });
  new Gauge({
    name: 'etax_rate_limiter_in_memory',
    help: '1 while this process counts rate limits in its own memory because Redis does not ' +
      'answer, 0 while it counts in Redis',
    registers: [registry],
    collect() {
      this.set(sources.rateLimiterInMemory() ? 1 : 0);
    },
  });
  const { pool } = sources;
  if (pool === null) return;
  const poolGauge = (name: string, help: string, read: () => number) => new Gauge({
    name, help, registers: [registry],
    collect() {
      this.set(read());
    },
  });
  poolGauge('etax_db_pool_connections', 'Connections the database pool holds',
    () => pool.totalCount);
  poolGauge('etax_db_pool_idle_connections', 'Connections of the pool not in use',
    () => pool.idleCount);
  poolGauge('etax_db_pool_waiting_clients', 'Queries waiting for a connection of the pool',
    () => pool.waitingCount);
}

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics() {
  const registry = new Registry();
  const requestDuration = new Histogram({
    name: 'etax_http_request_duration_seconds',
    help: 'Requests by operation and status, and how long they took to answer',
    labelNames: ['operation', 'status'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  const pointsCharged = new Counter({
    name: 'etax_points_charged_total',
    help: 'Points charged, by price row',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const pointsRefunded = new Counter({
    name: 'etax_points_refunded_total',
    help: 'Points refunded, by price row',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'etax_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by what came of them',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  // The series of each operation and status, looked up once: a request builds no label
  // object of its own.
  const requestSeries = new Map<string, Map<number, Histogram.Internal<'operation' | 'status'>>>();
  function observeRequest(operation: string, status: number, seconds: number) {
    let byStatus = requestSeries.get(operation);
    if (byStatus === undefined) requestSeries.set(operation, byStatus = new Map());
    let series = byStatus.get(status);
    if (series === undefined) {
      byStatus.set(status, series = requestDuration.labels(operation, String(status)));
    }
    series.observe(seconds);
  }

  // Backlogs are read once per scrape, though two gauges show them.
  let backlogsOfScrape: Promise<QueueBacklog[]> | null = null;

  return {
    contentType: registry.contentType,
    observeRequest,
    // The gauges read at scrape time; set once the app has its sources.
    readAtScrape(sources: ScrapeSources) {
      registerScrapeGauges(registry, sources,
        () => (backlogsOfScrape ??= sources.backlogs()));
    },
    points: {
      charged: (operation: string, points: number) => pointsCharged.inc({ operation }, points),
      refunded: (operation: string, points: number) => pointsRefunded.inc({ operation }, points),
    },
    webhookAttempt: (outcome: string) => webhookAttempts.inc({ outcome }),
    async render(): Promise<string> {
      try {
        return (await registry.metrics()) + (await processMetrics().metrics());
      } finally {
        backlogsOfScrape = null;
      }
    },
  };
}
