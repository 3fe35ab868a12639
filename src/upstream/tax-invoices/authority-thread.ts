import { parentPort } from 'node:worker_threads';
import { signedXmlDefect, type SignedDocumentCheck } from './signed-document-check.ts';

// The sandbox tax authority's thread (authority-checks.ts): it checks batches of signed
// documents and answers, for each, its defect (null when the authority takes it) or, should the
// check itself throw, that it failed. It says when it is ready, so that its start is not taken
// for a batch's work.

export type AuthorityBatch = { id: number; checks: readonly SignedDocumentCheck[] };
export type CheckOutcome = { defect: string | null } | { failed: string };
export type AuthorityAnswer = { ready: true } | { id: number; outcomes: CheckOutcome[] };

function outcomeOf(check: SignedDocumentCheck): CheckOutcome {
  try {
    return { defect: signedXmlDefect(check) };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort!;

port.on('message', ({ id, checks }: AuthorityBatch) => {
  port.postMessage({ id, outcomes: checks.map(outcomeOf) } satisfies AuthorityAnswer);
});
port.postMessage({ ready: true } satisfies AuthorityAnswer);
