import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';
import { createAccountsService, type AccountsService } from './accounts/service.ts';
import { connectDatabase, type Database } from './db/connect.ts';
import type { DataDirHolder } from './db/data-dir-lock.ts';
import { runMigrations } from './db/migrate.ts';
import { waitForDatabase } from './db/wait-for-database.ts';
import { createJobs, type JobDefinition, type Jobs } from './jobs.ts';
import {
  createMailQueuer,
  createMailsQueuer,
  type QueueMail,
  type QueueMails,
} from './mail/outbox.ts';
import { serializeError } from './error-log.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { mailJobDefinition, type MailKindHooks, type MailKinds } from './mail/send-job.ts';
import { systemOutside, type Outside } from './outside.ts';
import { createCharger, type Charger } from './points/charge.ts';
import type { SealingKey } from '../domain/sealed-box.ts';
import type { PageCursors } from './cursor.ts';
import { expireReservationsJobDefinition } from './points/expire-job.ts';
import { buildPriceTable, type PriceTable } from './points/prices.ts';
import { createPointsService, type PointsService } from './points/service.ts';

// The mechanisms every area builds on, opened once per process: the database (migrated), the
// accounts and points ledger, the job queue areas stage their work in, and the mail outbox.
// The CLI opens it without a server; app.ts adds the area modules and the server.
export type Platform = {
  config: Config;
  log: Logger;
  outside: Outside;
  database: Database;
  accounts: AccountsService;
  points: PointsService;
  prices: PriceTable;
  // Reserve → work → capture/release, priced from the price table (platform/points/charge.ts).
  charge: Charger;
  // Staging jobs works at once; the job runner is started by the app (Jobs.start).
  jobs: Jobs;
  // The outbox areas queue mails into, in their transactions (docs/operations.md § Mail).
  // Without SMTP_URL mails are kept, not sent.
  queueMail: QueueMail;
  queueMails: QueueMails;
  // Attachments and settlement hooks of a kind of mail, registered by the area that queues it
  // before the jobs start.
  registerMailKind(kind: string, hooks: MailKindHooks): void;
  // The platform's own queues: reservation expiry and mail sending.
  jobDefinitions: JobDefinition<never>[];
  // The process's figures for GET /metrics (docs/operations.md § Metrics).
  metrics: Metrics;
  close(): Promise<void>;
};

// What the area modules are built from: the platform, the key that seals secrets at rest
// (encryption-key.ts, loaded once where the areas are built) and the page cursors sealed with a
// key derived from it (cursor.ts).
export type AreaPlatform = Platform & { sealing: SealingKey; cursors: PageCursors };

// Secrets a request body may carry (certificate passwords and key files, docs/issuers.md) and the
// signer's R-value a transmission carries (docs/tax-invoices.md) are censored wherever a logged
// object holds them, and so are the credentials of request headers:
// no log line of etax holds headers, but a library logging at trace may (the multipart parser
// logs its options, request headers included).
const CREDENTIAL_HEADERS = ['.authorization', '.cookie', '["proxy-authorization"]'];
const LOG_REDACT_PATHS = [
  'password', '*.password', '*.*.password', 'signPri', '*.signPri', '*.*.signPri',
  'signerRandomNumber', '*.signerRandomNumber', '*.*.signerRandomNumber',
  ...CREDENTIAL_HEADERS.flatMap((header) => [`headers${header}`, `*.headers${header}`,
    `*.*.headers${header}`]),
];

function createLogger(config: Config, outside: Pick<Outside, 'logDestination'>): Logger {
  const options = { level: config.LOG_LEVEL, base: { service: 'etax' },
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    // Errors without the values of the statements that failed (error-log.ts).
    serializers: { err: serializeError } };
  return outside.logDestination ? pino(options, outside.logDestination) : pino(options);
}

export type PlatformOptions = {
  // What this process is to the embedded database's DATA_DIR (src/platform/db/data-dir-lock.ts):
  // a server lets the CLI connect once migrated; a command (the default) keeps it to itself.
  embeddedHolder?: DataDirHolder;
};

async function openMigratedDatabase(
  config: Config,
  log: Logger,
  options: PlatformOptions,
): Promise<Database> {
  const waitMs = config.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000;
  const database = await connectDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    directUrl: config.DATABASE_DIRECT_URL,
    embedded: { holder: options.embeddedHolder ?? 'command', waitMs },
  });
  try {
    if (!database.embedded) await waitForDatabase(database.url, { timeoutMs: waitMs, log });
    await runMigrations(database.sessionPool);
  } catch (error) {
    await database.close();
    throw error;
  }
  database.markReady();
  return database;
}

export async function openPlatform(
  config: Config,
  outside: Outside = systemOutside(),
  options: PlatformOptions = {},
): Promise<Platform> {
  const log = createLogger(config, outside);
  const prices = buildPriceTable(config.PRICE_OVERRIDES);
  const database = await openMigratedDatabase(config, log, options);
  const metrics = createMetrics();
  const points = createPointsService({
    db: database.db,
    relaxedPool: database.relaxedPool,
    reservationTtlMs: config.RESERVATION_TTL_MS,
    preparedStatements: database.preparedStatements,
    movements: metrics.points,
  });
  const accounts = createAccountsService({
    db: database.db,
    points,
    testSignupPoints: config.TEST_SIGNUP_POINTS,
    now: outside.now,
  });
  const jobs = createJobs({ databaseUrl: database.url, pool: database.sessionPool,
    workersEnabled: config.WORKERS_ENABLED, log });
  // loadConfig refuses SMTP_URL without MAIL_FROM. nodemailer loads only where SMTP_URL is set
  // (docs/operations.md § Start-up).
  const transport = config.SMTP_URL === undefined ? null
    : (await import('./mail/transport.ts'))
      .createSmtpTransport({ url: config.SMTP_URL, from: config.MAIL_FROM! });
  const mailKinds: MailKinds = new Map();
  return {
    config,
    log,
    outside,
    database,
    accounts,
    points,
    prices,
    charge: createCharger(points, prices),
    jobs,
    queueMail: createMailQueuer({ stage: jobs.stage, sendingEnabled: transport !== null }),
    queueMails: createMailsQueuer({ stageMany: jobs.stageMany,
      sendingEnabled: transport !== null }),
    registerMailKind: (kind, hooks) => mailKinds.set(kind, hooks),
    jobDefinitions: [
      expireReservationsJobDefinition(points, log),
      mailJobDefinition({ db: database.db, transport, now: outside.now, log, kinds: mailKinds }),
    ] as JobDefinition<never>[],
    metrics,
    async close() {
      await jobs.stop();
      transport?.close();
      await database.close();
    },
  };
}
