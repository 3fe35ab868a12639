// The idempotency module on the real database: Service-Client-Reference-Id behaves as
// docs/idempotency.md says for each area (tax invoices never reuse an id; cash receipts and
// documents replay the same content and refuse other content), claims are scoped per API key
// and namespace, a failed work leaves no claim, and two concurrent transactions with one
// reference id run the work once.
import { AssertionError } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tx } from '../../src/platform/db/connect.ts';
import { idempotencyClaims } from '../../src/platform/db/tables.ts';
import { ApiError, type ErrorCode } from '../../src/platform/errors.ts';
import {
  createReplayFinder,
  isValidReferenceId,
  REFERENCE_ID_LENGTH_MAX,
  requestFingerprint,
  runIdempotent,
  type IdempotencyNamespace,
  type IdempotentResult,
  type StoredResponse,
} from '../../src/platform/idempotency/claims.ts';
import { insertClaim } from '../../src/platform/idempotency/store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const ROUTES = {
  taxInvoice: '/v1/taxInvoices/issue',
  taxInvoiceAmend: '/v1/taxInvoices/amend',
  cashReceipt: '/v1/cashReceipts/issue',
  cashReceiptCancel: '/v1/cashReceipts/cancel',
  document: '/v1/documents/issue',
  documentOther: '/v1/documents/registry/issue',
};
// Long enough that a concurrent transaction reaches its claim while the first is still open.
const WORK_PAUSE_MS = 50;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

type ClaimOptions = {
  namespace: IdempotencyNamespace;
  referenceId: string;
  route: string;
  body: unknown;
  apiKeyId?: string;
  method?: string;
};

function claimFor(options: ClaimOptions) {
  return {
    apiKeyId: options.apiKeyId ?? 'key_first',
    namespace: options.namespace,
    referenceId: options.referenceId,
    fingerprint: requestFingerprint({
      method: options.method ?? 'POST',
      route: options.route,
      body: options.body,
    }),
  };
}

function documentClaim(referenceId: string) {
  return claimFor({ namespace: 'document', referenceId, route: ROUTES.document, body: {} });
}

function newReferenceId(): string {
  return `ref-${randomUUID()}`;
}

function run(
  claim: ReturnType<typeof claimFor>,
  work: (tx: Tx) => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  return app.platform.database.db.transaction((tx) => runIdempotent(tx, claim, work));
}

function workReturning(response: StoredResponse, pauseMs = 0) {
  return vi.fn(async () => {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    return response;
  });
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (reason: unknown) => reason,
  );
}

async function expectApiError(promise: Promise<unknown>, code: ErrorCode, status: number) {
  const error = await refusal(promise);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code, status });
}

async function claimRows(referenceId: string) {
  return app.platform.database.db
    .select()
    .from(idempotencyClaims)
    .where(eq(idempotencyClaims.referenceId, referenceId))
    .limit(10);
}

describe('claiming a tax invoice reference id (never reusable)', () => {
  const body = { supplied: { businessNumber: '1234567890' }, totalAmount: 11_000 };
  // A claim of a tax invoice reference id, of the issue route with `body` unless told otherwise.
  const taxInvoiceClaim = (referenceId: string,
    request: { route?: string; body?: unknown } = {}) =>
    claimFor({ namespace: 'taxInvoice', referenceId, route: ROUTES.taxInvoice, body, ...request });

  it('runs the work on first use and keeps the claim, not its response', async () => {
    const referenceId = newReferenceId();
    const work = workReturning({ status: 200, body: { invoiceKey: 'inv-1' } });
    const claim = taxInvoiceClaim(referenceId);
    await expect(run(claim, work)).resolves.toEqual({
      status: 200,
      body: { invoiceKey: 'inv-1' },
      replayed: false,
    });
    expect(work).toHaveBeenCalledTimes(1);
    const [row] = await claimRows(referenceId);
    // A tax-invoice reference id is never replayed, so nothing reads a stored response.
    expect(row).toMatchObject({ namespace: 'taxInvoice', responseStatus: null,
      responseBody: null });
  });

  it('refuses a second use with the same content with 400 INVALID_REQUEST and runs no work',
    async () => {
      const referenceId = newReferenceId();
      const claim = taxInvoiceClaim(referenceId);
      await run(claim, workReturning({ status: 200, body: { invoiceKey: 'inv-1' } }));
      const again = workReturning({ status: 200, body: { invoiceKey: 'inv-2' } });
      await expectApiError(run(claim, again), 'INVALID_REQUEST', 400);
      expect(again).not.toHaveBeenCalled();
      expect(await claimRows(referenceId)).toHaveLength(1);
    });

  it('refuses a second use with other content or another endpoint with 400 INVALID_REQUEST',
    async () => {
      const referenceId = newReferenceId();
      const first = taxInvoiceClaim(referenceId);
      await run(first, workReturning({ status: 200, body: {} }));
      const otherBody = taxInvoiceClaim(referenceId, { body: { ...body, totalAmount: 22_000 } });
      const otherRoute = taxInvoiceClaim(referenceId, { route: ROUTES.taxInvoiceAmend });
      const work = workReturning({ status: 200, body: {} });
      await expectApiError(run(otherBody, work), 'INVALID_REQUEST', 400);
      await expectApiError(run(otherRoute, work), 'INVALID_REQUEST', 400);
      expect(work).not.toHaveBeenCalled();
    });
});

describe.each([
  ['cash receipt', 'cashReceipt', ROUTES.cashReceipt, ROUTES.cashReceiptCancel],
  ['document', 'document', ROUTES.document, ROUTES.documentOther],
] as const)('claiming a %s reference id (replay or conflict)', (_, namespace, route, other) => {
  const body = { amount: 5_500, identity: '01012345678', items: [{ name: 'coffee' }] };
  const response = { status: 202, body: { issuanceKey: 'iss-1', nested: { list: [1, 2] } } };

  it('replays the stored status and body with replayed true and runs no work', async () => {
    const referenceId = newReferenceId();
    const claim = claimFor({ namespace, referenceId, route, body });
    const first = workReturning(response);
    await expect(run(claim, first)).resolves.toEqual({ ...response, replayed: false });

    const second = workReturning({ status: 500, body: { wrong: true } });
    await expect(run(claim, second)).resolves.toEqual({ ...response, replayed: true });
    await expect(run(claim, second)).resolves.toEqual({ ...response, replayed: true });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
  });

  it('replays a request whose body differs only in key order', async () => {
    const referenceId = newReferenceId();
    await run(claimFor({ namespace, referenceId, route, body }), workReturning(response));
    const reordered = { items: [{ name: 'coffee' }], identity: '01012345678', amount: 5_500 };
    const work = workReturning(response);
    const result = await run(claimFor({ namespace, referenceId, route, body: reordered }), work);
    expect(result.replayed).toBe(true);
    expect(work).not.toHaveBeenCalled();
  });

  it('refuses other content with 409 IDEMPOTENCY_CONFLICT and runs no work', async () => {
    const referenceId = newReferenceId();
    await run(claimFor({ namespace, referenceId, route, body }), workReturning(response));
    const work = workReturning(response);
    const changed = claimFor({ namespace, referenceId, route, body: { ...body, amount: 5_501 } });
    await expectApiError(run(changed, work), 'IDEMPOTENCY_CONFLICT', 409);
    expect(work).not.toHaveBeenCalled();
    const [row] = await claimRows(referenceId);
    expect(row?.responseBody).toEqual(response.body);
  });

  it('refuses the same body on another request type with 409 IDEMPOTENCY_CONFLICT', async () => {
    const referenceId = newReferenceId();
    await run(claimFor({ namespace, referenceId, route, body }), workReturning(response));
    const work = workReturning(response);
    const otherRoute = claimFor({ namespace, referenceId, route: other, body });
    await expectApiError(run(otherRoute, work), 'IDEMPOTENCY_CONFLICT', 409);
    const otherMethod = claimFor({ namespace, referenceId, route, body, method: 'PUT' });
    await expectApiError(run(otherMethod, work), 'IDEMPOTENCY_CONFLICT', 409);
    expect(work).not.toHaveBeenCalled();
  });
});

describe('looking reference ids up before the work, many at once', () => {
  const route = ROUTES.cashReceipt;
  const body = { amount: 5_500 };
  const response = { status: 202, body: { issuanceKey: 'cashReceipt_batched' } };

  it('answers each lookup of one batch on its own: free, replay, conflict, other key', async () => {
    const replayed = newReferenceId();
    const conflicting = newReferenceId();
    for (const referenceId of [replayed, conflicting]) {
      await run(claimFor({ namespace: 'cashReceipt', referenceId, route, body }),
        workReturning(response));
    }
    const find = createReplayFinder(app.platform.database.db);
    const [free, replay, conflict, otherKey] = await Promise.allSettled([
      find(claimFor({ namespace: 'cashReceipt', referenceId: newReferenceId(), route, body })),
      find(claimFor({ namespace: 'cashReceipt', referenceId: replayed, route, body })),
      find(claimFor({ namespace: 'cashReceipt', referenceId: conflicting, route,
        body: { amount: 5_501 } })),
      find(claimFor({ namespace: 'cashReceipt', referenceId: replayed, route, body,
        apiKeyId: 'key_second' })),
    ]);
    expect(free).toEqual({ status: 'fulfilled', value: null });
    expect(replay).toEqual({ status: 'fulfilled',
      value: { ...response, replayed: true } });
    expect(conflict.status).toBe('rejected');
    expect((conflict as PromiseRejectedResult).reason).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT', status: 409 });
    expect(otherKey).toEqual({ status: 'fulfilled', value: null });
  });
});

describe('scoping reference ids', () => {
  const body = { amount: 1_000 };

  it('runs the work again for the same reference id under another API key', async () => {
    const referenceId = newReferenceId();
    const work = workReturning({ status: 202, body: {} });
    for (const apiKeyId of ['key_first', 'key_second']) {
      for (const namespace of ['taxInvoice', 'cashReceipt'] as const) {
        const route = ROUTES.cashReceipt;
        const claim = claimFor({ namespace, referenceId, route, body, apiKeyId });
        await expect(run(claim, work)).resolves.toMatchObject({ replayed: false });
      }
    }
    expect(work).toHaveBeenCalledTimes(4);
    expect(await claimRows(referenceId)).toHaveLength(4);
  });

  it('runs the work again for the same reference id in another namespace', async () => {
    const referenceId = newReferenceId();
    const work = workReturning({ status: 202, body: {} });
    for (const namespace of ['taxInvoice', 'cashReceipt', 'document'] as const) {
      const claim = claimFor({ namespace, referenceId, route: ROUTES.document, body });
      await expect(run(claim, work)).resolves.toMatchObject({ replayed: false });
    }
    expect(work).toHaveBeenCalledTimes(3);
  });

  it('refuses other content under one key while another key replays its own', async () => {
    const referenceId = newReferenceId();
    const first = { namespace: 'cashReceipt', referenceId, route: ROUTES.cashReceipt } as const;
    await run(claimFor({ ...first, body, apiKeyId: 'key_first' }), workReturning({
      status: 202,
      body: { owner: 'first' },
    }));
    await run(claimFor({ ...first, body: { amount: 2 }, apiKeyId: 'key_second' }), workReturning({
      status: 202,
      body: { owner: 'second' },
    }));
    const replay = await run(claimFor({ ...first, body: { amount: 2 }, apiKeyId: 'key_second' }),
      workReturning({ status: 500, body: null }));
    expect(replay).toEqual({ status: 202, body: { owner: 'second' }, replayed: true });
    await expectApiError(
      run(claimFor({ ...first, body: { amount: 2 }, apiKeyId: 'key_first' }),
        workReturning({ status: 500, body: null })),
      'IDEMPOTENCY_CONFLICT',
      409,
    );
  });
});

describe('failing work', () => {
  it.each(['taxInvoice', 'cashReceipt', 'document'] as const)(
    'leaves no %s claim when the work throws, so the id can be used again',
    async (namespace) => {
      const referenceId = newReferenceId();
      const claim = claimFor({ namespace, referenceId, route: ROUTES.document, body: { a: 1 } });
      const failing = vi.fn(async (): Promise<StoredResponse> => {
        throw new Error('upstream failed');
      });
      await expect(run(claim, failing)).rejects.toThrow('upstream failed');
      expect(await claimRows(referenceId)).toHaveLength(0);

      const work = workReturning({ status: 202, body: { retried: true } });
      await expect(run(claim, work)).resolves.toEqual({
        status: 202,
        body: { retried: true },
        replayed: false,
      });
      expect(work).toHaveBeenCalledTimes(1);
    },
  );

  it('rolls back what the work wrote together with the claim', async () => {
    const referenceId = newReferenceId();
    const marker = newReferenceId();
    const claim = documentClaim(referenceId);
    await expect(
      run(claim, async (tx) => {
        await insertClaim(tx, {
          id: `idm_${marker}`,
          apiKeyId: 'key_marker',
          namespace: 'document',
          referenceId: marker,
          fingerprint: 'f'.repeat(64),
        });
        throw new Error('failed after writing');
      }),
    ).rejects.toThrow('failed after writing');
    expect(await claimRows(referenceId)).toHaveLength(0);
    expect(await claimRows(marker)).toHaveLength(0);
  });
});

describe('concurrent claims', () => {
  it('runs the work once for two concurrent transactions with the same content', async () => {
    const referenceId = newReferenceId();
    const claim = claimFor({
      namespace: 'cashReceipt',
      referenceId,
      route: ROUTES.cashReceipt,
      body: { amount: 3_300 },
    });
    const response = { status: 202, body: { issuanceKey: 'iss-concurrent' } };
    const work = workReturning(response, WORK_PAUSE_MS);
    const results = await Promise.all([run(claim, work), run(claim, work)]);

    expect(work).toHaveBeenCalledTimes(1);
    expect(results.map((result) => result.replayed).sort()).toEqual([false, true]);
    for (const result of results) expect(result).toMatchObject(response);
    expect(await claimRows(referenceId)).toHaveLength(1);
  });

  it('runs the work once and replays for eight concurrent transactions', async () => {
    const referenceId = newReferenceId();
    const claim = documentClaim(referenceId);
    const work = workReturning({ status: 200, body: { documentKey: 'doc-1' } }, WORK_PAUSE_MS);
    const results = await Promise.all(Array.from({ length: 8 }, () => run(claim, work)));
    expect(work).toHaveBeenCalledTimes(1);
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(results.filter((result) => result.replayed)).toHaveLength(7);
  });

  it('accepts one and refuses the other with 409 when concurrent content differs', async () => {
    const referenceId = newReferenceId();
    const base = { namespace: 'cashReceipt', referenceId, route: ROUTES.cashReceipt } as const;
    const work = workReturning({ status: 202, body: { issuanceKey: 'iss' } }, WORK_PAUSE_MS);
    const settled = await Promise.allSettled([
      run(claimFor({ ...base, body: { amount: 1 } }), work),
      run(claimFor({ ...base, body: { amount: 2 } }), work),
    ]);

    expect(work).toHaveBeenCalledTimes(1);
    const fulfilled = settled.filter((result) => result.status === 'fulfilled');
    const rejected = settled.filter((result) => result.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(fulfilled[0]?.value.replayed).toBe(false);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toBeInstanceOf(ApiError);
    expect(rejected[0]?.reason).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
  });

  it('accepts one and refuses the other with 400 for a concurrent tax invoice reference id',
    async () => {
      const referenceId = newReferenceId();
      const claim = claimFor({
        namespace: 'taxInvoice',
        referenceId,
        route: ROUTES.taxInvoice,
        body: {},
      });
      const work = workReturning({ status: 200, body: {} }, WORK_PAUSE_MS);
      const settled = await Promise.allSettled([run(claim, work), run(claim, work)]);
      expect(work).toHaveBeenCalledTimes(1);
      const rejected = settled.filter((result) => result.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    });

  it('lets a waiting transaction claim the id when the first one fails', async () => {
    const referenceId = newReferenceId();
    const claim = documentClaim(referenceId);
    let signalClaimed: () => void = () => {};
    const claimed = new Promise<void>((resolve) => {
      signalClaimed = resolve;
    });
    const failing = run(claim, async () => {
      signalClaimed();
      await new Promise((resolve) => setTimeout(resolve, WORK_PAUSE_MS));
      throw new Error('upstream failed');
    });
    // The second transaction starts while the first holds the claim uncommitted.
    await claimed;
    const work = workReturning({ status: 200, body: { documentKey: 'doc-2' } });
    const [failure, result] = await Promise.all([refusal(failing), run(claim, work)]);

    expect(failure).toBeInstanceOf(Error);
    expect(result).toEqual({ status: 200, body: { documentKey: 'doc-2' }, replayed: false });
    expect(work).toHaveBeenCalledTimes(1);
    expect(await claimRows(referenceId)).toHaveLength(1);
  });
});

describe('fingerprinting requests', () => {
  const request = { method: 'POST', route: ROUTES.cashReceipt };

  it('ignores the key order of the body at every depth', () => {
    const a = { amount: 1, buyer: { name: 'Kim', phone: '010' }, items: [{ x: 1, y: 2 }] };
    const b = { items: [{ y: 2, x: 1 }], buyer: { phone: '010', name: 'Kim' }, amount: 1 };
    expect(requestFingerprint({ ...request, body: a })).toBe(
      requestFingerprint({ ...request, body: b }),
    );
  });

  it('ignores the whitespace of the JSON the body was parsed from', () => {
    const compact = JSON.parse('{"amount":1,"items":[1,2]}');
    const spaced = JSON.parse('{\n  "items" : [ 1 , 2 ],\n\t"amount" : 1\n}\n');
    expect(requestFingerprint({ ...request, body: compact })).toBe(
      requestFingerprint({ ...request, body: spaced }),
    );
  });

  it('ignores the case of the method', () => {
    expect(requestFingerprint({ ...request, method: 'post', body: {} })).toBe(
      requestFingerprint({ ...request, body: {} }),
    );
  });

  it('differs when a value, an array order, the route or the method differs', () => {
    const body = { items: [1, 2], name: 'a b' };
    const fingerprint = requestFingerprint({ ...request, body });
    const others = [
      requestFingerprint({ ...request, body: { items: [2, 1], name: 'a b' } }),
      requestFingerprint({ ...request, body: { items: [1, 2], name: 'ab' } }),
      requestFingerprint({ ...request, body: { ...body, extra: null } }),
      requestFingerprint({ ...request, body: { items: ['1', 2], name: 'a b' } }),
      requestFingerprint({ ...request, route: ROUTES.cashReceiptCancel, body }),
      requestFingerprint({ ...request, method: 'PUT', body }),
    ];
    expect(new Set([fingerprint, ...others]).size).toBe(others.length + 1);
  });

  it('is a 64-character hex SHA-256 and treats a missing body as null', () => {
    const fingerprint = requestFingerprint({ ...request, body: undefined });
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...request, body: null })).toBe(fingerprint);
  });
});

describe('validating reference ids', () => {
  it.each([
    ['an empty string', ''],
    ['only spaces', '   '],
    ['only tabs and newlines', '\t\n'],
    ['256 characters', 'r'.repeat(256)],
  ])('refuses %s', (_label, referenceId) => {
    expect(isValidReferenceId(referenceId)).toBe(false);
  });

  it.each([
    ['one character', 'r'],
    ['255 characters', 'r'.repeat(255)],
    ['255 Hangul characters', '가'.repeat(255)],
    ['text with inner and outer spaces', ' order 42 '],
  ])('accepts %s', (_label, referenceId) => {
    expect(isValidReferenceId(referenceId)).toBe(true);
  });

  it('keeps the length bound at 255', () => {
    expect(REFERENCE_ID_LENGTH_MAX).toBe(255);
  });

  it('refuses an unvalidated reference id with an assertion failure and runs no work', async () => {
    const work = workReturning({ status: 200, body: {} });
    for (const referenceId of ['', '   ', 'r'.repeat(256)]) {
      const claim = documentClaim(referenceId);
      await expect(run(claim, work)).rejects.toBeInstanceOf(AssertionError);
    }
    expect(work).not.toHaveBeenCalled();
  });

  it('stores a 255-character reference id and the database refuses 256', async () => {
    const work = workReturning({ status: 200, body: {} });
    const referenceId = `${newReferenceId()}-`.padEnd(255, 'r');
    const claim = documentClaim(referenceId);
    await expect(run(claim, work)).resolves.toMatchObject({ replayed: false });

    const tooLong = insertClaim(app.platform.database.db, {
      id: `idm_${randomUUID()}`,
      apiKeyId: 'key_first',
      namespace: 'document',
      referenceId: 'r'.repeat(256),
      fingerprint: 'f'.repeat(64),
    });
    await expect(tooLong).rejects.toThrow();
    expect(await claimRows('r'.repeat(256))).toHaveLength(0);
  });
});
