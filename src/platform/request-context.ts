import { AsyncLocalStorage } from 'node:async_hooks';

// The request a piece of work runs for, so the points ledger can name the request that made
// each charge without every area threading the request through its services. Set once per
// request by the trace plugin, just before the handler; work outside a request (jobs, the
// CLI) has none.

type RequestContext = { requestId: string };

const storage = new AsyncLocalStorage<RequestContext>();

// Runs `work` (and everything it starts) as part of the request `requestId`.
export function runInRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

// The Trace-Id of the request being served, or null outside a request.
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}
