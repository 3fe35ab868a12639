// The kind of corporation a corporate registration number names: digits 5 and 6 (the first four are
// the registry office, then the kind, a serial and a check digit). The registry numbers the kinds
// in its table of kind numbers (법인종류별 분류번호, docs/documents.md § Types and options): 11–15 the
// companies of the Commercial Act, 21–22 the corporations of the Civil Act, 31–53 the corporations
// of special acts, 71 a corporation no other number fits, and 81–86 foreign companies. Registry
// copies are issued for every domestic kind, each given the kind of the API's list it belongs to; a
// foreign company's number (its Korean branch registry) and a number outside the table are refused
// before anything is charged. Data only: it imports nothing.

type CorporationKindName =
  | 'STOCK_COMPANY'
  | 'GENERAL_PARTNERSHIP_COMPANY'
  | 'LIMITED_PARTNERSHIP_COMPANY'
  | 'LIMITED_COMPANY'
  | 'LIMITED_LIABILITY_COMPANY'
  | 'INCORPORATED_ASSOCIATION'
  | 'INCORPORATED_FOUNDATION'
  | 'MEDICAL_CORPORATION'
  | 'COOPERATIVE'
  | 'OTHER_CORPORATE_ENTITY';

// Kind number → the API's kind. The comment names what the registry's table gives the number.
const CORPORATION_KINDS: Readonly<Record<string, CorporationKindName>> = Object.freeze({
  '11': 'STOCK_COMPANY', // 주식회사
  '12': 'GENERAL_PARTNERSHIP_COMPANY', // 합명회사
  '13': 'LIMITED_PARTNERSHIP_COMPANY', // 합자회사
  '14': 'LIMITED_COMPANY', // 유한회사
  '15': 'LIMITED_LIABILITY_COMPANY', // 유한책임회사 (Commercial Act as amended in 2011)
  '21': 'INCORPORATED_ASSOCIATION', // 사단법인
  '22': 'INCORPORATED_FOUNDATION', // 재단법인
  '31': 'OTHER_CORPORATE_ENTITY', // 학교법인 (사립학교법)
  '32': 'OTHER_CORPORATE_ENTITY', // 사회복지법인 (사회복지사업법)
  '33': 'MEDICAL_CORPORATION', // 의료법인 (의료법)
  '34': 'OTHER_CORPORATE_ENTITY', // 회계법인 (공인회계사법)
  '35': 'OTHER_CORPORATE_ENTITY', // 특별법에 의한 은행
  '36': 'COOPERATIVE', // 농업협동조합과 그 중앙회
  '37': 'COOPERATIVE', // 축산업협동조합과 그 중앙회
  '38': 'COOPERATIVE', // 수산업협동조합과 그 중앙회, 어촌계
  '39': 'COOPERATIVE', // 산림조합과 그 중앙회
  '40': 'COOPERATIVE', // 중소기업협동조합과 그 연합회·중앙회
  '41': 'COOPERATIVE', // 신용협동조합과 그 연합회
  '42': 'OTHER_CORPORATE_ENTITY', // 농지개량조합 등
  '43': 'OTHER_CORPORATE_ENTITY', // 노동조합
  '44': 'OTHER_CORPORATE_ENTITY', // 새마을금고와 그 연합회
  '45': 'OTHER_CORPORATE_ENTITY', // 의료보험조합
  '46': 'OTHER_CORPORATE_ENTITY', // 법무법인 (변호사법)
  '47': 'OTHER_CORPORATE_ENTITY', // 상공회의소
  '48': 'OTHER_CORPORATE_ENTITY', // 상호신용금고 등
  '49': 'OTHER_CORPORATE_ENTITY', // 자동차운송사업조합 등
  '50': 'COOPERATIVE', // 공업협동조합과 그 중앙회
  '51': 'OTHER_CORPORATE_ENTITY', // special acts numbered after the table above
  '52': 'OTHER_CORPORATE_ENTITY',
  '53': 'OTHER_CORPORATE_ENTITY',
  '71': 'OTHER_CORPORATE_ENTITY', // 분류할 수 없는 법인
});

export type CorporationKind = CorporationKindName;

export const CORPORATION_KIND_LABELS: Record<CorporationKind, string> = {
  STOCK_COMPANY: '주식회사',
  GENERAL_PARTNERSHIP_COMPANY: '합명회사',
  LIMITED_PARTNERSHIP_COMPANY: '합자회사',
  LIMITED_COMPANY: '유한회사',
  LIMITED_LIABILITY_COMPANY: '유한책임회사',
  INCORPORATED_ASSOCIATION: '사단법인',
  INCORPORATED_FOUNDATION: '재단법인',
  OTHER_CORPORATE_ENTITY: '기타법인',
  MEDICAL_CORPORATION: '의료법인',
  COOPERATIVE: '협동조합',
};

// The kind of a thirteen-digit number, or null when its kind digits name no supported kind.
export function corporationKindOf(digits: string): CorporationKind | null {
  const code = digits.slice(4, 6);
  return Object.hasOwn(CORPORATION_KINDS, code) ? CORPORATION_KINDS[code]! : null;
}
