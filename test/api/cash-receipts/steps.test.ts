// The processing steps over the receipts' queue (docs/cash-receipts.md § Processing), on the
// app's clock: an authority that cannot be reached is asked again after each documented delay
// and the receipt then fails with APPROVAL_UNAVAILABLE, refunded; a transmission the authority
// does not take is tried again later; a leased receipt is taken by one worker at a time and
// again only once its lease has run out, and then changes nothing twice. Also: a price the
// balance does not cover answers 402 and leaves no claim behind, so the same request can be
// sent again once the account is topped up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveDueReceipts } from '../../../src/areas/cash-receipts/processing/approval-job.ts';
import type { ProcessingDeps } from '../../../src/areas/cash-receipts/processing/batch.ts';
import {
  transmitDueReceipts,
} from '../../../src/areas/cash-receipts/processing/transmission-job.ts';
import type { CashReceiptAuthority } from '../../../src/upstream/cash-receipts/index.ts';
import {
  SANDBOX_IDENTITY_NUMBERS,
  createSandboxCashReceiptAuthority,
} from '../../../src/upstream/cash-receipts/sandbox.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  accepted,
  createMerchantAccount,
  issueReceipt,
  receiptBody,
  referenceId,
  request,
  type MerchantAccount,
} from './helpers.ts';

let app: TestApp;
let merchant: MerchantAccount;
let clockMs = Date.now();
const now = () => new Date(clockMs);

beforeAll(async () => {
  // No workers: the tests run the steps themselves.
  app = await createTestApp({ now, env: { WORKERS_ENABLED: 'false' } });
  merchant = await createMerchantAccount(app);
});
afterAll(async () => {
  await app?.close();
});

// A receipt with its step; the step's columns are null once the receipt is decided.
type StepRow = { status: string; step: string | null; attempt_number: number | null;
  due_at: Date | null; leased_until: Date | null; failure_code: string | null;
  approval_number: string | null };

async function stepOf(issuanceKey: string): Promise<StepRow> {
  const result = await app.platform.database.pool.query(`select r.status, s.step,
    s.attempt_number, s.due_at, s.leased_until, r.failure_code, r.approval_number
    from cash_receipts r left join cash_receipt_steps s using (issuance_key)
    where r.issuance_key = $1`, [issuanceKey]);
  return result.rows[0] as StepRow;
}

function deps(authority: CashReceiptAuthority | null): ProcessingDeps {
  return {
    db: app.platform.database.db, sealing: app.sealing, points: app.platform.points,
    recordEvents: app.webhooks.recordEvents, queueMails: app.platform.queueMails,
    authorityFor: () => authority, gatewayTimeoutMs: 1_000,
    transmissionDueAt: (_, approvedAt) => approvedAt,
    approvalRetryDelaysSeconds: [30, 120], now, log: app.platform.log,
  };
}

const sandbox = createSandboxCashReceiptAuthority({ approvalDelayMs: 0 });

async function eventTypes(issuanceKey: string): Promise<string[]> {
  const result = await app.platform.database.pool.query(`select type from webhook_events
    where data->>'issuanceKey' = $1 order by type`, [issuanceKey]);
  return result.rows.map((row: { type: string }) => row.type);
}

const balance = async () => (await app.platform.points.getBalance({
  accountId: merchant.accountId, environment: 'test' })).balance;

// Runs the step until it finds nothing due, as a worker would.
async function drain(step: () => Promise<number>) {
  while (await step() > 0) { /* the next batch */ }
}

describe('approval', () => {
  it('asks again after each delay, then fails APPROVAL_UNAVAILABLE and refunds', async () => {
    const before = await balance();
    const issuanceKey = await accepted(await issueReceipt(app, merchant.key,
      merchant.supplierKey, receiptBody({
        identityNumber: SANDBOX_IDENTITY_NUMBERS.unavailable })));
    expect(await balance()).toBe(before - 10);
    const processing = deps(sandbox);

    await drain(() => approveDueReceipts(processing));
    let row = await stepOf(issuanceKey);
    expect(row).toMatchObject({ status: 'ACCEPTED', step: 'APPROVAL', attempt_number: 2,
      leased_until: null });
    expect(row.due_at!.getTime()).toBe(clockMs + 30_000);
    // Not due yet: nothing happens.
    clockMs += 29_000;
    await drain(() => approveDueReceipts(processing));
    expect(await stepOf(issuanceKey)).toMatchObject({ attempt_number: 2 });

    clockMs += 1_000;
    await drain(() => approveDueReceipts(processing));
    row = await stepOf(issuanceKey);
    expect(row).toMatchObject({ status: 'ACCEPTED', attempt_number: 3 });
    expect(row.due_at!.getTime()).toBe(clockMs + 120_000);

    clockMs += 120_000;
    await drain(() => approveDueReceipts(processing));
    expect(await stepOf(issuanceKey)).toMatchObject({ status: 'FAILED', step: null,
      failure_code: 'APPROVAL_UNAVAILABLE', approval_number: null });
    expect(await balance()).toBe(before);
    expect(await eventTypes(issuanceKey)).toEqual(['CASH_RECEIPT_FAILED']);
  });

  it('gives a leased receipt to one worker; after its lease, again, changing nothing twice',
    async () => {
      const keys = await Promise.all(Array.from({ length: 6 }, async () => accepted(
        await issueReceipt(app, merchant.key, merchant.supplierKey, receiptBody()))));
      const asked: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      const slow: CashReceiptAuthority = {
        async approve(request, signal) {
          asked.push(request.issuanceKey);
          await held;
          return sandbox.approve(request, signal);
        },
        transmit: sandbox.transmit,
      };
      // Two workers at once: each receipt is asked about once.
      const first = approveDueReceipts(deps(slow));
      const second = approveDueReceipts(deps(slow));
      await pollUntil(async () => asked.length, (count) => count === keys.length);
      for (const key of keys) expect((await stepOf(key)).leased_until).not.toBeNull();
      // A third finds them all leased.
      expect(await approveDueReceipts(deps(sandbox))).toBe(0);
      release();
      expect((await first) + (await second)).toBe(keys.length);
      expect(new Set(asked).size).toBe(keys.length);
      for (const key of keys) {
        expect(await stepOf(key)).toMatchObject({ status: 'ISSUED', step: 'TRANSMISSION',
          attempt_number: 1, leased_until: null });
        expect(await eventTypes(key)).toEqual(['CASH_RECEIPT_ISSUED']);
      }
    });

  it('takes up to 200 receipts in one batch and asks about them 50 at a time', async () => {
    const keys = await Promise.all(Array.from({ length: 60 }, async () => accepted(
      await issueReceipt(app, merchant.key, merchant.supplierKey, receiptBody()))));
    let inFlight = 0;
    let mostAtOnce = 0;
    const asked = new Set<string>();
    const counting: CashReceiptAuthority = {
      async approve(request, signal) {
        inFlight += 1;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        asked.add(request.issuanceKey);
        await new Promise((resolve) => { setTimeout(resolve, 5); });
        inFlight -= 1;
        return sandbox.approve(request, signal);
      },
      transmit: sandbox.transmit,
    };
    expect(await approveDueReceipts(deps(counting))).toBeGreaterThanOrEqual(keys.length);
    expect(mostAtOnce).toBe(50);
    for (const key of keys) {
      expect(asked.has(key)).toBe(true);
      expect(await stepOf(key)).toMatchObject({ status: 'ISSUED', step: 'TRANSMISSION' });
    }
  });

  it('takes a receipt again once the lease of a worker that died has run out', async () => {
    const issuanceKey = await accepted(await issueReceipt(app, merchant.key,
      merchant.supplierKey, receiptBody()));
    // A worker that leases and then never answers.
    const dead: CashReceiptAuthority = { approve: () => new Promise(() => {}),
      transmit: () => new Promise(() => {}) };
    void approveDueReceipts(deps(dead));
    await pollUntil(() => stepOf(issuanceKey), (row) => row.leased_until !== null);
    expect(await approveDueReceipts(deps(sandbox))).toBe(0);
    const leasedUntil = (await stepOf(issuanceKey)).leased_until!;
    clockMs = leasedUntil.getTime();
    await drain(() => approveDueReceipts(deps(sandbox)));
    expect(await stepOf(issuanceKey)).toMatchObject({ status: 'ISSUED', attempt_number: 1 });
    expect(await eventTypes(issuanceKey)).toEqual(['CASH_RECEIPT_ISSUED']);
  });
});

describe('transmission', () => {
  it('tries a transmission the authority does not take again, further apart', async () => {
    const issuanceKey = await accepted(await issueReceipt(app, merchant.key,
      merchant.supplierKey, receiptBody()));
    await drain(() => approveDueReceipts(deps(sandbox)));
    expect((await stepOf(issuanceKey)).status).toBe('ISSUED');
    const down: CashReceiptAuthority = { approve: sandbox.approve,
      transmit: () => Promise.resolve({ kind: 'unavailable' }) };

    await drain(() => transmitDueReceipts(deps(down)));
    let row = await stepOf(issuanceKey);
    expect(row).toMatchObject({ status: 'ISSUED', step: 'TRANSMISSION', attempt_number: 2,
      leased_until: null });
    expect(row.due_at!.getTime()).toBe(clockMs + 2_000);
    clockMs += 2_000;
    await drain(() => transmitDueReceipts(deps(down)));
    row = await stepOf(issuanceKey);
    expect(row).toMatchObject({ status: 'ISSUED', attempt_number: 3 });
    expect(row.due_at!.getTime()).toBe(clockMs + 4_000);

    clockMs += 4_000;
    await drain(() => transmitDueReceipts(deps(sandbox)));
    expect(await stepOf(issuanceKey)).toMatchObject({ status: 'TRANSMITTED', step: null });
    expect(await eventTypes(issuanceKey)).toEqual(['CASH_RECEIPT_ISSUED',
      'CASH_RECEIPT_TRANSMITTED']);
  });
});

describe('a price the balance does not cover', () => {
  it('answers 402 and keeps no claim: the same request is accepted after a top-up',
    async () => {
      const poor = await createTestApp({ env: { WORKERS_ENABLED: 'false',
        TEST_SIGNUP_POINTS: '25' } });
      try {
        const account = await createMerchantAccount(poor, 'Nearly broke');
        const references = [referenceId(), referenceId(), referenceId()];
        // Points for two of three requests accepted together.
        const answers = await Promise.all(references.map((reference) => issueReceipt(poor,
          account.key, account.supplierKey, receiptBody(), reference)));
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 202, 402]);
        const refused = answers.findIndex((answer) => answer.statusCode === 402);
        expectError(answers[refused]!, 402, 'PAYMENT_REQUIRED');
        const reference = references[refused]!;
        expectError(await poor.server.inject(request(account.key, 'GET',
          `/v1/cashReceipts/issue/status?clientReferenceId=${reference}`)), 404, 'NOT_FOUND');

        await poor.platform.points.grant({ accountId: account.accountId, environment: 'test',
          points: 10 });
        const retried = await accepted(await issueReceipt(poor, account.key,
          account.supplierKey, receiptBody(), reference));
        expect(await accepted(await issueReceipt(poor, account.key, account.supplierKey,
          receiptBody(), reference))).toBe(retried);
        const counts = await poor.platform.database.pool.query(`select
          (select count(*) from idempotency_claims where namespace = 'cashReceipt')::int
            as claims,
          (select count(*) from cash_receipts)::int as receipts`);
        expect(counts.rows[0]).toEqual({ claims: 3, receipts: 3 });
        expect((await poor.platform.points.getBalance({ accountId: account.accountId,
          environment: 'test' })).balance).toBe(5);
      } finally {
        await poor.close();
      }
    });
});
