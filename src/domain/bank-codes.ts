// Korean financial institution codes (금융결제원 3-digit codes) and the account number rules of
// the bank account holder lookup (docs/bank-account-holders.md). Banks and deposit institutions
// come from the 0xx/1xx list and securities firms from the 2xx list of the reference domain
// facts, §3.1 and §3.2. This is data: it imports nothing from the rest of the code.

export type Bank = {
  readonly code: string;
  readonly nameKorean: string;
  readonly nameEnglish: string;
};

// [code, Korean name, English name]. Kept as rows so the list reads like the source table.
const BANK_ROWS: ReadonlyArray<readonly [string, string, string]> = [
  ['001', '한국은행', 'Bank of Korea'],
  ['002', 'KDB산업은행', 'Korea Development Bank'],
  ['003', 'IBK기업은행', 'Industrial Bank of Korea'],
  ['004', 'KB국민은행', 'Kookmin Bank'],
  ['005', '외환은행', 'Korea Exchange Bank (merged into Hana Bank)'],
  ['007', 'Sh수협은행', 'Suhyup Bank'],
  ['008', '한국수출입은행', 'Export-Import Bank of Korea'],
  ['011', 'NH농협은행', 'NongHyup Bank'],
  ['012', '지역농·축협', 'Local agricultural and livestock cooperatives'],
  ['020', '우리은행', 'Woori Bank'],
  ['023', 'SC제일은행', 'SC First Bank'],
  ['027', '한국씨티은행', 'Citibank Korea'],
  ['031', 'iM뱅크', 'iM Bank (formerly Daegu Bank)'],
  ['032', 'BNK부산은행', 'Busan Bank'],
  ['034', '광주은행', 'Kwangju Bank'],
  ['035', '제주은행', 'Jeju Bank'],
  ['037', '전북은행', 'Jeonbuk Bank'],
  ['039', 'BNK경남은행', 'Kyongnam Bank'],
  ['045', '새마을금고', 'Korean Federation of Community Credit Cooperatives (MG)'],
  ['048', '신협', 'National Credit Union Federation of Korea'],
  ['050', '저축은행', 'Mutual savings banks'],
  ['051', '기타 외국계은행', 'Other foreign banks'],
  ['052', '모건스탠리은행', 'Morgan Stanley Bank'],
  ['054', 'HSBC은행', 'HSBC'],
  ['055', '도이치은행', 'Deutsche Bank'],
  ['056', '알비에스피엘씨은행', 'RBS'],
  ['057', '제이피모간체이스은행', 'JPMorgan Chase Bank'],
  ['058', '미즈호은행', 'Mizuho Bank'],
  ['059', '엠유에프지은행', 'MUFG Bank'],
  ['060', 'BOA은행', 'Bank of America'],
  ['061', '비엔피파리바은행', 'BNP Paribas'],
  ['062', '중국공상은행', 'Industrial and Commercial Bank of China'],
  ['063', '중국은행', 'Bank of China'],
  ['064', '산림조합중앙회', 'National Forestry Cooperative Federation'],
  ['065', '대화은행', 'United Overseas Bank'],
  ['066', '교통은행', 'Bank of Communications'],
  ['071', '우체국', 'Korea Post'],
  ['076', '신용보증기금', 'Korea Credit Guarantee Fund'],
  ['077', '기술보증기금', 'Korea Technology Finance Corporation'],
  ['081', '하나은행', 'Hana Bank'],
  ['088', '신한은행', 'Shinhan Bank'],
  ['089', '케이뱅크', 'K Bank'],
  ['090', '카카오뱅크', 'KakaoBank'],
  ['092', '토스뱅크', 'Toss Bank'],
  ['093', '한국주택금융공사', 'Korea Housing Finance Corporation'],
  ['094', '서울보증보험', 'Seoul Guarantee Insurance'],
  ['095', '경찰청', 'Korean National Police Agency'],
  ['096', '한국전자금융', 'Korea Electronic Finance'],
  ['099', '금융결제원', 'Korea Financial Telecommunications and Clearings Institute'],
  ['101', '한국신용정보원', 'Korea Credit Information Services'],
  ['103', 'SBI저축은행', 'SBI Savings Bank'],
  ['105', '웰컴저축은행', 'Welcome Savings Bank'],
  ['209', '유안타증권', 'Yuanta Securities'],
  ['218', 'KB증권', 'KB Securities'],
  ['221', '상상인증권', 'Sangsangin Securities'],
  ['222', '한양증권', 'Hanyang Securities'],
  ['223', '리딩투자증권', 'Leading Investment & Securities'],
  ['224', 'BNK투자증권', 'BNK Securities'],
  ['225', 'IBK투자증권', 'IBK Securities'],
  ['227', '다올투자증권', 'Daol Investment & Securities'],
  ['238', '미래에셋증권', 'Mirae Asset Securities'],
  ['240', '삼성증권', 'Samsung Securities'],
  ['243', '한국투자증권', 'Korea Investment & Securities'],
  ['247', 'NH투자증권', 'NH Investment & Securities'],
  ['261', '교보증권', 'Kyobo Securities'],
  ['262', '하이투자증권', 'Hi Investment & Securities'],
  ['263', '현대차증권', 'Hyundai Motor Securities'],
  ['264', '키움증권', 'Kiwoom Securities'],
  ['265', 'LS증권', 'LS Securities (formerly eBest)'],
  ['266', 'SK증권', 'SK Securities'],
  ['267', '대신증권', 'Daishin Securities'],
  ['269', '한화투자증권', 'Hanwha Investment & Securities'],
  ['270', '하나증권', 'Hana Securities'],
  ['271', '토스증권', 'Toss Securities'],
  ['278', '신한투자증권', 'Shinhan Securities'],
  ['279', 'DB금융투자', 'DB Financial Investment'],
  ['280', '유진투자증권', 'Eugene Investment & Securities'],
  ['287', '메리츠증권', 'Meritz Securities'],
  ['288', '카카오페이증권', 'KakaoPay Securities'],
  ['290', '부국증권', 'Bookook Securities'],
  ['291', '신영증권', 'Shinyoung Securities'],
  ['292', '케이프투자증권', 'Cape Investment & Securities'],
  ['293', '한국증권금융', 'Korea Securities Finance Corporation'],
  ['294', '한국포스증권', 'Korea Pos Securities'],
  ['295', '우리종합금융', 'Woori Investment Bank'],
];

// Every known code, frozen so no caller can add or change a bank at run time.
export const BANKS: Readonly<Record<string, Bank>> = Object.freeze(
  Object.fromEntries(
    BANK_ROWS.map(([code, nameKorean, nameEnglish]) => [
      code,
      Object.freeze({ code, nameKorean, nameEnglish }),
    ]),
  ),
);

// A bank code is exactly three ASCII digits; anything else is malformed before it is unknown.
const BANK_CODE_PATTERN = /^[0-9]{3}$/;

// Returns the bank of a code, or null for a malformed or unknown code. Own keys only, so
// inherited names such as "constructor" are never banks.
export function findBank(code: string): Bank | null {
  if (!BANK_CODE_PATTERN.test(code)) return null;
  return Object.hasOwn(BANKS, code) ? BANKS[code]! : null;
}

// Korean deposit accounts have 10 to 14 digits and virtual accounts up to 16; 8 leaves room for
// the shortest legacy accounts. Longer or shorter strings cannot be accounts, so they are
// refused without asking the bank network.
export const ACCOUNT_NUMBER_DIGITS_MIN = 8;
export const ACCOUNT_NUMBER_DIGITS_MAX = 16;

// Hyphens and spaces are how people write account numbers (123-456-789012); nothing else is.
const ACCOUNT_NUMBER_SEPARATORS = /[- ]/g;
const DIGITS_PATTERN = /^[0-9]+$/;

// Returns the account number as digits only, or null when what remains after removing hyphens
// and spaces is not 8 to 16 ASCII digits.
export function normalizeAccountNumber(raw: string): string | null {
  const digits = raw.replace(ACCOUNT_NUMBER_SEPARATORS, '');
  if (!DIGITS_PATTERN.test(digits)) return null;
  if (digits.length < ACCOUNT_NUMBER_DIGITS_MIN) return null;
  if (digits.length > ACCOUNT_NUMBER_DIGITS_MAX) return null;
  return digits;
}

// Accounts per bulk holder inquiry.
export const ACCOUNTS_PER_REQUEST_MAX = 100;
