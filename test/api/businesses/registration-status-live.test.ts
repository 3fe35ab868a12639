// Live registration status checks wired from the configuration: TAX_AUTHORITY_BASE_URL and
// TAX_AUTHORITY_SERVICE_KEY point the app at a fake of the tax authority's public
// business-status API on 127.0.0.1, so the whole path is exercised: one
// POST /status for 100 numbers, code mapping, storing back, charging, and 503 on its error
// envelope with nothing charged.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findProfileRow, upsertProfileRow } from '../../../src/areas/businesses/profiles/store.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import { validNumbers as validNumbersFrom } from '../../helpers/business-numbers.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';

// Numbers of this file start with 2468, apart from the other files' numbers.
const validNumbers = (count: number) => validNumbersFrom(count, '2468');

const received: Array<{ url?: string; numbers: string[] }> = [];
let failing = false;
let server: FakeServer;
let app: TestApp;

// Every number is closed on 2025-03-31 with tax-type code 04 (tax-exempt).
function answer(numbers: string[]) {
  return {
    request_cnt: numbers.length, match_cnt: numbers.length, status_code: 'OK',
    data: numbers.map((b_no) => ({
      b_no, b_stt: '폐업자', b_stt_cd: '03', tax_type: '부가가치세 면세사업자',
      tax_type_cd: '04', end_dt: '20250331', utcc_yn: 'N', tax_type_change_dt: '',
      invoice_apply_dt: '', rbf_tax_type: '해당없음', rbf_tax_type_cd: '99',
    })),
  };
}

beforeAll(async () => {
  server = await startFakeServer((request, response) => {
    const { b_no: numbers } = JSON.parse(request.text) as { b_no: string[] };
    received.push({ url: request.url, numbers });
    sendJson(response, failing ? 500 : 200,
      JSON.stringify(failing ? { status_code: 'INTERNAL_ERROR' } : answer(numbers)));
  });
  app = await createTestApp({
    env: {
      TEST_SIGNUP_POINTS: '0',
      TAX_AUTHORITY_BASE_URL: `${server.origin}/v1`,
      TAX_AUTHORITY_SERVICE_KEY: 'fake-key',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});
beforeEach(() => {
  received.length = 0;
  failing = false;
});

async function liveAccount(points: number) {
  const account = await app.createAccount();
  await app.platform.points.grant({ accountId: account.accountId, environment: 'live', points });
  return account;
}

function bulk(key: string, numbers: string[]) {
  return app.server.inject({
    method: 'POST',
    url: '/v1/businessRegistrationStatuses:bulkInquire',
    headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
    payload: JSON.stringify({ businessRegistrationNumbers: numbers }),
  });
}

describe('live checks through the configured tax authority', () => {
  it('asks 100 numbers in one call, maps the codes, stores back and charges 1,000', async () => {
    const numbers = validNumbers(100);
    await app.platform.database.db.transaction((tx) =>
      upsertProfileRow(tx, { businessRegistrationNumber: numbers[7]! }, []));
    const account = await liveAccount(1_000);
    const response = await bulk(account.keys.live, numbers);
    expect(response.statusCode).toBe(200);
    expect(received).toEqual([{ url: '/v1/status?serviceKey=fake-key', numbers }]);
    const { results } = response.json() as { results: Array<Record<string, unknown>> };
    expect(results).toHaveLength(100);
    expect(results[7]).toEqual({
      businessRegistrationNumber: numbers[7],
      status: 'CLOSED',
      closedOn: '2025-03-31',
      taxType: 'TAX_FREE',
      checkedAt: expect.any(String),
    });
    const stored = await findProfileRow(app.platform.database.db, numbers[7]!);
    expect(stored?.profile).toMatchObject({
      registrationStatus: 'CLOSED', registrationClosedOn: '2025-03-31', taxationType: 'TAX_FREE',
    });
    expect(stored?.profile.registrationCheckedAt?.toISOString()).toBe(results[7]!.checkedAt);
    const balance = await app.platform.points.getBalance({
      accountId: account.accountId, environment: 'live',
    });
    expect(balance).toEqual({ balance: 0, reserved: 0, available: 0 });
    await expectLedgerConsistent(app.platform, account.accountId, 'live');
  });

  it('answers 503 LOOKUP_UNAVAILABLE on its error envelope and charges nothing', async () => {
    failing = true;
    const account = await liveAccount(100);
    const response = await bulk(account.keys.live, validNumbers(3));
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'LOOKUP_UNAVAILABLE' });
    expect(received).toHaveLength(1);
    const balance = await app.platform.points.getBalance({
      accountId: account.accountId, environment: 'live',
    });
    expect(balance).toEqual({ balance: 100, reserved: 0, available: 100 });
    await expectLedgerConsistent(app.platform, account.accountId, 'live');
  });
});
