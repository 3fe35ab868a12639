import { BANKS, findBank } from '../../domain/bank-codes.ts';
import { formatBusinessRegistrationNumber } from '../../domain/business-registration-number.ts';
import { escapeHtml, page } from '../../platform/html-page.ts';
import { CONNECTION_PAGE_PATH, type ConnectionPage } from './links.ts';
import type { ConnectionView } from './service.ts';

// The HTML of the hosted connection page (docs/connections.md § Making a connection), in Korean and
// English: the form of the link's kind, what a login came to, and the form again after a failed
// login. Every value is escaped; a typed password is never written back into the page.

const seoulTime = new Intl.DateTimeFormat('ko-KR', { timeZone: 'Asia/Seoul', year: 'numeric',
  month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

const TITLES = {
  HOMETAX: { ko: '홈택스 연결', en: 'Connect the tax portal (Hometax)' },
  BANK_ACCOUNT: { ko: '은행 계좌 연결', en: 'Connect a bank account' },
} as const;

const field = (label: string, name: string, type: string, extra = '') =>
  `<label>${label}<input type="${type}" name="${name}" required autocomplete="off"${extra}>` +
  '</label>';

// The bank is chosen by its name: banks first, then securities firms (codes 2xx), each in the
// order of their codes. The code is only the option's value, what the form posts.
const bankOption = (bank: { code: string; nameKorean: string; nameEnglish: string }) =>
  `<option value="${bank.code}">${escapeHtml(bank.nameKorean)} · ${escapeHtml(bank.nameEnglish)}` +
  '</option>';
const ALL_BANKS = Object.values(BANKS).sort((a, b) => a.code.localeCompare(b.code));
const BANK_SELECT = '<label>은행 Bank<select name="bankCode" required>' +
  '<option value="">은행을 고르세요 Choose the bank</option>' +
  `<optgroup label="은행 Banks">${ALL_BANKS.filter((bank) => !bank.code.startsWith('2'))
    .map(bankOption).join('')}</optgroup>` +
  `<optgroup label="증권사 Securities firms">${ALL_BANKS.filter((bank) =>
    bank.code.startsWith('2')).map(bankOption).join('')}</optgroup></select></label>`;

function formHtml(token: string, view: ConnectionPage) {
  const fields = view.kind === 'HOMETAX'
    ? field('사업자등록번호 Business registration no.', 'businessRegistrationNumber', 'text',
      ' inputmode="numeric" maxlength="12"') +
      field('홈택스 아이디 Hometax user id', 'userId', 'text', ' maxlength="50"') +
      field('홈택스 비밀번호 Hometax password', 'password', 'password', ' maxlength="100"')
    : BANK_SELECT +
      field('계좌번호 Account number', 'accountNumber', 'text', ' maxlength="30"') +
      field('인터넷뱅킹 아이디 Online banking user id', 'userId', 'text', ' maxlength="50"') +
      field('인터넷뱅킹 비밀번호 Online banking password', 'password', 'password',
        ' maxlength="100"');
  return `<form method="post" action="${CONNECTION_PAGE_PATH}/${escapeHtml(token)}" ` +
    `class="stack">${fields}<button type="submit" class="primary">연결 Connect</button></form>` +
    '<p class="hint">입력한 정보는 etax로 바로 전송되어 암호화된 상태로만 보관되며, 어디에도 표시되지 ' +
    '않습니다. What you type goes to etax directly and is kept only encrypted; it is never ' +
    'shown again.</p>';
}

const SANDBOX_NOTICE = '<p class="notice sandbox">테스트 환경: 실제 홈택스나 은행에 접속하지 않습니다. ' +
  'Sandbox: nothing reaches the real portal or bank.</p>';

const expiry = (view: ConnectionPage) =>
  `<p class="hint">링크 만료 Link expires: ${escapeHtml(seoulTime.format(view.expiresAt))} (KST)</p>`;

// Who receives the connection, so the owner knows whom the credentials serve before typing them.
const recipient = (view: ConnectionPage) =>
  '<table class="facts"><tbody><tr><th scope="row">연결받는 계정 Connecting to</th>' +
  `<td>${escapeHtml(view.accountName)}</td></tr></tbody></table>` +
  '<p class="hint">이 계정이 입력한 정보로 홈택스나 은행의 자료를 조회하게 됩니다. 모르는 계정이면 입력하지 ' +
  '마세요. This account will read your records with what you type; if you do not know it, do ' +
  'not type anything.</p>';

export function formPage(token: string, view: ConnectionPage): string {
  return page(TITLES[view.kind], (view.environment === 'test' ? SANDBOX_NOTICE : '') +
    recipient(view) + formHtml(token, view) + expiry(view));
}

export function connectedPage(connection: ConnectionView): string {
  const subject = connection.kind === 'HOMETAX'
    ? formatBusinessRegistrationNumber(connection.businessRegistrationNumber ?? '')
    : `${findBank(connection.bankCode ?? '')?.nameKorean ?? connection.bankCode ?? ''} ` +
      `${connection.accountNumber ?? ''}`;
  return page({ ko: '연결 완료', en: 'Connected' },
    '<p class="notice success">로그인을 확인하고 연결했습니다. The login worked and the ' +
    'connection is made.</p>' +
    '<table class="facts"><tbody>' +
    `<tr><th scope="row">연결 Connection</th><td>${escapeHtml(subject)}</td></tr>` +
    `<tr><th scope="row">이름 Name</th><td>${escapeHtml(connection.displayName ?? '')}</td></tr>` +
    '</tbody></table><p>이 창을 닫아도 됩니다. You can close this page.</p>');
}

export function failedPage(token: string, view: ConnectionPage,
  failure: { code: string; message: string }): string {
  return page({ ko: '연결하지 못했습니다', en: 'Not connected' },
    '<div class="notice error" role="alert"><strong>로그인에 실패했습니다 · The login failed' +
    `</strong><p>${escapeHtml(failure.code)}: ${escapeHtml(failure.message)}</p></div>` +
    '<p>이 링크로 다시 시도할 수 있습니다. You can try again with this link until it expires.</p>' +
    recipient(view) + formHtml(token, view) + expiry(view));
}
