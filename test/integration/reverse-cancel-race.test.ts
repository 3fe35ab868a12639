// A cancel racing an approval of the same reverse issuance request has exactly one winner, on
// the real database: in every round the two requests are sent at once, exactly one answers 200,
// the other answers the 409 of the winner's status, and the request ends as the winner left it.
// The points follow the winner (refunded only when the cancel won), the issuance step is added
// only when the approval won, and the ledger sums to the balance after every round. Half the
// rounds approve with the API and half through the mailed link's page, and the cancel is sent
// after a delay that sweeps across the approval's own work. Workers are off, so an
// approved request stays APPROVED for the check.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { expectLedgerConsistent } from '../helpers/ledger-audit.ts';
import {
  createSupplierAccount,
  getInvoice,
  type Supplier,
} from '../api/tax-invoices/helpers.ts';
import {
  actorsOf,
  cancel,
  createReverseTestApp,
  decide,
  linkIn,
  mailAbout,
  newRequest,
  postForm,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';

const ROUNDS = 40;
const UNIT_POINTS = 100;
// An approval does more before its status change than a cancel (the Supplier-Key, the link, the
// certificate), so sent together the cancel nearly always wins. Delaying the cancel by a sweep of
// 0 to 19 ms moves the two changes across each other: the rounds in the middle are true races,
// and each side wins some rounds.
const CANCEL_DELAY_STEP_MS = 1;
const CANCEL_DELAY_STEPS = 20;
const cancelDelayMs = (round: number) => (round % CANCEL_DELAY_STEPS) * CANCEL_DELAY_STEP_MS;

describe.skipIf(!usingPostgres)('a cancel racing an approval', () => {
  let app: ReverseTestApp;
  let key: string;
  let accountId: string;
  let supplier: Supplier;

  beforeAll(async () => {
    app = await createReverseTestApp({ WORKERS_ENABLED: 'false' });
    ({ key, accountId, supplier } = await createSupplierAccount(app, 'Race'));
  });
  afterAll(async () => {
    await app?.close();
  });

  const balance = async () =>
    (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

  async function stagedIssuanceSteps(issuanceKey: string): Promise<number> {
    const result = await app.platform.database.db.execute<{ count: number }>(sql`
      select count(*)::int as count from tax_invoice_steps
      where step = 'ISSUANCE' and issuance_key = ${issuanceKey}`);
    return result.rows[0]!.count;
  }

  // The approval of one round: the API, or the mailed link's page (which answers HTML).
  async function approve(issuanceKey: string, round: number) {
    if (round % 2 === 0) {
      const response = await decide(app, key, issuanceKey, 'approve',
        { supplierKey: supplier.supplierKey });
      return { status: response.statusCode,
        code: response.statusCode === 200 ? null : (response.json() as { code: string }).code };
    }
    const path = new URL(linkIn((await mailAbout(app, issuanceKey)).textBody)).pathname;
    const response = await postForm(app, path, { decision: 'approve' });
    return { status: response.statusCode, code: null };
  }

  it(`has exactly one winner in each of ${ROUNDS} rounds`, async () => {
    const wins = { cancel: 0, approval: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = await balance();
      const issuanceKey = await newRequest(app, key, supplier.supplierKey);
      expect(await balance()).toBe(before - UNIT_POINTS);
      const [canceled, approved] = await Promise.all([
        sleep(cancelDelayMs(round)).then(() => cancel(app, key, issuanceKey)),
        approve(issuanceKey, round)]);
      expect([canceled.statusCode, approved.status].filter((status) => status === 200),
        `round ${round}`).toHaveLength(1);
      const status = (await getInvoice(app, key, issuanceKey)).status;
      if (canceled.statusCode === 200) {
        wins.cancel += 1;
        expect(status).toBe('REQUEST_CANCELED');
        expect(approved.status).toBe(409);
        if (approved.code !== null) expect(approved.code).toBe('ISSUE_REQUEST_ALREADY_CANCELED');
        expect(await balance()).toBe(before);
        expect(await stagedIssuanceSteps(issuanceKey)).toBe(0);
      } else {
        wins.approval += 1;
        expect(status).toBe('APPROVED');
        expect(canceled.statusCode).toBe(409);
        expect((canceled.json() as { code: string }).code)
          .toBe('ISSUE_REQUEST_ALREADY_APPROVED');
        expect(await balance()).toBe(before - UNIT_POINTS);
        expect(await stagedIssuanceSteps(issuanceKey)).toBe(1);
      }
      expect(await actorsOf(app, issuanceKey)).toHaveLength(2);
      await expectLedgerConsistent(app.platform, accountId, 'test');
    }
    expect(wins.cancel + wins.approval).toBe(ROUNDS);
    // The sweep of delays makes each side win some rounds, so both paths were raced.
    expect(wins.cancel).toBeGreaterThan(0);
    expect(wins.approval).toBeGreaterThan(0);
  });
});
