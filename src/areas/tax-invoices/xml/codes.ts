import type { TaxType } from '../schemas.ts';

// The codes of the e-tax-invoice XML standard (KEC/NTS `TaxInvoice`, docs/tax-invoice-xml.md §
// Codes), kept here and nowhere else.

export const TAX_INVOICE_NAMESPACE =
  'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';
export const TAX_INVOICE_SCHEMA_LOCATION =
  `${TAX_INVOICE_NAMESPACE} http://www.kec.or.kr/standard/Tax/TaxInvoiceSchemaModule_1.0.xsd`;

// TaxInvoiceDocument/TypeCode: four digits, the first two the classification (세금계산서, its
// amendment, 계산서, its amendment), the last two the kind. etax issues the 일반, 영세율, 위수탁 and
// 영세율 위수탁 kinds; the import kinds are listed so that the table is whole.
export const DOCUMENT_CLASSIFICATIONS = {
  TAX_INVOICE: '01', // 세금계산서
  AMENDED_TAX_INVOICE: '02', // 수정세금계산서
  INVOICE: '03', // 계산서 (tax-exempt)
  AMENDED_INVOICE: '04', // 수정계산서
} as const;

export const DOCUMENT_KINDS = {
  NORMAL: '01', // 일반
  ZERO_RATED: '02', // 영세율
  CONSIGNMENT: '03', // 위수탁
  IMPORT: '04', // 수입
  CONSIGNMENT_ZERO_RATED: '05', // 영세율 위수탁
  IMPORT_DEFERRED_PAYMENT: '06', // 수입 납부유예
} as const;

// The TypeCode of a document etax issues: its tax type, whether it amends another and whether a
// trustee issues it (위수탁: 0103, 0105, 0303 and their amendments 0203, 0205, 0403). A tax-exempt
// invoice has no zero-rated kind, so a trustee's one is 위수탁 (03).
export function documentTypeCode(taxType: TaxType, amended: boolean, trustee = false): string {
  const classification = taxType === 'TAX_FREE'
    ? (amended ? DOCUMENT_CLASSIFICATIONS.AMENDED_INVOICE : DOCUMENT_CLASSIFICATIONS.INVOICE)
    : (amended ? DOCUMENT_CLASSIFICATIONS.AMENDED_TAX_INVOICE
      : DOCUMENT_CLASSIFICATIONS.TAX_INVOICE);
  const zeroRated = taxType === 'ZERO_RATED';
  const kind = trustee
    ? (zeroRated ? DOCUMENT_KINDS.CONSIGNMENT_ZERO_RATED : DOCUMENT_KINDS.CONSIGNMENT)
    : (zeroRated ? DOCUMENT_KINDS.ZERO_RATED : DOCUMENT_KINDS.NORMAL);
  return `${classification}${kind}`;
}

// TaxInvoiceDocument/PurposeCode: 영수 (payment received) or 청구 (payment requested).
export const PURPOSE_CODES = { RECEIPT: '01', CLAIM: '02' } as const;

// TaxInvoiceDocument/AmendmentStatusCode: the amendment reason (1–6), two digits.
export function amendmentStatusCode(reasonCode: number): string {
  return String(reasonCode).padStart(2, '0');
}

// SpecifiedPaymentMeans/TypeCode: how the total is (to be) paid.
export const PAYMENT_MEANS_CODES = {
  cash: '10', // 현금
  check: '20', // 수표
  note: '30', // 어음
  credit: '40', // 외상미수금
} as const;

// InvoiceeParty/SpecifiedOrganization/BusinessTypeCode: what the recipient's ID is.
const RECIPIENT_ID_CODES = {
  BUSINESS_REGISTRATION_NUMBER: '01', // 사업자등록번호
  RESIDENT_REGISTRATION_NUMBER: '02', // 주민등록번호
  FOREIGNER: '03', // 외국인
} as const;

// The number issuing systems write for a foreign recipient who has none (a non-resident buyer):
// thirteen nines, coded as a foreigner.
const FOREIGN_RECIPIENT_WITHOUT_NUMBER = '9999999999999';

// A thirteen-digit number is a foreigner registration number when its seventh digit (the
// gender and century digit) is 5 to 8, or the stand-in for a foreigner without a number; it is a
// resident registration number otherwise.
export function recipientIdCode(identificationNumber: string): string {
  if (identificationNumber.length === 10) return RECIPIENT_ID_CODES.BUSINESS_REGISTRATION_NUMBER;
  if (identificationNumber === FOREIGN_RECIPIENT_WITHOUT_NUMBER) {
    return RECIPIENT_ID_CODES.FOREIGNER;
  }
  return '5678'.includes(identificationNumber[6]!) ? RECIPIENT_ID_CODES.FOREIGNER
    : RECIPIENT_ID_CODES.RESIDENT_REGISTRATION_NUMBER;
}
