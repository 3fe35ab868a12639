import assert from 'node:assert/strict';
import { APPROVAL_NUMBER_PATTERN } from '../../../domain/approval-number.ts';
import { formatBusinessRegistrationNumber } from '../../../domain/business-registration-number.ts';
import type { AmendmentReason, TaxType } from '../schemas.ts';

// How values read on the printed form. Pure string work, so the wording of the
// PDF can be tested without drawing it.

const APPROVAL_NUMBER_GROUP_LENGTH = 8;

// The wording on the form, by the amendment reason code.
export const AMENDMENT_REASON_LABELS: Record<AmendmentReason, string> = {
  ENTRY_CORRECTION: '기재사항 착오정정',
  SUPPLY_COST_CHANGE: '공급가액 변동',
  RETURNED_GOODS: '환입',
  TERMINATION: '계약의 해제',
  LOCAL_LETTER_OF_CREDIT: '내국신용장 사후개설',
  DOUBLE_ISSUANCE: '착오에 의한 이중발급',
};

// Shown in the footer; a status we do not know is shown as it is rather than hidden.
const STATUS_LABELS: Record<string, string> = {
  REQUESTED: '역발행 요청',
  APPROVED: '역발행 승인',
  REFUSED: '역발행 거부',
  REQUEST_CANCELED: '역발행 요청 취소',
  PENDING: '발행 대기',
  ISSUED: '발행 완료',
  TRANSMITTING: '국세청 전송 중',
  TRANSMITTED: '국세청 전송 완료',
  CANCELED: '발행 취소',
  FAILED: '실패',
};

// Korea has had no daylight saving time since 1988, so KST is a fixed offset.
const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

// 1234567 → "1,234,567" and -5000 → "-5,000". Written out rather than Intl so the digits do not
// depend on the ICU data the Node binary ships with.
export function formatAmount(amount: number): string {
  assert(Number.isSafeInteger(amount), 'amounts are whole won');
  const digits = String(Math.abs(amount)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return amount < 0 ? `-${digits}` : digits;
}

// Quantities carry up to two decimals (../schemas.ts): 1.5 → "1.5", -1200 → "-1,200".
export function formatQuantity(quantity: number): string {
  assert(Number.isFinite(quantity));
  const [whole, fraction] = Math.abs(quantity).toFixed(2).split('.') as [string, string];
  const wholeDigits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fractionDigits = fraction.replace(/0+$/, '');
  const unsigned = fractionDigits === '' ? wholeDigits : `${wholeDigits}.${fractionDigits}`;
  return quantity < 0 && unsigned !== '0' ? `-${unsigned}` : unsigned;
}

// The 24 characters as three groups of eight joined by hyphens; "미전송" (not yet
// transmitted) while the tax authority has not given one.
export function formatApprovalNumber(ntsTransactionId: string | null): string {
  if (ntsTransactionId === null) return '미전송';
  assert(APPROVAL_NUMBER_PATTERN.test(ntsTransactionId), 'approval numbers are 24 characters');
  const size = APPROVAL_NUMBER_GROUP_LENGTH;
  return [0, 1, 2].map((index) => ntsTransactionId.slice(index * size, (index + 1) * size))
    .join('-');
}

// A business registration number reads XXX-XX-XXXXX. A thirteen-digit number belongs to a person
// (resident or foreigner registration number); its last seven digits are masked, as Hometax does
// on printed copies, because a PDF travels further than the document it shows.
export function formatIdentificationNumber(identificationNumber: string): string {
  if (/^[0-9]{10}$/.test(identificationNumber)) {
    return formatBusinessRegistrationNumber(identificationNumber);
  }
  assert(/^[0-9]{13}$/.test(identificationNumber), 'identification numbers are 10 or 13 digits');
  return `${identificationNumber.slice(0, 6)}-*******`;
}

type TitleOptions = { taxType: TaxType; amended: boolean; trustee?: boolean };

const TITLE_OF_TAX_TYPE: Record<TaxType, string> = {
  TAXABLE: '전자세금계산서',
  // A zero-rated invoice is a tax invoice too; the mark tells the reader why its tax is 0.
  ZERO_RATED: '전자세금계산서(영세율)',
  TAX_FREE: '전자계산서',
};

// 전자세금계산서 for VAT-taxable supply, 전자계산서 for exempt supply.
// A trustee's document (위수탁) says so after the kind, as the tax portal's forms do.
export function formatTitle({ taxType, amended, trustee = false }: TitleOptions): string {
  const kind = `${TITLE_OF_TAX_TYPE[taxType]}${trustee ? '(위수탁)' : ''}`;
  return amended ? `수정 ${kind}` : kind;
}

// The closing line of the form.
export function formatPurpose(purpose: 'RECEIPT' | 'CLAIM'): string {
  return purpose === 'RECEIPT' ? '이 금액을 (영수) 함' : '이 금액을 (청구) 함';
}

export function formatStatus(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

// "2026-11-20 14:03 KST": the time the supplier issued it, in the time zone of the form.
export function formatIssuedAt(issuedAt: Date): string {
  const local = new Date(issuedAt.getTime() + KST_OFFSET_MS).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 16)} KST`;
}

// An item's supply date "2026-11-20" gives the 월 and 일 columns without leading zeros.
export function splitSupplyDate(date: string): { month: string; day: string } {
  const match = /^[0-9]{4}-([0-9]{2})-([0-9]{2})$/.exec(date);
  assert(match !== null, 'supply dates are YYYY-MM-DD');
  return { month: String(Number(match[1])), day: String(Number(match[2])) };
}

// Clients' text cannot hold control characters (../schemas.ts); this keeps a stray one from
// reaching the page even so, since the wrapper treats "\n" as a forced line break.
export function printable(text: string | null | undefined): string {
  const characters = Array.from(text ?? '', (character) => {
    const code = character.charCodeAt(0);
    return code < 0x20 || code === 0x7f ? ' ' : character;
  });
  return characters.join('').trim();
}
