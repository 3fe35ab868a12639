import { SealedBoxError, type SealingKey } from '../domain/sealed-box.ts';

// Sealing secrets again with the current encryption key after a rotation (`etax reseal`,
// docs/operations.md § Rotating the encryption key). Each area names its sealed columns; this
// walks one column in key order, opens every box with whichever configured key sealed it and
// writes it back sealed with the current key. Every box is sealed with its row's key as context.

// How many rows one read takes; a column of any size is walked with bounded memory.
const RESEAL_BATCH_ROWS = 500;

export type SealedColumn = {
  // Names the column in the command's report.
  name: string;
  // The rows with a box whose key sorts after `afterKey` (all when null), in key order.
  nextBatch(afterKey: string | null, limit: number): Promise<Array<{ key: string; box: string }>>;
  // Writes `resealed` where the row still holds `box`: a secret replaced meanwhile (a rotation
  // through the API) stays as its writer sealed it.
  replace(key: string, box: string, resealed: string): Promise<void>;
};

// `unreadable` boxes open with none of the configured keys: they were sealed with a key that is
// no longer configured, and are left as they are.
export type ResealCount = { column: string; resealed: number; unreadable: number };

export async function resealColumn(sealing: SealingKey, column: SealedColumn) {
  const count: ResealCount = { column: column.name, resealed: 0, unreadable: 0 };
  let afterKey: string | null = null;
  for (;;) {
    const rows = await column.nextBatch(afterKey, RESEAL_BATCH_ROWS);
    for (const { key, box } of rows) {
      let plaintext: Buffer;
      try {
        plaintext = sealing.open(box, key);
      } catch (error) {
        if (!(error instanceof SealedBoxError)) throw error;
        count.unreadable += 1;
        continue;
      }
      await column.replace(key, box, sealing.seal(plaintext, key));
      count.resealed += 1;
    }
    if (rows.length < RESEAL_BATCH_ROWS) return count;
    afterKey = rows[rows.length - 1]!.key;
  }
}
