// A writer process of test/integration/revenue-expense-feed.test.ts: records changes of one
// account's books through the store the API's writers use, in many short transactions, and holds
// each one open a little after taking its positions so that the other process's transactions
// overlap it. Arguments: DATABASE_URL, account id, writer name, transactions to make. Prints one
// JSON line: the final version it wrote of every invoice.
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { recordEntries, type BookEntry } from '../../src/areas/revenue-expenses/store.ts';

const [databaseUrl, accountId, writer, rounds] = process.argv.slice(2) as [string, string,
  string, string];
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const db = drizzle(pool);
const scope = { accountId, environment: 'test' as const };
const INVOICES = 40;
const versions = new Map<string, number>();

function entry(index: number, version: number): BookEntry {
  const approvalNumber = `20261120${writer === 'a' ? '41' : '42'}000000${String(index)
    .padStart(8, '0')}`;
  return { direction: index % 2 === 0 ? 'SALES' : 'PURCHASE', source: 'COLLECTED',
    approvalNumber, issuanceKey: null, writeDate: '2026-11-20', issueDate: '2026-11-20',
    counterpartNumber: '2208162517', counterpartName: writer, supplyCost: version * 1_000,
    tax: version * 100, totalAmount: version * 1_100, taxType: 'TAXABLE',
    amendmentReason: null, originalApprovalNumber: null, status: 'TRANSMITTED', late: false };
}

// Four connections of this process write at once, as the jobs of one worker process do. Each
// lane owns a quarter of the invoices, so the versions of one invoice are written in order.
const LANES = 4;
const PER_LANE = INVOICES / LANES;
async function lane(lane: number) {
  for (let round = lane; round < Number(rounds); round += LANES) {
    const picks = [...new Set([lane + LANES * (round % PER_LANE),
      lane + LANES * ((round * 7 + 3) % PER_LANE)])];
    await db.transaction(async (tx) => {
      const entries = picks.map((index) => {
        const key = String(index);
        const version = (versions.get(key) ?? 0) + 1;
        versions.set(key, version);
        return entry(index, version);
      });
      await recordEntries(tx as never, scope, entries, new Date());
      await tx.execute(sql`select pg_sleep(${Math.random() * 0.01})`);
    });
  }
}

await Promise.all([0, 1, 2, 3].slice(0, LANES).map(lane));
await pool.end();
process.stdout.write(`${JSON.stringify(Object.fromEntries(versions))}\n`);
