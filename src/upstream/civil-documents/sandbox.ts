import { setTimeout as sleep } from 'node:timers/promises';
import { renderSandboxCertificate } from '../sandbox-pdf.ts';
import { groupedNumber, koreanDate, sandboxAmount } from '../sandbox-numbers.ts';
import {
  INCOME_CERTIFICATE_KINDS,
  OFFICER_CHECKED_TYPES,
  TAX_PAYMENT_PURPOSES,
  type CivilDocumentRequest,
  type CivilDocumentService,
  type CivilDocumentType,
  type DocumentIssueResult,
} from './index.ts';

// The civil-document service of test keys (docs/sandbox.md § Documents): every document is a
// one-page PDF made from the request and the business's registered details, marked SANDBOX, the
// same bytes every time the same request is asked for. Documented values fail:
//   - a business number of 120-81-00002: the certificate has expired at the authority
//     (CERTIFICATE_EXPIRED);
//   - an income amount certificate for tax year 2000: no return filed (NO_FILED_RETURN).
// Fact certificates (closure, suspension) need an officer's check: they stay pending for
// `officerCheckSeconds` after the request was accepted.

const SANDBOX_EXPIRED_CERTIFICATE_BUSINESS = '1208100002';
const SANDBOX_UNFILED_TAX_YEAR = 2000;

const TITLES: Record<CivilDocumentType, { ko: string; en: string }> = {
  BUSINESS_REGISTRATION_CERTIFICATE:
    { ko: '사업자등록증명', en: 'Certificate of Business Registration' },
  TAX_PAYMENT_CERTIFICATE: { ko: '납세증명서', en: 'Certificate of Tax Payment' },
  VAT_TAX_BASE_CERTIFICATE:
    { ko: '부가가치세 과세표준증명', en: 'Certificate of VAT Tax Base' },
  INCOME_AMOUNT_CERTIFICATE: { ko: '소득금액증명', en: 'Certificate of Income Amount' },
  STANDARD_FINANCIAL_STATEMENTS:
    { ko: '표준재무제표증명', en: 'Certificate of Standard Financial Statements' },
  BUSINESS_CLOSURE_FACT_CERTIFICATE:
    { ko: '폐업사실증명', en: 'Certificate of Business Closure' },
  BUSINESS_SUSPENSION_FACT_CERTIFICATE:
    { ko: '휴업사실증명', en: 'Certificate of Business Suspension' },
};

const SANDBOX_ADDRESS = '서울특별시 중구 세종대로 110 (SANDBOX)';

function formatNumber(digits: string): string {
  return `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
}

const won = (amount: number) => `${amount.toLocaleString('en')}원`;

// The rows only some kinds print.
function kindRows(request: CivilDocumentRequest): Array<[string, string]> {
  const { options, issuanceKey } = request;
  switch (request.type) {
    case 'VAT_TAX_BASE_CERTIFICATE':
      return [['과세기간', `${options.startYearMonth} ~ ${options.endYearMonth}`],
        ['과세표준', won(sandboxAmount(`${issuanceKey}:base`))]];
    case 'INCOME_AMOUNT_CERTIFICATE':
      return [['증명구분', INCOME_CERTIFICATE_KINDS[options.incomeCertificateKind!]],
        ['귀속연도', `${options.taxYear}년`],
        ['소득금액', won(sandboxAmount(`${issuanceKey}:income`))]];
    case 'STANDARD_FINANCIAL_STATEMENTS':
      return [['사업연도 종료', options.fiscalYearEndMonth ?? ''],
        ['자산총계', won(sandboxAmount(`${issuanceKey}:assets`))],
        ['매출액', won(sandboxAmount(`${issuanceKey}:revenue`))]];
    case 'TAX_PAYMENT_CERTIFICATE':
      return [['체납액', '없음'], ['유효기간', '발급일부터 30일']];
    case 'BUSINESS_CLOSURE_FACT_CERTIFICATE':
      return [['폐업일', koreanDate(request.acceptedAt)]];
    case 'BUSINESS_SUSPENSION_FACT_CERTIFICATE':
      return [['휴업기간', `${koreanDate(request.acceptedAt)} ~`]];
    case 'BUSINESS_REGISTRATION_CERTIFICATE':
      return [['개업일', '2015. 03. 02.'], ['업태/종목', '서비스 / 소프트웨어 개발']];
  }
}

async function renderCivilDocument(
  request: CivilDocumentRequest,
  issueNumber: string,
  issuedAt: Date,
): Promise<Buffer> {
  const { business, options } = request;
  const title = TITLES[request.type];
  const rows: Array<[string, string]> = [
    ['발급번호', issueNumber],
    ['상호(법인명)', business.name],
    ['사업자등록번호', formatNumber(business.businessNumber)],
    ['대표자', business.representativeName],
  ];
  if (options.showAddress) rows.push(['사업장 소재지', SANDBOX_ADDRESS]);
  if (options.showResidentNumber) rows.push(['주민(법인)등록번호', '******-*******']);
  rows.push(...kindRows(request));
  if (options.submissionPurpose != null) {
    rows.push(['사용용도', TAX_PAYMENT_PURPOSES[options.submissionPurpose]]);
  }
  if (options.payer != null) {
    rows.push(['대금지급자', options.payer.businessRegistrationNumber === null
      ? options.payer.name
      : `${options.payer.name} (${formatNumber(options.payer.businessRegistrationNumber)})`]);
  }
  if (options.purpose !== null) rows.push(['용도', options.purpose]);
  return renderSandboxCertificate({
    title: options.language === 'EN' ? `${title.en} (${title.ko})` : title.ko,
    subtitle: `발급번호 ${issueNumber} · SANDBOX: 국세청에 신청되지 않은 문서입니다`,
    rows,
    footer: ['위와 같이 증명합니다.', koreanDate(issuedAt), '세무서장 (SANDBOX)'],
    issuedAt,
  });
}

export function createSandboxCivilDocuments(options: {
  officerCheckSeconds: number;
  latencyMs?: number;
  now: () => Date;
}): CivilDocumentService {
  return {
    async issue(request, signal): Promise<DocumentIssueResult> {
      if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal });
      if (request.business.businessNumber === SANDBOX_EXPIRED_CERTIFICATE_BUSINESS) {
        return { kind: 'rejected', code: 'CERTIFICATE_EXPIRED',
          message: 'The joint certificate has expired at the tax authority.' };
      }
      if (request.type === 'INCOME_AMOUNT_CERTIFICATE' &&
        request.options.taxYear === SANDBOX_UNFILED_TAX_YEAR) {
        return { kind: 'rejected', code: 'NO_FILED_RETURN',
          message: `No income tax return was filed for ${SANDBOX_UNFILED_TAX_YEAR}.` };
      }
      let issuedAt = request.acceptedAt;
      if (OFFICER_CHECKED_TYPES.has(request.type)) {
        issuedAt = new Date(request.acceptedAt.getTime() + options.officerCheckSeconds * 1_000);
        if (options.now() < issuedAt) return { kind: 'pending', retryAt: issuedAt };
      }
      const issueNumber = groupedNumber(`civil:${request.issuanceKey}`);
      return { kind: 'issued', issueNumber, issuedAt,
        pdf: await renderCivilDocument(request, issueNumber, issuedAt) };
    },
  };
}
