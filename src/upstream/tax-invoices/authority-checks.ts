import { createThreadBatches } from '../../platform/thread-batches.ts';
import type { SignedDocumentCheck } from './signed-document-check.ts';

// The sandbox tax authority checks signed documents on a thread of its own
// (platform/thread-batches.ts), as the real authority checks them on machines of its own.
// Reading, canonicalizing and verifying a document costs about 0.2 ms of CPU, about as much as
// the rest of its transmission; on the thread that answers requests it was the largest single
// cost and bounded how many tax invoices, bulks above all, a process accepts a second
// (bench/RESULTS.md § Tax invoices: the sandbox authority on a thread of its own). The thread
// runs at background priority, as the authority's machines are not the ones answering requests.
//
// One thread per process, started with the first check and shared by every sandbox transmitter
// of the process. Checks are sent in batches of up to 100, two batches at a time with the thread
// (a transmission batch sends its documents side by side). A thread that fails (it throws or
// exits) fails the checks it holds with AuthorityUnreachable, which the sandbox answers as an
// unreachable authority, retried later as a live gateway's would be; the next check starts a new
// thread. A check that throws on the thread fails alone.

export class AuthorityUnreachable extends Error {}

const THREAD_ENTRY = new URL('./authority-thread.mjs', import.meta.url);

export type AuthorityChecks = {
  // What the sandbox authority finds wrong with a signed document, or null when it takes it;
  // rejects with AuthorityUnreachable when its thread fails.
  check(check: SignedDocumentCheck): Promise<string | null>;
};

// Checks on threads started from `threadEntry`, a module that answers as authority-thread.ts
// does.
export function createAuthorityChecks(threadEntry: URL): AuthorityChecks {
  const check = createThreadBatches<SignedDocumentCheck, string | null>({
    entry: threadEntry, inFlightMax: 2, itemsPerBatchMax: 100,
    unreachable: (message) => new AuthorityUnreachable(
      `The sandbox authority could not be reached: ${message}`),
  });
  return { check };
}

let shared: AuthorityChecks | null = null;

// The process's sandbox authority, on authority-thread.ts.
export function checkSignedDocument(check: SignedDocumentCheck): Promise<string | null> {
  shared ??= createAuthorityChecks(THREAD_ENTRY);
  return shared.check(check);
}
