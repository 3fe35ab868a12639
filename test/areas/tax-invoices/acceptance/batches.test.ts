// Issuance requests accepted at the same moment are recorded in one transaction
// (acceptance/batches.ts). This file proves that a batch in which one request fails fails only
// that request: the others keep their documents, history rows, reference id claims and steps,
// exactly as if each had been recorded alone. Method: requests sent in the same tick join one
// batch; one of them carries a document the database refuses (a check constraint), which no
// validated request can, so the row is forced at the store level. A request whose price the
// points available no longer cover is refused 402 with its reference id given back, the others
// of its batch charged and recorded. Run this file with
// DATABASE_URL for PostgreSQL and without it for the embedded database.
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../../src/domain/ids.ts';
import {
  createAcceptanceBatches,
  type Recording,
} from '../../../../src/areas/tax-invoices/acceptance/batches.ts';
import * as store from '../../../../src/areas/tax-invoices/store.ts';
import { isApiError } from '../../../../src/platform/errors.ts';
import { createTestApp, type TestApp } from '../../../helpers/app.ts';
import { invoiceBody, RECIPIENT_NUMBER, today } from '../../../api/tax-invoices/helpers.ts';

let app: TestApp;
let accountId: string;
let record: (recording: Recording) => Promise<{ issuanceKeys: string[] }>;

const API_KEY_ID = 'key_batch_test';

beforeAll(async () => {
  // No worker takes the steps staged.
  app = await createTestApp({ env: { WORKERS_ENABLED: 'false' } });
  ({ accountId } = await app.createAccount());
  record = createAcceptanceBatches({ db: app.platform.database.db, now: () => new Date(),
    points: app.platform.points });
});
afterAll(async () => {
  await app?.close();
});

// One document as acceptance builds it. `refused` breaks the rule that the total is the supply
// cost plus the tax, which the database checks (tax_invoices_total).
function recording(options: { referenceId?: string; refused?: boolean; points?: number } = {}):
  Recording {
  const invoice = invoiceBody() as never;
  const row: store.NewTaxInvoiceRow = {
    issuanceKey: newId('issuanceKey'),
    accountId,
    environment: 'test',
    apiKeyId: API_KEY_ID,
    clientReferenceId: options.referenceId ?? null,
    issuerId: 'iss_batch_test',
    supplierKey: 'sup_batch_test',
    issuanceType: 'STANDARD',
    status: 'PENDING',
    invoice,
    writeDate: today(),
    issueDeadline: today(),
    lateIssuance: false,
    counterpartNumber: RECIPIENT_NUMBER,
    taxType: 'TAXABLE',
    supplyCostTotal: 200_000,
    taxTotal: 20_000,
    totalAmount: options.refused ? 1 : 220_000,
    chargedPoints: options.points ?? 0,
    chargeEntryId: null,
    reservationId: null,
    amendmentReason: null,
    originalIssuanceKey: null,
    originalNtsTransactionId: null,
    requestGroup: null,
  };
  const claim = options.referenceId === undefined ? null : { apiKeyId: API_KEY_ID,
    referenceId: options.referenceId,
    fingerprint: createHash('sha256').update(options.referenceId).digest('hex') };
  const charge = options.points === undefined ? null
    : { points: options.points, requestId: `trace_${randomUUID()}` };
  return { rows: [row], claim, charge };
}

const keyOf = (item: Recording) => item.rows[0]!.issuanceKey as string;

// The constraint a database error names, wherever in the chain of causes the driver put it.
function constraintOf(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { constraint } = cause as Error & { constraint?: string };
    if (constraint !== undefined) return constraint;
  }
  return undefined;
}

async function stagedIssuanceSteps(issuanceKeys: string[]): Promise<string[]> {
  const result = await app.platform.database.db.execute<{ key: string }>(sql`
    select issuance_key as key from tax_invoice_steps
     where step = 'ISSUANCE' and issuance_key in (${sql.join(
       issuanceKeys.map((key) => sql`${key}`), sql`, `)})`);
  return result.rows.map((row) => row.key).sort();
}

async function storedKeys(issuanceKeys: string[]): Promise<string[]> {
  const rows = await store.findInvoicesByKeys(app.platform.database.db, issuanceKeys);
  return rows.map((row) => row.issuanceKey).sort();
}

describe('recording issuance requests together', () => {
  it('fails only the request whose document the database refuses; the others commit', async () => {
    const items = [recording({ referenceId: randomUUID() }), recording(),
      recording({ refused: true, referenceId: randomUUID() }), recording(),
      recording({ referenceId: randomUUID() })];
    // Sent in one tick, so they form one batch.
    const outcomes = await Promise.allSettled(items.map((item) => record(item)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled',
      'rejected', 'fulfilled', 'fulfilled']);
    const accepted = items.filter((_, index) => index !== 2);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled'
      ? outcome.value.issuanceKeys : []))).toEqual(accepted.map(keyOf));
    const failure = (outcomes[2] as PromiseRejectedResult).reason;
    expect(isApiError(failure)).toBe(false);
    expect(constraintOf(failure)).toBe('tax_invoices_total');

    const allKeys = items.map(keyOf);
    expect(await storedKeys(allKeys)).toEqual(accepted.map(keyOf).sort());
    expect(await stagedIssuanceSteps(allKeys)).toEqual(accepted.map(keyOf).sort());
    for (const item of accepted) {
      const history = await store.findStatusChanges(app.platform.database.db, keyOf(item));
      expect(history.map((change) => [change.fromStatus, change.toStatus, change.actor]))
        .toEqual([[null, 'PENDING', 'API']]);
    }
    // The failed request claimed nothing: its reference id can still be used.
    const retried = recording({ referenceId: items[2]!.claim!.referenceId });
    expect((await record(retried)).issuanceKeys).toEqual([keyOf(retried)]);
  });

  it('keeps a reference id for the earlier request and refuses the later one with 400 ' +
    'INVALID_REQUEST when another request of the batch fails', async () => {
    const reused = randomUUID();
    const unused = randomUUID();
    const items = [recording({ referenceId: reused }), recording({ refused: true,
      referenceId: unused }), recording({ referenceId: reused })];
    const outcomes = await Promise.allSettled(items.map((item) => record(item)));
    expect(outcomes[0]).toEqual({ status: 'fulfilled',
      value: { issuanceKeys: [keyOf(items[0]!)] } });
    expect(outcomes[1]!.status).toBe('rejected');
    // The earlier request of the batch keeps the reference id; the later one is refused as
    // it would be alone.
    const refused = (outcomes[2] as PromiseRejectedResult).reason;
    expect(isApiError(refused) && refused.code).toBe('INVALID_REQUEST');
    expect(await storedKeys(items.map(keyOf))).toEqual([keyOf(items[0]!)]);
    const retried = recording({ referenceId: unused });
    expect((await record(retried)).issuanceKeys).toEqual([keyOf(retried)]);
  });

  it('records every request of a batch without failures', async () => {
    const items = Array.from({ length: 20 }, () => recording());
    const outcomes = await Promise.all(items.map((item) => record(item)));
    expect(outcomes.map((outcome) => outcome.issuanceKeys[0])).toEqual(items.map(keyOf));
    expect(await storedKeys(items.map(keyOf))).toEqual(items.map(keyOf).sort());
  });

  it('debits each request with its documents; a request the points no longer cover is ' +
    'refused 402 and gives its reference id back, the others of the batch are recorded',
  async () => {
    const funded = await app.createFundedAccount(1_000);
    const points = async () => (await app.platform.points.getBalance({
      accountId: funded.accountId, environment: 'test' })).balance;
    const before = await points();
    const uncovered = randomUUID();
    const forAccount = (item: Recording) => ({ ...item, rows: item.rows.map((row) =>
      ({ ...row, accountId: funded.accountId })) });
    // More than is left after the first request: 402.
    const items = [recording({ points: 300 }),
      recording({ points: before, referenceId: uncovered }),
      recording({ points: 300, referenceId: uncovered }), recording({ points: 300 })]
      .map(forAccount);
    const outcomes = await Promise.allSettled(items.map((item) => record(item)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected',
      'fulfilled', 'fulfilled']);
    const refusal = (outcomes[1] as PromiseRejectedResult).reason;
    expect(isApiError(refusal) && refusal.code).toBe('PAYMENT_REQUIRED');
    // The later request of the batch got the reference id the refused one gave back, as it
    // would have alone.
    expect(await points()).toBe(before - 900);
    const recorded = items.filter((_, index) => index !== 1);
    expect(await storedKeys(items.map(keyOf))).toEqual(recorded.map(keyOf).sort());
    const rows = await store.findInvoicesByKeys(app.platform.database.db, recorded.map(keyOf));
    const entries = await app.platform.database.db.execute<{ id: string; amount: number;
      requestId: string; documentId: string }>(sql`
      select id, amount_points::int as amount, request_id as "requestId",
             document_id as "documentId"
        from point_ledger_entries
       where account_id = ${funded.accountId} and kind = 'charge' order by id`);
    expect(entries.rows.map((entry) => entry.documentId).sort()).toEqual(recorded.map(keyOf)
      .sort());
    for (const row of rows) {
      const entry = entries.rows.find((candidate) => candidate.id === row.chargeEntryId);
      expect(entry).toMatchObject({ amount: -300, documentId: row.issuanceKey,
        requestId: items.find((item) => keyOf(item) === row.issuanceKey)!.charge!.requestId });
    }
  });
});
