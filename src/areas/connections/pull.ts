import type { Environment } from '../../platform/accounts/keys.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import type { StoredCredentials } from './credentials.ts';
import type { ConnectionsService } from './service.ts';

// A pull: a job that logs in to an outside system with a connection's credentials, fetches
// what it has and records it (a bank account's sync, the tax portal's collection). Its order is
// the same for every pull, and so are the failures it ends with: the connection was removed
// before it ran, the system could not be reached (the connection says nothing about it), or the
// system refused the login (the connection is marked FAILED too). What is fetched, and how it
// is recorded and announced, is the pull's own.

const JOB_RETRY_LIMIT = 3;

// What the outside system answers when there is nothing to record.
type PullRefusal = { kind: 'unavailable' } | { kind: 'failed'; code: string; message: string };

export type PullFailure = { code: string; message: string; connectionFailed: boolean };

type PullRow = { id: string; accountId: string; environment: string; connectionId: string;
  state: string };

export type Pull<Row extends PullRow, Kind extends StoredCredentials['kind'], Answer> = {
  // The kind of connection the pull logs in with.
  kind: Kind;
  find(id: string): Promise<Row | null>;
  // Marks the pull RUNNING and asks the outside system, within the pull's timeout; unavailable
  // when the environment has no system to ask.
  fetch(row: Row, scope: Scope, credentials: Extract<StoredCredentials, { kind: Kind }>):
    Promise<Answer | PullRefusal>;
  record(row: Row, scope: Scope, answer: Answer): Promise<void>;
  fail(row: Row, scope: Scope, failure: PullFailure): Promise<void>;
  removedMessage: string;
  unavailable: { code: string; message: string };
};

function isRefusal(answer: { kind: string }): answer is PullRefusal {
  return answer.kind === 'unavailable' || answer.kind === 'failed';
}

// Runs the pull of `id` when it is still to run (QUEUED, or RUNNING when its job is retried).
export async function runPull<Row extends PullRow, Kind extends StoredCredentials['kind'],
  Answer extends { kind: string }>(connections: Pick<ConnectionsService, 'openConnection'>,
  pull: Pull<Row, Kind, Answer>, id: string): Promise<void> {
  const row = await pull.find(id);
  if (row === null || (row.state !== 'QUEUED' && row.state !== 'RUNNING')) return;
  const scope: Scope = { accountId: row.accountId, environment: row.environment as Environment };
  const opened = await connections.openConnection(scope, row.connectionId);
  if (opened === null || opened.credentials.kind !== pull.kind) {
    await pull.fail(row, scope, { code: 'CONNECTION_REMOVED', message: pull.removedMessage,
      connectionFailed: false });
    return;
  }
  const credentials = opened.credentials as Extract<StoredCredentials, { kind: Kind }>;
  const answer = await pull.fetch(row, scope, credentials);
  if (!isRefusal(answer)) {
    await pull.record(row, scope, answer);
  } else if (answer.kind === 'unavailable') {
    await pull.fail(row, scope, { ...pull.unavailable, connectionFailed: false });
  } else {
    await pull.fail(row, scope, { code: answer.code, message: answer.message,
      connectionFailed: true });
  }
}

// The job of a pull: one pull at a time, retried with backoff; it expires some minutes after
// the outside system's timeout.
export function pullJobDefinition<Data extends object>(options: { queue: string;
  timeoutMs: number; run(data: Data): Promise<void> }): JobDefinition<Data> {
  return {
    queue: options.queue,
    options: { policy: 'standard', retryLimit: JOB_RETRY_LIMIT, retryDelay: 30,
      retryBackoff: true, expireInSeconds: Math.ceil(options.timeoutMs / 1000) + 300 },
    batchSize: 1,
    pollingIntervalSeconds: 1,
    async work(jobs) {
      for (const job of jobs) await options.run(job.data);
    },
  };
}
