// The kind of corporation a corporate registration number names: digits 5 and 6 (the first four
// are the registry office, then the kind, a serial and a check digit). Registry copies are issued
// for the kinds the court registry serves online, named below; a number whose kind digits are not
// in this table (a foreign company's branch registry, a kind the registry does not list) is
// refused before anything is charged. Data only: it imports nothing.

export const CORPORATION_KINDS = {
  '11': 'STOCK_COMPANY', // 주식회사
  '12': 'GENERAL_PARTNERSHIP_COMPANY', // 합명회사
  '13': 'LIMITED_PARTNERSHIP_COMPANY', // 합자회사
  '14': 'LIMITED_COMPANY', // 유한회사
  '15': 'LIMITED_LIABILITY_COMPANY', // 유한책임회사
  '21': 'INCORPORATED_ASSOCIATION', // 사단법인
  '22': 'INCORPORATED_FOUNDATION', // 재단법인
  '31': 'OTHER_CORPORATE_ENTITY', // 그 밖의 법인
  '32': 'MEDICAL_CORPORATION', // 의료법인
  '33': 'COOPERATIVE', // 협동조합, 사회적협동조합
} as const;

export type CorporationKind = (typeof CORPORATION_KINDS)[keyof typeof CORPORATION_KINDS];

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
  return Object.hasOwn(CORPORATION_KINDS, code)
    ? CORPORATION_KINDS[code as keyof typeof CORPORATION_KINDS] : null;
}
