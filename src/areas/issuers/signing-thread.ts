import type { KeyObject } from 'node:crypto';
import { createThreadBatches } from '../../platform/thread-batches.ts';

// Signatures of signed documents are made on a thread of their own (signing-thread.mjs), at
// background priority: an RSA-2048 signature is most of a document's signing and no request
// waits on it (the workers sign after a document is accepted), so when the cores are busy the
// threads that answer requests go first. node:crypto's asynchronous sign ran them on libuv's
// thread pool instead: up to four threads at the priority of the requests, shared with file reads
// and password hashes. On one thread, in batches, a process accepted about 11 % more tax invoices
// a second, with a little less CPU per document
// (bench/RESULTS.md § Tax invoices: signing on a thread of its own, at a lower priority).
//
// One thread per process, started with the first signature. Signatures go in batches of up to
// 100, two batches at a time with the thread; a signature's key goes with it (a KeyObject is
// passed to a thread without copying its key). A thread that fails fails the signatures it held
// with SigningThreadFailed: their issuance batch fails, and its steps are taken up again when
// their lease runs out; the next signature starts a new thread.

export class SigningThreadFailed extends Error {}

const THREAD_ENTRY = new URL('./signing-thread.mjs', import.meta.url);

type SignatureRequest = { key: KeyObject; data: Uint8Array };

let shared: ((request: SignatureRequest) => Promise<Uint8Array>) | null = null;

// The signing function of an XmlSigner for an RSA private key, on the signing thread.
export const signOnSigningThread = (key: KeyObject) => async (data: Buffer): Promise<Buffer> => {
  shared ??= createThreadBatches<SignatureRequest, Uint8Array>({
    entry: THREAD_ENTRY, inFlightMax: 2, itemsPerBatchMax: 100,
    unreachable: (message) => new SigningThreadFailed(`The signing thread failed: ${message}`),
  });
  const signature = await shared({ key, data });
  return Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
};
