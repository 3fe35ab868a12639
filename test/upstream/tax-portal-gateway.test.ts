// The live tax portal gateway's collection answer is read against its contract: a collected
// invoice whose approval number (or whose original's) has letters in its serial, as the tax
// authority makes them, is collected like any other, and one number outside the format makes
// the collection `unavailable` rather than storing it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayTaxPortal } from '../../src/upstream/tax-portal/gateway.ts';
import type { CollectRequest, PortalInvoice } from '../../src/upstream/tax-portal/index.ts';
import { sendJson, startFakeServer, type FakeServer } from '../helpers/fake-server.ts';

let server: FakeServer;
let answer: unknown;

beforeAll(async () => {
  server = await startFakeServer((_request, response) =>
    sendJson(response, 200, JSON.stringify(answer)));
});
afterAll(async () => {
  await server?.close();
});

const invoice = (approvalNumber: string, originalApprovalNumber: string | null): PortalInvoice => ({
  direction: 'PURCHASE', approvalNumber, writeDate: '2026-11-20', issueDate: '2026-11-21',
  supplier: { businessRegistrationNumber: '2208162517', name: '주식회사 공급' },
  recipient: { businessRegistrationNumber: '1234567891', name: '주식회사 이택스' },
  supplyCost: 100_000, tax: 10_000, totalAmount: 110_000, taxType: 'TAXABLE',
  amendment: originalApprovalNumber === null ? null : { reason: 2, originalApprovalNumber },
  status: 'TRANSMITTED', late: false,
});

const request = { credentials: { kind: 'password', userId: 'etax', password: 'secret' },
  months: ['2026-11'], previousCollections: 0 } as unknown as CollectRequest;

async function collect(invoices: PortalInvoice[]) {
  answer = { result: 'COLLECTED', invoices };
  const portal = createGatewayTaxPortal({ gatewayUrl: server.origin, timeoutMs: 2_000 });
  return portal.collect(request, AbortSignal.timeout(5_000));
}

describe('the live tax portal gateway', () => {
  it('collects invoices whose approval numbers have lower-case letters in the serial', async () => {
    const invoices = [invoice('2026112141000008uwh00005', null),
      invoice('2026112141000008a1b2c3d4', '2026111841000008uwh00001'),
      invoice('202611211000000012345678', null)];
    expect(await collect(invoices)).toEqual({ kind: 'collected', invoices });
  });

  it.each([
    ['upper-case letters', '2026112141000008A1B2C3D4'],
    ['a letter before the serial', '202611214100000a00000001'],
    ['23 characters', '2026112141000008a1b2c3d'],
    ['hyphens', '20261121-41000008-a1b2c3'],
  ])('is unavailable when a number has %s', async (_name, number) => {
    expect(await collect([invoice('2026112141000008uwh00005', null), invoice(number, null)]))
      .toEqual({ kind: 'unavailable' });
    expect(await collect([invoice('2026112141000008uwh00005', number)]))
      .toEqual({ kind: 'unavailable' });
  });
});
