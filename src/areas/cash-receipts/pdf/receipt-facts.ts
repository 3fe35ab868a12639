import { formatBusinessRegistrationNumber } from '../../../domain/business-registration-number.ts';
import type { CashReceiptRow } from '../store.ts';
import { maskedIdentityNumberOf } from '../identity-numbers.ts';

// What a receipt tells its customer, label and value, in the order the PDF and the mail print
// them. Labels are Korean with English.

const won = new Intl.NumberFormat('ko-KR');
const amount = (value: number) => `${won.format(value)}원`;

const USAGES = { INCOME_DEDUCTION: '소득공제 Income deduction',
  EXPENSE_PROOF: '지출증빙 Expense proof' } as const;
const TAXATIONS = { TAXABLE: '과세 Taxable', TAX_FREE: '면세 Tax free' } as const;
const TRADE_OPTIONS = { GENERAL: '일반 General', BOOKS_PERFORMANCES: '도서공연 Books and ' +
  'performances', PUBLIC_TRANSPORT: '대중교통 Public transport' } as const;
const CANCEL_REASONS: Record<string, string> = { TRANSACTION_CANCELED: '거래취소 Transaction ' +
  'canceled', ISSUED_IN_ERROR: '오류발급취소 Issued in error', OTHER: '기타 Other' };

export function receiptTitle(row: Pick<CashReceiptRow, 'kind'>): string {
  return row.kind === 'CANCELLATION' ? '현금영수증 취소 (Cash receipt cancellation)'
    : '현금영수증 (Cash receipt)';
}

// The slip's title on two lines of their own, Korean then English: the cancellation's title is
// too wide for one line of the narrow slip, and wrapped it ran into the merchant's name.
export function receiptTitleLines(row: Pick<CashReceiptRow, 'kind'>): [string, string] {
  return row.kind === 'CANCELLATION' ? ['현금영수증 취소', 'Cash receipt cancellation']
    : ['현금영수증', 'Cash receipt'];
}

export function receiptFacts(row: CashReceiptRow): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ['승인번호 Approval number', row.approvalNumber ?? `— (${row.status})`],
    ['거래일자 Trade date', row.tradeDate],
    ['가맹점 Merchant', row.merchantName],
    ['사업자번호 Business number', formatBusinessRegistrationNumber(row.merchantNumber)],
    ['대표자 Representative', row.merchantRepresentative],
    ['용도 Usage', USAGES[row.usage]],
    ['식별번호 Identity number', maskedIdentityNumberOf(row)],
    ['거래구분 Trade option', TRADE_OPTIONS[row.tradeOption]],
    ['과세구분 Taxation', TAXATIONS[row.taxation]],
    ['품목 Item', row.itemName],
    ['공급가액 Supply cost', amount(row.supplyCost)],
    ['부가세 VAT', amount(row.tax)],
    ['봉사료 Service fee', amount(row.serviceFee)],
    ['합계 Total', amount(row.totalAmount)],
  ];
  if (row.kind === 'CANCELLATION') {
    facts.push(['취소사유 Reason', CANCEL_REASONS[row.cancelReason ?? 'OTHER'] ?? 'OTHER'],
      ['원승인번호 Original approval number', row.originalApprovalNumber ?? ''],
      ['원거래일자 Original trade date', row.originalTradeDate ?? '']);
  }
  return facts;
}
