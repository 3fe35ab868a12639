// Documents on the workers: an accepted request becomes ISSUED (its PDF stored, its points
// captured, DOCUMENT_ISSUANCE_SUCCESS recorded) or FAILED (points released,
// DOCUMENT_ISSUANCE_FAILURE), once each; fact certificates wait PROCESSING for the sandbox's
// officer's check.
import { SANDBOX_STATUS_NUMBERS } from '../../../src/upstream/tax-authority/sandbox.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  acceptedKey,
  CORPORATION_NUMBER,
  createOwnerAccount,
  getDocument,
  request,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;

const FUNDS = 50_000;
const OFFICER_CHECK_SECONDS = 3;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TEST_SIGNUP_POINTS: '0',
    DOCUMENTS_SANDBOX_OFFICER_CHECK_SECONDS: String(OFFICER_CHECK_SECONDS),
    PUBLIC_BASE_URL: 'https://etax.example.com' } });
  ({ key, accountId } = await createOwnerAccount(app, { points: FUNDS }));
});
afterAll(async () => {
  await app?.close();
});

type Event = { type: string; data: Record<string, unknown> };

async function eventsOf(issuanceKey: string): Promise<Event[]> {
  const response = await app.server.inject(request(key, 'GET', '/v1/webhookEvents?limit=100'));
  return (response.json() as { results: Event[] }).results
    .filter((event) => event.data.issuanceKey === issuanceKey);
}

const settled = (status: string) => status === 'ISSUED' || status === 'FAILED';

async function waitForEnd(issuanceKey: string, ofKey = key) {
  return pollUntil(() => getDocument(app, ofKey, issuanceKey),
    (document) => settled(document.status));
}

describe('processing on the workers', () => {
  it('issues a registry submission copy once, with its event and its charge', async () => {
    const before = await app.platform.points.getBalance({ accountId, environment: 'test' });
    const issuanceKey = await acceptedKey(app, key, { type: 'CORPORATE_REGISTRY_SUBMISSION',
      corporationNumber: CORPORATION_NUMBER });
    const document = await waitForEnd(issuanceKey);
    expect(document).toMatchObject({ status: 'ISSUED', issueNumber: expect.any(String),
      pdfSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const events = await pollUntil(() => eventsOf(issuanceKey), (list) => list.length > 0);
    expect(events).toEqual([expect.objectContaining({ type: 'DOCUMENT_ISSUANCE_SUCCESS',
      data: { issuanceKey, type: 'CORPORATE_REGISTRY_SUBMISSION',
        documentUrl: `https://etax.example.com/v1/documents/${issuanceKey}/pdf` } })]);
    // The reservation is captured right after the ISSUED transition commits.
    expect(await pollUntil(() => app.platform.points.getBalance({ accountId,
      environment: 'test' }), (balance) => balance.reserved === before.reserved))
      .toMatchObject({ balance: before.balance - 1_500, reserved: before.reserved });
    await expectLedgerConsistent(app.platform, accountId, 'test');
  });

  it('fails a corporation the registry does not know, releasing its points', async () => {
    const before = await app.platform.points.getBalance({ accountId, environment: 'test' });
    const issuanceKey = await acceptedKey(app, key, { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: '1101110000002' });
    expect(await waitForEnd(issuanceKey)).toMatchObject({ status: 'FAILED',
      failure: { code: 'CORPORATION_NOT_FOUND' } });
    const events = await pollUntil(() => eventsOf(issuanceKey), (list) => list.length > 0);
    expect(events).toEqual([expect.objectContaining({ type: 'DOCUMENT_ISSUANCE_FAILURE',
      data: { issuanceKey, type: 'CORPORATE_REGISTRY_VIEW',
        cause: { code: 'CORPORATION_NOT_FOUND', message: expect.any(String) } } })]);
    // The reservation is released right after the FAILED transition commits.
    expect(await pollUntil(() => app.platform.points.getBalance({ accountId,
      environment: 'test' }), (balance) => balance.reserved === before.reserved))
      .toEqual(before);
  });

  it('keeps a fact certificate PROCESSING for the officer\'s check, then issues it', async () => {
    // The sandbox reports this business as closed (docs/sandbox.md).
    const { key, accountId } = await createOwnerAccount(app, { points: FUNDS,
      businessNumber: SANDBOX_STATUS_NUMBERS.closed });
    const issuanceKey = await acceptedKey(app, key,
      { type: 'BUSINESS_CLOSURE_FACT_CERTIFICATE' });
    const processing = await pollUntil(() => getDocument(app, key, issuanceKey),
      (document) => document.status !== 'ACCEPTED');
    expect(processing.status).toBe('PROCESSING');
    expect(await app.platform.points.getBalance({ accountId, environment: 'test' }))
      .toMatchObject({ reserved: 500 });
    const document = await waitForEnd(issuanceKey, key);
    expect(document.status).toBe('ISSUED');
    const read = await app.server.inject(request(key, 'GET', `/v1/documents/${issuanceKey}`));
    const { acceptedAt, issuedAt } = read.json() as { acceptedAt: string; issuedAt: string };
    expect(Date.parse(issuedAt) - Date.parse(acceptedAt)).toBe(OFFICER_CHECK_SECONDS * 1_000);
    expect(await pollUntil(() => app.platform.points.getBalance({ accountId,
      environment: 'test' }), (balance) => balance.reserved === 0))
      .toMatchObject({ reserved: 0 });
    await expectLedgerConsistent(app.platform, accountId, 'test');
  });
});
