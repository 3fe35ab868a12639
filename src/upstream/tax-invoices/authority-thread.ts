import { parentPort } from 'node:worker_threads';
import type { ThreadAnswer, ThreadBatch, ThreadOutcome } from '../../platform/thread-batches.ts';
import { signedXmlDefect, type SignedDocumentCheck } from './signed-document-check.ts';

// The sandbox tax authority's thread (authority-checks.ts): it checks batches of signed
// documents and answers, for each, its defect (null when the authority takes it) or, should the
// check itself throw, that it failed, in the protocol of platform/thread-batches.ts.

type Defect = string | null;

function outcomeOf(check: SignedDocumentCheck): ThreadOutcome<Defect> {
  try {
    return { value: signedXmlDefect(check) };
  } catch (error) {
    return { failed: `The sandbox authority's check failed: ${
      error instanceof Error ? error.message : String(error)}` };
  }
}

const port = parentPort!;

port.on('message', ({ id, items }: ThreadBatch<SignedDocumentCheck>) => {
  port.postMessage({ id, outcomes: items.map(outcomeOf) } satisfies ThreadAnswer<Defect>);
});
port.postMessage({ ready: true } satisfies ThreadAnswer<Defect>);
