// The tax authority's civil-document service (홈택스 민원증명): certificates about the business
// that owns the API key, issued under its registered joint certificate (docs/documents.md §
// Live gateways). Two implementations: sandbox.ts for test keys and live.ts, an
// operator-run gateway, for live keys.
//
// An issuance is idempotent by issuance key: asking again for the same key, after a crash
// between the call and recording its answer, gives the same document.

export type CivilDocumentType =
  | 'BUSINESS_REGISTRATION_CERTIFICATE'
  | 'TAX_PAYMENT_CERTIFICATE'
  | 'VAT_TAX_BASE_CERTIFICATE'
  | 'INCOME_AMOUNT_CERTIFICATE'
  | 'STANDARD_FINANCIAL_STATEMENTS'
  | 'BUSINESS_CLOSURE_FACT_CERTIFICATE'
  | 'BUSINESS_SUSPENSION_FACT_CERTIFICATE';

// The kinds (증명구분) of a 소득금액증명 the tax portal issues, by whose income it certifies.
export const INCOME_CERTIFICATE_KINDS = {
  GLOBAL_INCOME_TAX_RETURN: '종합소득세 신고자용',
  WAGE_EARNER: '근로소득자용',
  YEAR_END_SETTLED_BUSINESS_INCOME: '연말정산한 사업소득자용',
  YEAR_END_SETTLED_PENSION_INCOME: '연말정산한 연금소득자용',
  YEAR_END_SETTLED_RELIGIOUS_INCOME: '연말정산한 종교인 소득자용',
} as const;
export type IncomeCertificateKind = keyof typeof INCOME_CERTIFICATE_KINDS;

// Why a 납세증명서 (TAX_PAYMENT_CERTIFICATE) is submitted: the three cases in which
// 국세징수법 제107조① requires one (docs/documents.md § The purpose of a 납세증명서), or another,
// with the words the certificate carries for each.
export const TAX_PAYMENT_PURPOSES = {
  // ①1: payment received from the state, a local government or a government-managed body.
  PAYMENT_RECEIPT: '대금수령',
  // ①2: a registered foreigner's application for an extension of stay or a like permit.
  RESIDENCE_PERMIT: '외국인 체류 관련 허가 신청',
  // ①3: a national's report of emigration (해외이주신고).
  EMIGRATION: '해외이주용',
  // Any other submission (a bank, a bid, a contract): `purpose` says which.
  OTHER: '기타',
} as const;
export type TaxPaymentPurpose = keyof typeof TAX_PAYMENT_PURPOSES;

// Who pays, for a certificate submitted to receive payment (대금수령): the certificate is
// issued for that payer.
export type PaymentPayer = { name: string; businessRegistrationNumber: string | null };

// The options every kind accepts, and the fields only some kinds take (null elsewhere).
export type CivilDocumentOptions = {
  showAddress: boolean;
  showResidentNumber: boolean;
  language: 'KO' | 'EN';
  purpose: string | null;
  // VAT tax base: `YYYY-MM`, inclusive.
  startYearMonth: string | null;
  endYearMonth: string | null;
  // Income amount: the tax year whose return was filed.
  taxYear: number | null;
  // Income amount: which certificate (증명구분), as the tax portal offers them.
  incomeCertificateKind: IncomeCertificateKind | null;
  // Standard financial statements: the fiscal year's last month, `YYYY-MM`.
  fiscalYearEndMonth: string | null;
  // Tax payment certificate: the case it is submitted for, and the payer of a payment. Absent
  // from the options of documents requested before they existed.
  submissionPurpose?: TaxPaymentPurpose | null;
  payer?: PaymentPayer | null;
};

export type CivilDocumentRequest = {
  issuanceKey: string;
  type: CivilDocumentType;
  options: CivilDocumentOptions;
  // The business the document is about: the API key's own.
  business: { businessNumber: string; name: string; representativeName: string };
  // The registered joint certificate the application is made under.
  certificate: { serialNumber: string; notAfter: string };
  // When etax accepted the request; the sandbox dates its documents from it.
  acceptedAt: Date;
};

type UpstreamDocument = { issueNumber: string; pdf: Buffer; issuedAt: Date };

// `pending`: an officer must check the application first (fact certificates); ask again later.
// `rejected`: the authority refuses for good (no filed return, certificate expired).
// `unavailable`: the authority could not be reached or answered outside its contract; retried.
export type DocumentIssueResult =
  | ({ kind: 'issued' } & UpstreamDocument)
  | { kind: 'pending'; retryAt: Date }
  | { kind: 'rejected'; code: string; message: string }
  | { kind: 'unavailable' };

export type CivilDocumentService = {
  issue(request: CivilDocumentRequest, signal: AbortSignal): Promise<DocumentIssueResult>;
};

export const UPSTREAM_UNAVAILABLE: DocumentIssueResult = Object.freeze({ kind: 'unavailable' });

// The kinds issued only after an officer's check (사실증명): they stay pending for a while.
export const OFFICER_CHECKED_TYPES: ReadonlySet<CivilDocumentType> = new Set([
  'BUSINESS_CLOSURE_FACT_CERTIFICATE', 'BUSINESS_SUSPENSION_FACT_CERTIFICATE',
]);
