import type { Db, Tx } from './connect.ts';

// Work recorded in batches (requests accepted at the same moment, the jobs of one fetch): all
// the items in one transaction, so the round trips and the commit are paid once. A failing
// statement rolls the whole batch back, so the items are then recorded again one at a time, in
// order, each in a transaction of its own: only an item that fails alone fails. Answers, per
// item, what `record` answered for it or the error that failed it.

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error('recording failed', { cause: error });
}

export async function recordTogetherOrAlone<Item, Answer>(db: Db, items: readonly Item[],
  record: (tx: Tx, items: readonly Item[]) => Promise<Answer[]>):
  Promise<Array<Answer | Error>> {
  try {
    return await db.transaction((tx) => record(tx, items));
  } catch (error) {
    if (items.length === 1) return [asError(error)];
  }
  const answers: Array<Answer | Error> = [];
  for (const item of items) {
    answers.push(await db.transaction((tx) => record(tx, [item]))
      .then(([answer]) => answer!, asError));
  }
  return answers;
}
