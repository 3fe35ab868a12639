// GET /v1/businessRegistrationStatuses/{n} and POST /v1/businessRegistrationStatuses:bulkInquire
// (docs/registration-status.md). Method: one app whose accounts start with no test points
// (TEST_SIGNUP_POINTS=0), so each test grants exactly what it needs and checks the balance to
// the point, and whose live tax authority is a fake that counts its calls and can be made to
// fail. Test keys use the sandbox numbers of docs/sandbox.md. Every test that touches points
// ends with the ledger audit.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findProfileRow, upsertProfileRow } from '../../../src/areas/businesses/profiles/store.ts';
import type {
  StatusCheckResult,
  StatusOfNumber,
  TaxAuthority,
} from '../../../src/upstream/tax-authority/index.ts';
import {
  SANDBOX_CLOSED_ON,
  SANDBOX_STATUS_NUMBERS as N,
} from '../../../src/upstream/tax-authority/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectError } from '../../helpers/errors.ts';
import { validNumbers } from '../../helpers/business-numbers.ts';

const BULK_URL = '/v1/businessRegistrationStatuses:bulkInquire';
const SINGLE_URL = '/v1/businessRegistrationStatuses/';
const PRICE_POINTS = 10;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The fake live tax authority: answers from `liveAnswers` (ACTIVE/GENERAL otherwise), or is
// unavailable when `liveDown`; records the numbers of every call.
const liveCalls: string[][] = [];
const liveAnswers = new Map<string, StatusOfNumber>();
let liveDown = false;
const fakeLive: TaxAuthority = {
  async checkStatuses(numbers): Promise<StatusCheckResult> {
    liveCalls.push([...numbers]);
    if (liveDown) return { kind: 'unavailable' };
    const fallback: StatusOfNumber = { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' };
    return {
      kind: 'answered',
      results: new Map(numbers.map((number) => [number, liveAnswers.get(number) ?? fallback])),
    };
  },
};

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { TEST_SIGNUP_POINTS: '0' }, liveTaxAuthority: fakeLive });
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  liveCalls.length = 0;
  liveAnswers.clear();
  liveDown = false;
});

const { fundedAccount, expectBalance } = accountHelpers(() => app);

function bulk(key: string, payload: unknown): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: 'POST',
    url: BULK_URL,
    headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
}

function single(key: string, number: string): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: 'GET',
    url: `${SINGLE_URL}${encodeURIComponent(number)}`,
    headers: { authorization: basicAuth(key) },
  });
}

type Item = StatusOfNumber & { businessRegistrationNumber: string; checkedAt: string };

const item = (businessRegistrationNumber: string, status: StatusOfNumber): Item => ({
  businessRegistrationNumber,
  ...status,
  checkedAt: expect.stringMatching(ISO_UTC) as unknown as string,
});
const active = (number: string, taxType: StatusOfNumber['taxType'] = 'GENERAL') =>
  item(number, { status: 'ACTIVE', closedOn: null, taxType });

// `count` distinct valid numbers outside the sandbox list.

describe('sandbox (test keys)', () => {
  it('reaches every registration state and every tax type, in the order sent', async () => {
    const account = await fundedAccount(1_000);
    const numbers = [
      N.activeGeneral, N.activeSimplifiedReceiptIssuer, N.activeSimplifiedTaxInvoiceIssuer,
      N.activeSpecialTaxpayer, N.activeTaxFree, N.activeNonprofit,
      N.activeUniqueNumberOrganization, N.suspended, N.closed, N.notRegistered, N.unknown,
    ];
    const response = await bulk(account.keys.test, { businessRegistrationNumbers: numbers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      results: [
        active(N.activeGeneral, 'GENERAL'),
        active(N.activeSimplifiedReceiptIssuer, 'SIMPLIFIED_RECEIPT_ISSUER'),
        active(N.activeSimplifiedTaxInvoiceIssuer, 'SIMPLIFIED_TAX_INVOICE_ISSUER'),
        active(N.activeSpecialTaxpayer, 'SPECIAL_TAXPAYER'),
        active(N.activeTaxFree, 'TAX_FREE'),
        active(N.activeNonprofit, 'NONPROFIT'),
        active(N.activeUniqueNumberOrganization, 'UNIQUE_NUMBER_ORGANIZATION'),
        item(N.suspended, { status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL' }),
        item(N.closed, { status: 'CLOSED', closedOn: SANDBOX_CLOSED_ON, taxType: 'GENERAL' }),
        item(N.notRegistered, { status: 'NOT_REGISTERED', closedOn: null, taxType: null }),
        item(N.unknown, { status: 'UNKNOWN', closedOn: null, taxType: null }),
      ],
    });
    await expectBalance(account, 1_000 - 11 * PRICE_POINTS);
  });

  it('answers a single number, hyphens allowed, and charges 10', async () => {
    const account = await fundedAccount(10);
    const response = await single(account.keys.test, '999-99-01080');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(
      item(N.closed, { status: 'CLOSED', closedOn: SANDBOX_CLOSED_ON, taxType: 'GENERAL' }),
    );
    await expectBalance(account, 0);
  });

  it('answers a valid number outside the list as ACTIVE/GENERAL', async () => {
    const account = await fundedAccount(10);
    const [number] = validNumbers(1);
    const response = await single(account.keys.test, number!);
    expect(response.json()).toEqual(active(number!));
    await expectBalance(account, 0);
  });
});

describe('bulk', () => {
  it('answers 1 number and charges 10', async () => {
    const account = await fundedAccount(10);
    const response = await bulk(account.keys.test, {
      businessRegistrationNumbers: ['999-99-01004'],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ results: [active(N.activeGeneral)] });
    await expectBalance(account, 0);
  });

  it('answers 100 numbers in the order sent and charges 1,000', async () => {
    const account = await fundedAccount(1_000);
    const numbers = validNumbers(100);
    const response = await bulk(account.keys.test, { businessRegistrationNumbers: numbers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ results: numbers.map((number) => active(number)) });
    await expectBalance(account, 0);
  });

  it('refuses 101 numbers (and 0) with 400 and charges nothing', async () => {
    const account = await fundedAccount(2_000);
    expectError(await bulk(account.keys.test, { businessRegistrationNumbers: validNumbers(101) }),
      400, 'INVALID_REQUEST');
    expectError(await bulk(account.keys.test, { businessRegistrationNumbers: [] }),
      400, 'INVALID_REQUEST');
    await expectBalance(account, 2_000);
  });

  it('answers duplicates once per item, in the order sent, and charges per distinct number',
    async () => {
      const account = await fundedAccount(100);
      const numbers = [N.suspended, '999-99-01004', N.suspended, N.activeGeneral, '9999901076'];
      const response = await bulk(account.keys.test, { businessRegistrationNumbers: numbers });
      expect(response.statusCode).toBe(200);
      const suspended = item(N.suspended, {
        status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL',
      });
      const { results } = response.json() as { results: Item[] };
      expect(results).toEqual([
        suspended, active(N.activeGeneral), suspended, active(N.activeGeneral), suspended,
      ]);
      expect(new Set(results.map((result) => result.checkedAt)).size).toBe(1);
      await expectBalance(account, 100 - 2 * PRICE_POINTS);
    });

  it('refuses the whole request when one number is malformed, naming its index', async () => {
    const account = await fundedAccount(100);
    const notTenDigits = await bulk(account.keys.test, {
      businessRegistrationNumbers: [N.activeGeneral, '12345'],
    });
    expectError(notTenDigits, 400, 'INVALID_REQUEST');
    expect(notTenDigits.json().message).toContain('businessRegistrationNumbers[1]');
    const badChecksum = await bulk(account.keys.test, {
      businessRegistrationNumbers: [N.activeGeneral, N.closed, '9999901000'],
    });
    expectError(badChecksum, 400, 'INVALID_BUSINESS_REGISTRATION_NUMBER');
    expect(badChecksum.json().message).toContain('businessRegistrationNumbers[2]');
    await expectBalance(account, 100);
  });

  it('answers 503 LOOKUP_UNAVAILABLE, never UNKNOWN, when the authority fails, and charges ' +
    'nothing', async () => {
    const account = await fundedAccount(100);
    expectError(await bulk(account.keys.test, {
      businessRegistrationNumbers: [N.activeGeneral, N.unavailable, N.closed],
    }), 503, 'LOOKUP_UNAVAILABLE');
    expectError(await single(account.keys.test, N.unavailable), 503, 'LOOKUP_UNAVAILABLE');
    await expectBalance(account, 100);
  });

  it('answers 402 when the balance does not cover 10 per distinct number', async () => {
    const account = await fundedAccount(20);
    expectError(await bulk(account.keys.test, {
      businessRegistrationNumbers: [N.activeGeneral, N.closed, N.suspended],
    }), 402, 'PAYMENT_REQUIRED');
    await expectBalance(account, 20);
  });
});

describe('single number checks', () => {
  it('refuses a number that is not ten digits with 400 INVALID_REQUEST', async () => {
    const account = await fundedAccount(10);
    expectError(await single(account.keys.test, '999-99-0100'), 400, 'INVALID_REQUEST');
    expectError(await single(account.keys.test, '99999O1004'), 400, 'INVALID_REQUEST');
    await expectBalance(account, 10);
  });

  it('refuses a checksum mismatch with 400 INVALID_BUSINESS_REGISTRATION_NUMBER', async () => {
    const account = await fundedAccount(10);
    expectError(await single(account.keys.test, '999-99-01005'), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
    await expectBalance(account, 10);
  });
});

describe('live keys', () => {
  const STORED = validNumbers(3, '5678');
  const [withProfile, closedProfile, withoutProfile] = STORED as [string, string, string];

  beforeAll(async () => {
    await app.platform.database.db.transaction(async (tx) => {
      await upsertProfileRow(tx, {
        businessRegistrationNumber: withProfile,
        organizationName: '주식회사 상태확인',
        registrationStatus: 'CLOSED',
        registrationClosedOn: '2020-01-01',
        registrationCheckedAt: new Date('2020-01-02T00:00:00.000Z'),
        taxationType: 'TAX_FREE',
      }, []);
      await upsertProfileRow(tx, { businessRegistrationNumber: closedProfile }, []);
    });
  });

  it('asks 100 numbers in exactly one upstream call and charges 1,000', async () => {
    const account = await fundedAccount(1_000, 'live');
    const numbers = validNumbers(100, '4321');
    const response = await bulk(account.keys.live, { businessRegistrationNumbers: numbers });
    expect(response.statusCode).toBe(200);
    expect(liveCalls).toEqual([numbers]);
    await expectBalance(account, 0, 'live');
  });

  it('asks each distinct number once', async () => {
    const account = await fundedAccount(100, 'live');
    const response = await bulk(account.keys.live, {
      businessRegistrationNumbers: [withProfile, withoutProfile, withProfile],
    });
    expect(response.statusCode).toBe(200);
    expect(liveCalls).toEqual([[withProfile, withoutProfile]]);
    await expectBalance(account, 100 - 2 * PRICE_POINTS, 'live');
  });

  it('stores each result as the registration and taxation of an existing profile', async () => {
    // 30 for the three checks, 90 for the profile retrieval at the end.
    const account = await fundedAccount(120, 'live');
    liveAnswers.set(withProfile, { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' });
    liveAnswers.set(closedProfile, {
      status: 'CLOSED', closedOn: '2025-03-31', taxType: 'SIMPLIFIED_TAX_INVOICE_ISSUER',
    });
    liveAnswers.set(withoutProfile, { status: 'NOT_REGISTERED', closedOn: null, taxType: null });
    const response = await bulk(account.keys.live, { businessRegistrationNumbers: STORED });
    expect(response.statusCode).toBe(200);
    const { results } = response.json() as { results: Item[] };
    const checkedAt = results[0]!.checkedAt;
    const db = app.platform.database.db;
    const first = await findProfileRow(db, withProfile);
    expect(first?.profile).toMatchObject({
      organizationName: '주식회사 상태확인',
      registrationStatus: 'ACTIVE',
      registrationClosedOn: null,
      taxationType: 'GENERAL',
    });
    expect(first?.profile.registrationCheckedAt?.toISOString()).toBe(checkedAt);
    expect((await findProfileRow(db, closedProfile))?.profile).toMatchObject({
      registrationStatus: 'CLOSED',
      registrationClosedOn: '2025-03-31',
      taxationType: 'SIMPLIFIED_TAX_INVOICE_ISSUER',
    });
    // No profile row is created for a number without one.
    expect(await findProfileRow(db, withoutProfile)).toBeNull();
    await expectBalance(account, 120 - 3 * PRICE_POINTS, 'live');

    // The profile retrieval now shows the stored check.
    const profile = await app.server.inject({
      method: 'GET',
      url: `/v1/businessProfiles/${closedProfile}`,
      headers: { authorization: basicAuth(account.keys.live) },
    });
    expect(profile.json()).toMatchObject({
      registration: { status: 'CLOSED', closedOn: '2025-03-31', checkedAt },
      taxation: { type: 'SIMPLIFIED_TAX_INVOICE_ISSUER' },
    });
    await expectBalance(account, 0, 'live');
  });

  it('does not write the shared store with sandbox answers of test keys', async () => {
    const account = await fundedAccount(10);
    const before = await findProfileRow(app.platform.database.db, closedProfile);
    const response = await single(account.keys.test, closedProfile);
    expect(response.json()).toEqual(active(closedProfile));
    expect(await findProfileRow(app.platform.database.db, closedProfile)).toEqual(before);
    expect(liveCalls).toEqual([]);
  });

  it('answers 503 LOOKUP_UNAVAILABLE when the authority fails, stores and charges nothing',
    async () => {
      const account = await fundedAccount(100, 'live');
      liveDown = true;
      const before = await findProfileRow(app.platform.database.db, withProfile);
      expectError(await bulk(account.keys.live, { businessRegistrationNumbers: STORED }),
        503, 'LOOKUP_UNAVAILABLE');
      expectError(await single(account.keys.live, withProfile), 503, 'LOOKUP_UNAVAILABLE');
      expect(liveCalls).toHaveLength(2);
      expect(await findProfileRow(app.platform.database.db, withProfile)).toEqual(before);
      await expectBalance(account, 100, 'live');
    });
});
