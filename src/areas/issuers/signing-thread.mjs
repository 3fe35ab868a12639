// The thread that makes the RSA signatures of signed documents (signing-thread.ts): it answers
// each batch of { key, data } with their RSA PKCS#1 v1.5 signatures over SHA-256, in the
// protocol of platform/thread-batches.ts, at background priority. Plain JavaScript, needing no
// loader, as it only calls node:crypto.
import { sign } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../../platform/background-priority.mjs';

function outcomeOf({ key, data }) {
  try {
    return { value: sign('sha256', data, key) };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

lowerThreadPriority();
parentPort.on('message', ({ id, items }) => {
  parentPort.postMessage({ id, outcomes: items.map(outcomeOf) });
});
parentPort.postMessage({ ready: true });
