import type { FastifyPluginAsync } from 'fastify';
import type { DueWorkDefinition } from './due-work.ts';
import type { JobDefinition } from './jobs.ts';
import type { QueueBacklog } from './metrics/registry.ts';
import type { ReferenceSection } from './reference-guides.ts';
import type { ResealCount } from './reseal.ts';

// The shape every area module has (docs/architecture.md § The area module shape). An area's
// index.ts exports one factory, create<Area>Module(platform, …the other modules it needs), that
// returns this plus whatever the area offers other areas (its service, typed). app.ts lists the
// modules; the server mounts their routes and pages, and the job runner starts their jobs.
export type AreaModule = {
  // Names the module in logs and errors.
  name: string;
  // The sections of the API reference its operations belong to: each operation's tag is one
  // of these (test/platform/openapi.test.ts), declared with its description and guides.
  reference?: readonly ReferenceSection[];
  // Routes under /v1, behind authentication and the rate limiter; every route names its
  // operation (src/platform/operations.ts).
  routes?: FastifyPluginAsync;
  // Routes outside /v1: health checks and hosted pages whose one-time token is the credential.
  pages?: FastifyPluginAsync;
  // The area's queues and workers (src/platform/jobs.ts).
  jobs?: JobDefinition<never>[];
  // Work queued in the area's own table (src/platform/due-work.ts), run in worker processes.
  dueWork?: DueWorkDefinition[];
  // The work of its own tables that is due and waits, per queue, read when /metrics is scraped.
  backlogs?(): Promise<QueueBacklog[]>;
  // Changes to the area's rows that SQL migrations cannot make because they need what only a
  // process has (the encryption key): every process runs it once the schema is migrated, before
  // it serves, so it must be cheap when there is nothing to do and safe when processes race.
  migrateData?(): Promise<void>;
  // Seals every secret the area keeps at rest again with the current encryption key
  // (`etax reseal`, after a key rotation), one count per sealed column.
  resealSecrets?(): Promise<ResealCount[]>;
  // Runs when the process starts serving, after the migrations: checks that only warn (the
  // holidays the deadlines know ending within a year).
  start?(): Promise<void>;
  // Releases what the module holds (connections, timers) after the server and the jobs stop.
  close?(): Promise<void> | void;
};
