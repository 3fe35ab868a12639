import { createHash } from 'node:crypto';
import { businessRegistrationCheckDigit } from '../../domain/business-registration-number.ts';
import type {
  CollectRequest,
  PortalCredentials,
  PortalInvoice,
  PortalLoginResult,
  PortalTaxType,
  TaxPortal,
} from './index.ts';

// The sandbox portal of test keys (docs/revenue-expense.md § Sandbox). Logins and collections
// are answered from the inputs alone, so the same inputs always give the same answer:
//   - user id `locked` fails with ACCOUNT_LOCKED, password `wrong-password` with
//     INVALID_CREDENTIALS; any other login connects;
//   - each month holds 6 to 10 invoices of the business, sales and purchases, with counterparts
//     whose registration numbers are valid, some tax-free, some zero-rated, some issued late;
//   - the first invoice of every month is still ISSUED on a first collection and TRANSMITTED on
//     any later one, and a later collection also finds an amendment of the second invoice
//     (a supply-cost change), so a second collection changes the books.

const SANDBOX_NAMES = ['주식회사 한빛상사', '(주)대한물산', '청솔유통', '주식회사 다온테크',
  '새벽소프트', '(주)누리식품', '가람인쇄', '주식회사 온길물류'];

function digest(...parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

// A registration number with a valid check digit, from a seed.
function counterpartNumber(seed: Buffer): string {
  const prefix = String(101 + (seed.readUInt16BE(0) % 899));
  const middle = String(seed.readUInt8(2) % 100).padStart(2, '0');
  const serial = String(seed.readUInt32BE(3) % 10_000).padStart(4, '0');
  const nine = `${prefix}${middle}${serial}`;
  return `${nine}${businessRegistrationCheckDigit(nine)}`;
}

const pad = (value: number, length: number) => String(value).padStart(length, '0');

function issueDeadline(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const next = monthNumber === 12 ? `${year + 1}-01` : `${year}-${pad(monthNumber + 1, 2)}`;
  return `${next}-10`;
}

function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return value.toISOString().slice(0, 10);
}

function daysInMonth(month: string): number {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
}

function approvalNumber(writeDate: string, seed: Buffer, serial: number): string {
  // 8 digits of the write date, 8 of the issuing system (10: the portal), 8 of serial.
  return `${writeDate.replaceAll('-', '')}10000000${pad((seed.readUInt32BE(8) % 9_000_000) +
    serial, 8)}`.slice(0, 24);
}

function taxTypeOf(roll: number): PortalTaxType {
  if (roll < 15) return 'TAX_FREE';
  if (roll < 22) return 'ZERO_RATED';
  return 'TAXABLE';
}

function monthInvoices(business: { number: string; name: string }, month: string,
  later: boolean): PortalInvoice[] {
  const monthSeed = digest('month', business.number, month);
  const count = 6 + (monthSeed.readUInt8(0) % 5);
  const invoices: PortalInvoice[] = [];
  for (let index = 0; index < count; index += 1) {
    const seed = digest('invoice', business.number, month, String(index));
    const direction = seed.readUInt8(0) % 2 === 0 ? 'SALES' : 'PURCHASE';
    const counterpart = { businessRegistrationNumber: counterpartNumber(seed.subarray(12)),
      name: SANDBOX_NAMES[seed.readUInt8(20) % SANDBOX_NAMES.length]! };
    const us = { businessRegistrationNumber: business.number, name: business.name };
    const writeDate = `${month}-${pad(1 + (seed.readUInt8(1) % daysInMonth(month)), 2)}`;
    const late = seed.readUInt8(2) % 10 === 0;
    const issueDate = late ? addDays(issueDeadline(month), 3 + (seed.readUInt8(3) % 20))
      : addDays(writeDate, seed.readUInt8(3) % 3);
    const taxType = taxTypeOf(seed.readUInt8(4) % 100);
    const supplyCost = 10_000 * (1 + (seed.readUInt32BE(5) % 5_000));
    const tax = taxType === 'TAXABLE' ? supplyCost / 10 : 0;
    invoices.push({
      direction, approvalNumber: approvalNumber(writeDate, seed, index), writeDate, issueDate,
      supplier: direction === 'SALES' ? us : counterpart,
      recipient: direction === 'SALES' ? counterpart : us,
      supplyCost, tax, totalAmount: supplyCost + tax, taxType, amendment: null,
      // The first invoice of the month is transmitted between the first collection and the next.
      status: index === 0 && !later ? 'ISSUED' : 'TRANSMITTED',
      late,
    });
  }
  const original = invoices[1];
  if (later && original) {
    const seed = digest('amendment', business.number, month);
    const reduction = -Math.round(original.supplyCost / 10);
    const tax = original.taxType === 'TAXABLE' ? reduction / 10 : 0;
    const writeDate = original.writeDate;
    invoices.push({ ...original, approvalNumber: approvalNumber(writeDate, seed, 90),
      issueDate: addDays(original.issueDate, 1), supplyCost: reduction, tax,
      totalAmount: reduction + tax, amendment: { reason: 2,
        originalApprovalNumber: original.approvalNumber }, status: 'TRANSMITTED', late: false });
  }
  return invoices;
}

function sandboxBusinessName(number: string): string {
  return `샌드박스 사업자 ${number.slice(-4)}`;
}

function login(credentials: PortalCredentials): PortalLoginResult {
  if (credentials.method === 'PASSWORD') {
    if (credentials.userId === 'locked') {
      return { kind: 'failed', code: 'ACCOUNT_LOCKED',
        message: 'The portal account is locked after too many failed logins.' };
    }
    if (credentials.password === 'wrong-password') {
      return { kind: 'failed', code: 'INVALID_CREDENTIALS',
        message: 'The portal user id or password is wrong.' };
    }
  }
  return { kind: 'connected',
    businessName: sandboxBusinessName(credentials.businessRegistrationNumber) };
}

export function createSandboxTaxPortal(): TaxPortal {
  return {
    async login(credentials) {
      return login(credentials);
    },
    async collect(request: CollectRequest) {
      const answer = login(request.credentials);
      if (answer.kind !== 'connected') return answer;
      const business = { number: request.credentials.businessRegistrationNumber,
        name: answer.businessName };
      const later = request.previousCollections > 0;
      return { kind: 'collected',
        invoices: request.months.flatMap((month) => monthInvoices(business, month, later)) };
    },
  };
}
