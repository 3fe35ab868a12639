// The sandbox tax portal (docs/revenue-expense.md § Sandbox): answers from its inputs alone, with
// realistic invoices (valid counterpart numbers, consistent totals, 24-digit approval numbers
// starting with the write date), and a later collection changes some of them.
import { describe, expect, it } from 'vitest';
import {
  isValidBusinessRegistrationNumber,
} from '../../src/domain/business-registration-number.ts';
import { createSandboxTaxPortal } from '../../src/upstream/tax-portal/sandbox.ts';

const portal = createSandboxTaxPortal();
const credentials = { method: 'PASSWORD' as const, businessRegistrationNumber: '1234567891',
  userId: 'owner', password: 'secret' };
const signal = new AbortController().signal;

async function invoices(previousCollections: number, months = ['2026-09', '2026-10']) {
  const answer = await portal.collect({ credentials, months, previousCollections }, signal);
  if (answer.kind !== 'collected') throw new Error(answer.kind);
  return answer.invoices;
}

describe('the sandbox tax portal', () => {
  it('answers the same invoices for the same inputs', async () => {
    expect(await invoices(0)).toEqual(await invoices(0));
    expect(await invoices(3)).toEqual(await invoices(1));
  });

  it('lists realistic invoices of the business', async () => {
    const listed = await invoices(0, ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05',
      '2026-06']);
    for (const invoice of listed) {
      expect(invoice.approvalNumber).toMatch(/^[0-9]{24}$/);
      expect(invoice.approvalNumber.slice(0, 8)).toBe(invoice.writeDate.replaceAll('-', ''));
      expect(invoice.totalAmount).toBe(invoice.supplyCost + invoice.tax);
      const counterpart = invoice.direction === 'SALES' ? invoice.recipient : invoice.supplier;
      const us = invoice.direction === 'SALES' ? invoice.supplier : invoice.recipient;
      expect(us.businessRegistrationNumber).toBe('1234567891');
      expect(isValidBusinessRegistrationNumber(counterpart.businessRegistrationNumber)).toBe(true);
      if (invoice.taxType !== 'TAXABLE') expect(invoice.tax).toBe(0);
    }
    expect(new Set(listed.map((invoice) => invoice.approvalNumber)).size).toBe(listed.length);
    expect(listed.some((invoice) => invoice.taxType === 'TAX_FREE')).toBe(true);
    expect(listed.some((invoice) => invoice.late)).toBe(true);
  });

  it('changes a status and adds an amendment on a later collection', async () => {
    const first = await invoices(0, ['2026-10']);
    const later = await invoices(1, ['2026-10']);
    expect(later).toHaveLength(first.length + 1);
    expect(first[0]!.status).toBe('ISSUED');
    expect(later[0]!.status).toBe('TRANSMITTED');
    expect(later.at(-1)!.amendment).toEqual({ reason: 2,
      originalApprovalNumber: first[1]!.approvalNumber });
  });

  it('fails the logins of its documented test values', async () => {
    expect(await portal.login({ ...credentials, password: 'wrong-password' }, signal))
      .toMatchObject({ kind: 'failed', code: 'INVALID_CREDENTIALS' });
    expect(await portal.login({ ...credentials, userId: 'locked' }, signal))
      .toMatchObject({ kind: 'failed', code: 'ACCOUNT_LOCKED' });
  });
});
