import {
  issueDeadline,
  vatReturnDeadline,
  type AddedHolidays,
} from '../../../domain/business-days.ts';

// Late issuance (지연발급, docs/tax-invoices.md § Late issuance). A tax invoice is due by its
// issue deadline (the 10th of the month after the write date, next business day). One issued
// after it but by the final VAT return deadline of the supply's tax period (확정신고기한) is
// still a tax invoice: the supplier pays a penalty on the supply value and the recipient keeps
// the input-tax credit but pays a smaller one. After that day it is not issued at all
// (미발급), and etax refuses it.

// The penalties (가산세) as fractions of the supply value, in one place: change them here when
// the law changes. They are shown on late documents; etax charges none of them.
export const TAX_INVOICE_PENALTY_RATES = Object.freeze({
  // 부가가치세법 §60②1: issued after the issue deadline, by the return deadline (지연발급).
  lateIssuanceSupplier: 0.01,
  // 부가가치세법 §60⑦1: received late, credit kept (지연수취).
  lateIssuanceRecipient: 0.005,
  // 부가가치세법 §60②2: not issued by the return deadline (미발급); shown in messages only.
  nonIssuanceSupplier: 0.02,
});

export type LateIssuancePenalty = { supplierRate: number; recipientRate: number };

export const LATE_ISSUANCE_PENALTY: LateIssuancePenalty = Object.freeze({
  supplierRate: TAX_INVOICE_PENALTY_RATES.lateIssuanceSupplier,
  recipientRate: TAX_INVOICE_PENALTY_RATES.lateIssuanceRecipient,
});

export type IssueTiming =
  | { kind: 'on-time'; issueDeadline: string; lateIssuanceLimit: string | null }
  | { kind: 'late'; issueDeadline: string; lateIssuanceLimit: string }
  | { kind: 'too-late'; issueDeadline: string; lateIssuanceLimit: string | null };

// Where `today` (Seoul) falls for a document written on `writeDate`.
export function issueTiming(writeDate: string, today: string, added: AddedHolidays): IssueTiming {
  const deadline = issueDeadline(writeDate, added);
  const limit = vatReturnDeadline(writeDate, added);
  if (today <= deadline) {
    return { kind: 'on-time', issueDeadline: deadline, lateIssuanceLimit: limit };
  }
  if (limit !== null && today <= limit) {
    return { kind: 'late', issueDeadline: deadline, lateIssuanceLimit: limit };
  }
  return { kind: 'too-late', issueDeadline: deadline, lateIssuanceLimit: limit };
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(2))}%`;

// Why a document can no longer be issued, for the 400 or 409 message.
export function tooLateReason(writeDate: string, timing: IssueTiming): string {
  return `A tax invoice written on ${writeDate} was due by ${timing.issueDeadline} (the 10th ` +
    'of the next month, moved to the next business day) and could be issued late, with a ' +
    `${percent(TAX_INVOICE_PENALTY_RATES.lateIssuanceSupplier)} penalty, only until ` +
    `${timing.lateIssuanceLimit ?? 'the VAT return deadline'}, the final VAT return deadline ` +
    'of its tax period. After that it counts as not issued ' +
    `(${percent(TAX_INVOICE_PENALTY_RATES.nonIssuanceSupplier)} penalty) and cannot be issued.`;
}
