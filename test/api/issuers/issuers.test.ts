// /v1/issuers (docs/issuers.md): registration, listing with a cursor, reading, change and
// deactivation of issuers. Checks every status and code these routes answer, bad input of
// every kind (missing fields, wrong types, bad numbers, hostile strings, oversize bodies), and
// isolation: another account's issuer and a test issuer seen with a live key are 404, never 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  createIssuer,
  expectError,
  issuerBody,
  OTHER_VALID_NUMBER,
  request,
  VALID_NUMBER,
} from './helpers.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const post = (key: string, payload: unknown) =>
  app.server.inject(request(key, 'POST', '/v1/issuers', payload));

describe('happy', () => {
  it('returns 201 with the issuer, an opaque issuerId and a supplierKey', async () => {
    const { keys } = await app.createAccount();
    const response = await post(keys.test, issuerBody({ identificationNumber: '123-45-67891',
      taxRegistrationId: '0001', contactName: '김담당', contactEmail: 'tax@example.co.kr',
      contactPhone: '02-1234-5678' }));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      issuerId: expect.stringMatching(/^iss_[A-Za-z0-9_-]{22}$/),
      supplierKey: expect.stringMatching(/^sup_[A-Za-z0-9_-]{22}$/),
      identificationNumber: VALID_NUMBER,
      taxRegistrationId: '0001',
      organizationName: '주식회사 이택스',
      representativeName: '홍길동',
      contactName: '김담당',
      contactEmail: 'tax@example.co.kr',
      contactPhone: '02-1234-5678',
      fiscalYearEndMonth: null,
      active: true,
      certificate: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('returns the issuer by id, unchanged', async () => {
    const { keys } = await app.createAccount();
    const created = await createIssuer(app, keys.test);
    const response = await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${created.issuerId}`));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject(created);
  });

  it('lists issuers in registration order, paging with nextCursor', async () => {
    const { keys } = await app.createAccount();
    const ids: string[] = [];
    for (const number of [VALID_NUMBER, OTHER_VALID_NUMBER, '2208112341']) {
      ids.push((await createIssuer(app, keys.test, { identificationNumber: number })).issuerId);
    }
    const first = await app.server.inject(request(keys.test, 'GET', '/v1/issuers?limit=2'));
    expect(first.statusCode).toBe(200);
    const page = first.json() as { issuers: { issuerId: string }[]; nextCursor: string };
    expect(page.issuers.map((issuer) => issuer.issuerId)).toEqual(ids.slice(0, 2));
    const second = await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers?limit=2&cursor=${page.nextCursor}`));
    expect(second.json()).toMatchObject({ issuers: [{ issuerId: ids[2] }], nextCursor: null,
      hasMore: false });
  });

  it('allows one business again under another sub-place, and again once deactivated',
    async () => {
      const { keys } = await app.createAccount();
      const first = await createIssuer(app, keys.test);
      await createIssuer(app, keys.test, { taxRegistrationId: '0002' });
      await app.server.inject(request(keys.test, 'DELETE', `/v1/issuers/${first.issuerId}`));
      const again = await createIssuer(app, keys.test);
      expect(again.issuerId).not.toBe(first.issuerId);
    });

  it('updates names and contacts; null clears a contact field', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test, { contactName: '김담당' });
    const response = await app.server.inject(request(keys.test, 'PATCH',
      `/v1/issuers/${issuerId}`, { organizationName: '이택스 주식회사', contactName: null }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ organizationName: '이택스 주식회사',
      contactName: null, identificationNumber: VALID_NUMBER });
  });

  it('deactivates: 200 with active false, twice the same, and the issuer stays readable',
    async () => {
      const { keys } = await app.createAccount();
      const { issuerId } = await createIssuer(app, keys.test);
      const url = `/v1/issuers/${issuerId}`;
      const first = await app.server.inject(request(keys.test, 'DELETE', url));
      const second = await app.server.inject(request(keys.test, 'DELETE', url));
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ issuerId, active: false });
      expect(second.json()).toEqual(first.json());
      expect((await app.server.inject(request(keys.test, 'GET', url))).json())
        .toMatchObject({ active: false });
    });

  it('keeps hostile but printable strings verbatim: they are data, not markup', async () => {
    const { keys } = await app.createAccount();
    const name = '<script>alert(1)</script> \'; drop table issuers; --';
    const { issuerId } = await createIssuer(app, keys.test, { organizationName: name });
    const response = await app.server.inject(request(keys.test, 'GET', `/v1/issuers/${issuerId}`));
    expect(response.json()).toMatchObject({ organizationName: name });
  });
});

// A corporation's business year may end in any month; it decides how late its tax-exempt
// invoices can be issued (docs/tax-invoices.md § Late issuance).
describe('the business year', () => {
  const CORPORATION = '2208112341'; // digits 4–5: 81

  it('keeps a corporation\'s fiscal year end month, changes it and clears it', async () => {
    const { keys } = await app.createAccount();
    const created = await post(keys.test, issuerBody({ identificationNumber: CORPORATION,
      fiscalYearEndMonth: 3 }));
    expect(created.statusCode, created.body).toBe(201);
    const { issuerId } = created.json() as { issuerId: string };
    expect(created.json()).toMatchObject({ fiscalYearEndMonth: 3 });
    const path = `/v1/issuers/${issuerId}`;
    const changed = await app.server.inject(request(keys.test, 'PATCH', path,
      { fiscalYearEndMonth: 6 }));
    expect(changed.json()).toMatchObject({ fiscalYearEndMonth: 6 });
    const cleared = await app.server.inject(request(keys.test, 'PATCH', path,
      { fiscalYearEndMonth: null }));
    expect(cleared.json()).toMatchObject({ fiscalYearEndMonth: null });
    const read = await app.server.inject(request(keys.test, 'GET', path));
    expect(read.json()).toMatchObject({ fiscalYearEndMonth: null });
  });

  it('refuses a business year not ending in December for an individual with 400', async () => {
    const { keys } = await app.createAccount();
    const refused = await post(keys.test, issuerBody({ identificationNumber: VALID_NUMBER,
      fiscalYearEndMonth: 3 }));
    expectError(refused, 400, 'INVALID_REQUEST', /fiscalYearEndMonth must be 12 or null/);
    const list = await app.server.inject(request(keys.test, 'GET', '/v1/issuers'));
    expect(list.json()).toEqual({ issuers: [], nextCursor: null, hasMore: false });
    const december = await post(keys.test, issuerBody({ identificationNumber: VALID_NUMBER,
      fiscalYearEndMonth: 12 }));
    expect(december.statusCode).toBe(201);
    const { issuerId } = december.json() as { issuerId: string };
    expectError(await app.server.inject(request(keys.test, 'PATCH', `/v1/issuers/${issuerId}`,
      { fiscalYearEndMonth: 6 })), 400, 'INVALID_REQUEST', /not a corporation's number/);
  });

  it.each([0, 13, 2.5, '3', true])('refuses the month %j with 400', async (month) => {
    const { keys } = await app.createAccount();
    expectError(await post(keys.test, issuerBody({ identificationNumber: CORPORATION,
      fiscalYearEndMonth: month })), 400, 'INVALID_REQUEST', /fiscalYearEndMonth/);
  });
});

describe('errors', () => {
  it('returns 409 ISSUER_ALREADY_REGISTERED naming the existing issuerId', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const body = expectError(await post(keys.test, issuerBody({ identificationNumber:
      '123-45-67891' })), 409, 'ISSUER_ALREADY_REGISTERED');
    expect(body.message).toContain(issuerId);
  });

  it('returns 400 INVALID_REQUEST for a number that is not ten digits', async () => {
    const { keys } = await app.createAccount();
    for (const number of ['123456789', '12345678901', 'abcdefghij', '123-45-6789-']) {
      expectError(await post(keys.test, issuerBody({ identificationNumber: number })), 400,
        'INVALID_REQUEST');
    }
  });

  it('returns 400 INVALID_BUSINESS_REGISTRATION_NUMBER for a checksum mismatch', async () => {
    const { keys } = await app.createAccount();
    expectError(await post(keys.test, issuerBody({ identificationNumber: '1234567890' })), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
  });

  it('returns 400 INVALID_BUSINESS_REGISTRATION_NUMBER for 0000000000, whose checksum passes',
    async () => {
      const { keys } = await app.createAccount();
      expectError(await post(keys.test, issuerBody({ identificationNumber: '0000000000' })),
        400, 'INVALID_BUSINESS_REGISTRATION_NUMBER', new RegExp('^body\\.identificationNumber ' +
          'starts with 000, a tax office code below 101 that is never assigned\\.$'));
    });

  it('returns 400 INVALID_REQUEST naming the field for missing and ill-typed fields', async () => {
    const { keys } = await app.createAccount();
    const cases: Array<[unknown, string]> = [
      [{ organizationName: 'a', representativeName: 'b' }, 'identificationNumber'],
      [issuerBody({ organizationName: undefined }), 'organizationName'],
      [issuerBody({ representativeName: 42 }), 'representativeName'],
      [issuerBody({ taxRegistrationId: '0000' }), 'taxRegistrationId'],
      [issuerBody({ taxRegistrationId: '12345' }), 'taxRegistrationId'],
      [issuerBody({ organizationName: '' }), 'organizationName'],
      [issuerBody({ organizationName: 'x'.repeat(101) }), 'organizationName'],
      [issuerBody({ representativeName: 'line\nbreak' }), 'representativeName'],
      [issuerBody({ contactEmail: 'not an email' }), 'contactEmail'],
      [issuerBody({ extra: true }), 'body'],
      [[issuerBody()], 'body'],
    ];
    for (const [payload, field] of cases) {
      const body = expectError(await post(keys.test, payload), 400, 'INVALID_REQUEST');
      expect(body.message).toContain(field);
    }
  });

  it('returns 400 INVALID_REQUEST for a cursor this operation did not return', async () => {
    const { keys } = await app.createAccount();
    for (const cursor of ['abc', 'LTE', Buffer.from('1.5').toString('base64url')]) {
      expectError(await app.server.inject(request(keys.test, 'GET',
        `/v1/issuers?cursor=${cursor}`)), 400, 'INVALID_REQUEST');
    }
  });

  it('returns 413 PAYLOAD_TOO_LARGE for a body over the limit', async () => {
    const { keys } = await app.createAccount();
    const payload = issuerBody({ organizationName: 'x'.repeat(2_000_000) });
    expectError(await post(keys.test, payload), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('returns 404 NOT_FOUND for an unknown issuer on every issuer route', async () => {
    const { keys } = await app.createAccount();
    for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['DELETE', ''],
      ['GET', '/certificates'], ['DELETE', '/certificates'], ['GET', '/certificates/url'],
      ['GET', '/certificates/latestHistory']] as const) {
      const payload = method === 'PATCH' ? { organizationName: 'x' } : undefined;
      expectError(await app.server.inject(request(keys.test, method,
        `/v1/issuers/iss_unknown${suffix}`, payload)), 404, 'NOT_FOUND');
    }
  });

  it('returns 409 ISSUER_DEACTIVATED when changing a deactivated issuer', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    await app.server.inject(request(keys.test, 'DELETE', `/v1/issuers/${issuerId}`));
    expectError(await app.server.inject(request(keys.test, 'PATCH', `/v1/issuers/${issuerId}`,
      { organizationName: 'x' })), 409, 'ISSUER_DEACTIVATED');
    expectError(await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${issuerId}/certificates/url`)), 409, 'ISSUER_DEACTIVATED');
  });

  it('returns 400 INVALID_REQUEST for an empty change', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    expectError(await app.server.inject(request(keys.test, 'PATCH', `/v1/issuers/${issuerId}`,
      {})), 400, 'INVALID_REQUEST');
  });
});

describe('security', () => {
  it('returns 404 for another account\'s issuer and lists none of them', async () => {
    const owner = await app.createAccount();
    const stranger = await app.createAccount();
    const { issuerId } = await createIssuer(app, owner.keys.test);
    for (const [method, payload] of [['GET', undefined], ['PATCH', { organizationName: 'x' }],
      ['DELETE', undefined]] as const) {
      expectError(await app.server.inject(request(stranger.keys.test, method,
        `/v1/issuers/${issuerId}`, payload)), 404, 'NOT_FOUND');
    }
    const list = await app.server.inject(request(stranger.keys.test, 'GET', '/v1/issuers'));
    expect(list.json()).toEqual({ issuers: [], nextCursor: null, hasMore: false });
  });

  it('returns 404 for a test issuer with the live key, and registers the same business live',
    async () => {
      const { keys } = await app.createAccount();
      const testIssuer = await createIssuer(app, keys.test);
      expectError(await app.server.inject(request(keys.live, 'GET',
        `/v1/issuers/${testIssuer.issuerId}`)), 404, 'NOT_FOUND');
      const liveIssuer = await createIssuer(app, keys.live);
      expect(liveIssuer.supplierKey).not.toBe(testIssuer.supplierKey);
      const live = await app.server.inject(request(keys.live, 'GET', '/v1/issuers'));
      expect(live.json()).toMatchObject({ issuers: [{ issuerId: liveIssuer.issuerId }] });
    });
});

