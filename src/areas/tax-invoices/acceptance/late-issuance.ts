import { isCorporationNumber } from '../../../domain/business-registration-number.ts';
import {
  issueDeadline,
  vatReturnDeadline,
  yearEndReturnDeadline,
  type AddedHolidays,
} from '../../../domain/business-days.ts';
import type { StatusOfNumber } from '../../../upstream/tax-authority/index.ts';
import type { TaxType } from '../schemas.ts';

// Late issuance (지연발급, docs/tax-invoices.md § Late issuance (지연발급)). A document is due by its issue
// deadline (the 10th of the month after the write date, next business day). One issued after it
// but by its late-issuance limit is still issued: the supplier pays a penalty on the supply value
// (and, for a tax invoice, the recipient keeps the input-tax credit but pays a smaller one).
// After the limit it is not issued at all (미발급), and etax refuses it. The limit is:
//
//   tax invoice (세금계산서) of a general taxpayer  the final VAT return deadline of the
//                                                 half-year tax period (부가가치세법 §60②1)
//   tax invoice of a simplified taxpayer          25 January of the next year: its tax period
//   (간이과세자 that issues tax invoices)            is the calendar year (§5①2, §67, §68의2①)
//   tax-exempt invoice (계산서)                     the 25th of the month after the end of the
//                                                 supplier's business year: a corporation's
//                                                 fiscal year (법인세법 §75의8①4), an
//                                                 individual's calendar year (소득세법 §81의10①4)

// The penalties (가산세) as fractions of the supply value, in one place: change them here when
// the law changes. They are shown on late documents; etax charges none of them.
export const TAX_INVOICE_PENALTY_RATES = Object.freeze({
  // 부가가치세법 §60②1 (§68의2① for a simplified taxpayer): issued after the issue deadline, by
  // the return deadline (지연발급).
  lateIssuanceSupplier: 0.01,
  // 부가가치세법 §60⑦1: received late, credit kept (지연수취).
  lateIssuanceRecipient: 0.005,
  // 부가가치세법 §60②2: not issued by the return deadline (미발급); shown in messages only.
  nonIssuanceSupplier: 0.02,
  // 법인세법 §75의8①4, 소득세법 §81의10①4: a 계산서 issued after its issue deadline, by the 25th
  // of the month after the business year (지연발급); not issued by then, 2% (미발급). The
  // recipient of a 계산서 owes no penalty for receiving it late: neither Act has one.
  lateExemptInvoiceSupplier: 0.01,
  lateExemptInvoiceRecipient: 0,
  nonIssuanceExemptInvoiceSupplier: 0.02,
});

export type LateIssuancePenalty = { supplierRate: number; recipientRate: number };

// The penalty rates a late document of this tax type shows.
export function lateIssuancePenaltyOf(taxType: TaxType): LateIssuancePenalty {
  const rates = TAX_INVOICE_PENALTY_RATES;
  return taxType === 'TAX_FREE'
    ? { supplierRate: rates.lateExemptInvoiceSupplier,
      recipientRate: rates.lateExemptInvoiceRecipient }
    : { supplierRate: rates.lateIssuanceSupplier, recipientRate: rates.lateIssuanceRecipient };
}

// What of the supplier decides its late window. `vatPeriod` is CALENDAR_YEAR for a simplified
// taxpayer that issues tax invoices, whose VAT tax period is the calendar year, and HALF_YEAR for
// everyone else (and when the tax authority could not say). `businessYearEndMonth` is the last
// month of the business year a 계산서's window runs to: the fiscal year an issuer registered for a
// corporation (12 when none), always 12 for an individual.
export type SupplierPeriods = {
  vatPeriod: 'HALF_YEAR' | 'CALENDAR_YEAR';
  businessYearEndMonth: number;
};

// The periods of a general taxpayer with a calendar business year: what etax assumes of a
// supplier it knows nothing more about.
export const GENERAL_SUPPLIER_PERIODS: SupplierPeriods =
  Object.freeze({ vatPeriod: 'HALF_YEAR', businessYearEndMonth: 12 });

// A supplier's periods from its issuer (its number and the fiscal year it registered) and its
// registration status at the tax authority (null when the authority did not answer).
export function supplierPeriodsOf(
  issuer: { identificationNumber: string; fiscalYearEndMonth: number | null },
  status: Pick<StatusOfNumber, 'taxType'> | null,
): SupplierPeriods {
  const corporation = isCorporationNumber(issuer.identificationNumber);
  return {
    vatPeriod: status?.taxType === 'SIMPLIFIED_TAX_INVOICE_ISSUER' ? 'CALENDAR_YEAR' : 'HALF_YEAR',
    businessYearEndMonth: corporation ? issuer.fiscalYearEndMonth ?? 12 : 12,
  };
}

// The last day a document of this tax type, written on `writeDate` by this supplier, can be
// issued late; null when it would fall past the year 9999.
export function lateIssuanceLimit(writeDate: string, taxType: TaxType,
  supplier: SupplierPeriods, added: AddedHolidays): string | null {
  if (taxType === 'TAX_FREE') {
    return yearEndReturnDeadline(writeDate, supplier.businessYearEndMonth, added);
  }
  return supplier.vatPeriod === 'CALENDAR_YEAR'
    ? yearEndReturnDeadline(writeDate, 12, added)
    : vatReturnDeadline(writeDate, added);
}

export type IssueTiming =
  | { kind: 'on-time'; issueDeadline: string; lateIssuanceLimit: string | null }
  | { kind: 'late'; issueDeadline: string; lateIssuanceLimit: string }
  | { kind: 'too-late'; issueDeadline: string; lateIssuanceLimit: string | null };

// What the timing of a document depends on besides its dates.
export type TimingBasis = { taxType: TaxType; supplier: SupplierPeriods; added: AddedHolidays };

// Where `today` (Seoul) falls for a document written on `writeDate`.
export function issueTiming(writeDate: string, today: string, basis: TimingBasis): IssueTiming {
  const deadline = issueDeadline(writeDate, basis.added);
  const limit = lateIssuanceLimit(writeDate, basis.taxType, basis.supplier, basis.added);
  if (today <= deadline) {
    return { kind: 'on-time', issueDeadline: deadline, lateIssuanceLimit: limit };
  }
  if (limit !== null && today <= limit) {
    return { kind: 'late', issueDeadline: deadline, lateIssuanceLimit: limit };
  }
  return { kind: 'too-late', issueDeadline: deadline, lateIssuanceLimit: limit };
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(2))}%`;

// What the late-issuance limit is, in words, for the messages.
function limitName(basis: Omit<TimingBasis, 'added'>): string {
  if (basis.taxType === 'TAX_FREE') {
    return 'the 25th of the month after the end of the supplier\'s business year (for a ' +
      'tax-exempt invoice, 계산서)';
  }
  return basis.supplier.vatPeriod === 'CALENDAR_YEAR'
    ? 'the final VAT return deadline of its tax period, the calendar year of a simplified ' +
      'taxpayer'
    : 'the final VAT return deadline of its tax period';
}

// Why a document can no longer be issued, for the 400 or 409 message.
export function tooLateReason(writeDate: string, timing: IssueTiming,
  basis: Omit<TimingBasis, 'added'>): string {
  const rates = TAX_INVOICE_PENALTY_RATES;
  const exempt = basis.taxType === 'TAX_FREE';
  const document = exempt ? 'A tax-exempt invoice' : 'A tax invoice';
  const late = exempt ? rates.lateExemptInvoiceSupplier : rates.lateIssuanceSupplier;
  const never = exempt ? rates.nonIssuanceExemptInvoiceSupplier : rates.nonIssuanceSupplier;
  return `${document} written on ${writeDate} was due by ${timing.issueDeadline} (the 10th ` +
    'of the next month, moved to the next business day) and could be issued late, with a ' +
    `${percent(late)} penalty, only until ${timing.lateIssuanceLimit ?? 'its limit'}, ` +
    `${limitName(basis)}. After that it counts as not issued (${percent(never)} penalty) and ` +
    'cannot be issued.';
}
