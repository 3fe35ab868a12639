// Signatures of signed documents are made on a thread of their own at background priority: each
// is exactly node:crypto's RSA PKCS#1 v1.5 signature over SHA-256 with its own key, however many
// are sent at once, one that cannot be made fails alone, and only the signing thread's priority
// is lowered, never the thread that answers requests.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { signOnSigningThread } from '../../../src/areas/issuers/signing-thread.ts';

let keys: KeyObject[];

beforeAll(() => {
  keys = [0, 1, 2].map(() => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
});

// The nice value of each thread of this process, from /proc (Linux only).
function niceOfThreads(): Map<string, number> {
  return new Map(readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state is the 3rd field, nice the 19th.
    return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
  }));
}

describe('the signing thread', () => {
  it('makes each of many signatures sent at once as node:crypto does with its key', async () => {
    const requests = Array.from({ length: 250 }, (_, index) => ({
      key: keys[index % keys.length]!,
      data: Buffer.from(`<SignedInfo>문서 ${index} &amp; "'</SignedInfo>`, 'utf8'),
    }));
    const signatures = await Promise.all(requests.map(({ key, data }) =>
      signOnSigningThread(key)(data)));
    signatures.forEach((signature, index) => {
      const { key, data } = requests[index]!;
      expect(Buffer.isBuffer(signature)).toBe(true);
      // PKCS#1 v1.5 is deterministic: the same key and data give the same bytes.
      expect(signature.equals(sign('sha256', data, key))).toBe(true);
    });
  });

  it('fails only the signature that cannot be made, not the others of its batch', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = Buffer.from('<SignedInfo/>');
    const outcomes = await Promise.allSettled([signOnSigningThread(keys[0]!)(data),
      signOnSigningThread(publicKey)(data), signOnSigningThread(keys[1]!)(data)]);
    expect(outcomes.map((outcome) => outcome.status))
      .toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseFulfilledResult<Buffer>).value
      .equals(sign('sha256', data, keys[1]!))).toBe(true);
  });

  it.runIf(process.platform === 'linux')('runs at nice 10 while this thread stays at its own',
    async () => {
      const before = niceOfThreads();
      await signOnSigningThread(keys[0]!)(Buffer.from('<SignedInfo/>'));
      const after = niceOfThreads();
      const ownThread = readFileSync('/proc/thread-self/stat', 'utf8');
      const ownTid = ownThread.slice(0, ownThread.indexOf(' '));
      expect(after.get(ownTid)).toBe(before.get(ownTid));
      expect(after.get(ownTid)).not.toBe(10);
      expect([...after.values()]).toContain(10);
    });
});
