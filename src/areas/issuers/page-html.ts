import { formatBusinessRegistrationNumber } from '../../domain/business-registration-number.ts';
import { KEY_FILE_PASSWORD_LENGTH_MAX } from '../../domain/key-file-limits.ts';
import { escapeHtml, page } from '../../platform/html-page.ts';
import type { FailureCode } from './registration-codes.ts';
import {
  REGISTRATION_PAGE_PATH,
  type PageAttempt,
  type RegistrationPage,
} from './registration-links.ts';

// The HTML of the hosted certificate registration page (docs/issuers.md § Certificate
// registration): the form, and what an upload came to, in Korean and English for a business owner
// who reads either. A failed attempt shows what to do about it above the form, for another try on
// the same link. Every value from the issuer or the certificate is escaped.

type Outcome = { title: string; advice: string };

// One entry per failure code, so a new code cannot reach the page without its own words.
const FAILURES: Record<FailureCode, Outcome> = {
  WRONG_PASSWORD: {
    title: '비밀번호가 맞지 않습니다 · Wrong password',
    advice: '인증서 비밀번호를 확인하고 다시 입력해 주세요. Check the certificate password and ' +
      'type it again.',
  },
  VID_MISMATCH: {
    title: '다른 사업자의 인증서입니다 · Another business’s certificate',
    advice: '이 인증서의 본인확인 정보(VID)가 위 사업자등록번호와 맞지 않습니다. 위 사업자에게 ' +
      '발급된 공동인증서를 선택해 주세요. The certificate’s identity data (VID) does not match ' +
      'the registration number above: choose the joint certificate issued to this business.',
  },
  VID_MISSING: {
    title: '본인확인 정보가 없는 인증서입니다 · The certificate cannot be checked',
    advice: '인증서에 본인확인 정보(VID)가 없거나 개인키 파일에 식별번호(R)가 없습니다. 인증기관이 ' +
      '발급한 사업자용 공동인증서의 signCert.der와 signPri.key를 선택해 주세요. The certificate ' +
      'has no identity data (VID), or the key file no random value (R): choose signCert.der and ' +
      'signPri.key of a joint certificate a certificate authority issued to the business.',
  },
  NOT_ISSUERS_CERTIFICATE: {
    title: '다른 사업자의 인증서입니다 · Another business’s certificate',
    advice: '위 사업자에게 발급된 공동인증서를 선택해 주세요. Choose the joint certificate issued ' +
      'to the business above.',
  },
  CERTIFICATE_EXPIRED: {
    title: '유효기간이 지난 인증서입니다 · The certificate has expired',
    advice: '인증서를 갱신한 뒤 새 인증서를 선택해 주세요. Renew it with your certificate ' +
      'authority, then choose the new one.',
  },
  CERTIFICATE_NOT_YET_VALID: {
    title: '아직 사용할 수 없는 인증서입니다 · The certificate is not valid yet',
    advice: '인증서의 유효기간이 시작된 뒤 다시 시도해 주세요. Try again once its validity ' +
      'period has started.',
  },
  KEY_MISMATCH: {
    title: '인증서와 개인키가 짝이 맞지 않습니다 · The two files do not belong together',
    advice: '같은 인증서 폴더의 signCert.der와 signPri.key를 선택해 주세요. Choose both files ' +
      'from the same certificate folder.',
  },
  NOT_SIGNING_CERTIFICATE: {
    title: '서명용 인증서가 아닙니다 · Not the signing certificate',
    advice: 'kmCert.der, kmPri.key가 아닌 signCert.der, signPri.key를 선택해 주세요. Choose ' +
      'signCert.der and signPri.key, not kmCert.der and kmPri.key.',
  },
  UNSUPPORTED_CERTIFICATE_FORMAT: {
    title: '인증서 파일이 아닙니다 · Not a certificate file',
    advice: '인증서 폴더의 signCert.der를 선택해 주세요. Choose signCert.der from the ' +
      'certificate folder.',
  },
  UNSUPPORTED_KEY_FORMAT: {
    title: '지원하지 않는 개인키 파일입니다 · Unsupported key file',
    advice: '인증서 폴더의 signPri.key를 선택해 주세요. Choose signPri.key from the certificate ' +
      'folder.',
  },
  SANDBOX_CERTIFICATE: {
    title: '테스트용 인증서입니다 · A sandbox certificate',
    advice: '이 링크에는 사업자의 실제 공동인증서를 등록해야 합니다. This link registers a live ' +
      'certificate: choose the business’s own joint certificate.',
  },
};

const seoulTime = new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric',
  month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const inSeoul = (date: Date) => `${seoulTime.format(date)} (KST)`;

function factsTable(rows: Array<[string, string]>) {
  return '<table class="facts"><tbody>' + rows.map(([label, value]) =>
    `<tr><th scope="row">${label}</th><td>${escapeHtml(value)}</td></tr>`).join('') +
    '</tbody></table>';
}

function businessFacts(view: RegistrationPage) {
  return factsTable([
    ['상호 Business', view.organizationName],
    ['사업자등록번호 Registration no.',
      formatBusinessRegistrationNumber(view.identificationNumber)],
    ['링크 만료 Link expires', inSeoul(view.expiresAt)],
  ]);
}

function formHtml(token: string) {
  return `<form method="post" action="${REGISTRATION_PAGE_PATH}/${escapeHtml(token)}" ` +
    'enctype="multipart/form-data" class="stack">' +
    '<label>인증서 파일 Certificate file <span class="hint">signCert.der</span>' +
    '<input type="file" name="signCert" required></label>' +
    '<label>개인키 파일 Private key file <span class="hint">signPri.key</span>' +
    '<input type="file" name="signPri" required></label>' +
    '<label>인증서 비밀번호 Certificate password' +
    `<input type="password" name="password" required maxlength="${KEY_FILE_PASSWORD_LENGTH_MAX}" ` +
    'autocomplete="off"></label>' +
    '<button type="submit" class="primary">등록 Register</button></form>' +
    '<p class="hint">파일과 비밀번호는 etax로 바로 전송되며, 비밀번호는 저장되지 않습니다. The files ' +
    'and the password go to etax directly; the password is never stored.</p>';
}

const SANDBOX_NOTICE = '<p class="notice sandbox">테스트 환경: 테스트 키의 발행에만 쓰입니다. ' +
  'Sandbox: the certificate is registered for test keys only.</p>';

const intro = (view: RegistrationPage) =>
  (view.environment === 'test' ? SANDBOX_NOTICE : '') +
  `<p>${escapeHtml(view.organizationName)}의 공동인증서를 등록합니다. Register the joint ` +
  'certificate of this business to sign its tax invoices.</p>';

export function formPage(token: string, view: RegistrationPage): string {
  return page({ ko: '공동인증서 등록', en: 'Joint certificate registration' },
    intro(view) + businessFacts(view) + formHtml(token));
}

export function registeredPage(attempt: PageAttempt): string {
  const { certificate } = attempt;
  const facts = certificate === null ? '' : factsTable([
    ['인증서 Certificate', certificate.subject],
    ['발급기관 Issued by', certificate.issuerName],
    ['만료 Expires', inSeoul(certificate.notAfter)],
  ]);
  return page({ ko: '등록 완료', en: 'Certificate registered' },
    '<p class="notice success">공동인증서가 등록되었습니다. 이제 이 인증서로 세금계산서를 발행할 ' +
    '수 있습니다. The joint certificate is registered; tax invoices are signed with it from ' +
    'now on.</p>' + facts + '<p>이 창을 닫아도 됩니다. You can close this page.</p>');
}

// A failed attempt: what happened, what to do, and the form again on the same link.
export function failedPage(token: string, attempt: PageAttempt): string {
  const { record } = attempt;
  const outcome = FAILURES[record.code as FailureCode];
  return page({ ko: '등록하지 못했습니다', en: 'Not registered' },
    `<div class="notice error" role="alert"><strong>${escapeHtml(outcome.title)}</strong>` +
    `<p>${escapeHtml(outcome.advice)}</p>` +
    `<p class="hint">${escapeHtml(record.code)}: ${escapeHtml(record.message)} ` +
    `(${escapeHtml(record.identifier)})</p></div>` +
    '<p>이 링크로 다시 시도할 수 있습니다. You can try again with this link until it expires.</p>' +
    businessFacts(attempt.page) + formHtml(token));
}
