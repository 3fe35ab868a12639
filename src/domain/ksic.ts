// Sections of the Korean Standard Industrial Classification, 11th revision (KSIC, 한국표준산업분류).
// A profile's `industry.category` is one of these; its
// `industry.standardIndustry` is a five-digit sub-subclass. Section letters and names are the
// same in the 10th revision. This is data: it imports nothing from the rest of the code.

type KsicSection = {
  readonly code: string;
  readonly nameKorean: string;
  readonly nameEnglish: string;
};

// [letter, Korean name, English name], as in the official classification file.
const SECTION_ROWS: ReadonlyArray<readonly [string, string, string]> = [
  ['A', '농업, 임업 및 어업', 'Agriculture, forestry and fishing'],
  ['B', '광업', 'Mining and quarrying'],
  ['C', '제조업', 'Manufacturing'],
  ['D', '전기, 가스, 증기 및 공기 조절 공급업',
    'Electricity, gas, steam and air conditioning supply'],
  ['E', '수도, 하수 및 폐기물 처리, 원료 재생업',
    'Water supply; sewage, waste management, materials recovery'],
  ['F', '건설업', 'Construction'],
  ['G', '도매 및 소매업', 'Wholesale and retail trade'],
  ['H', '운수 및 창고업', 'Transportation and storage'],
  ['I', '숙박 및 음식점업', 'Accommodation and food service activities'],
  ['J', '정보통신업', 'Information and communication'],
  ['K', '금융 및 보험업', 'Financial and insurance activities'],
  ['L', '부동산업', 'Real estate activities'],
  ['M', '전문, 과학 및 기술 서비스업', 'Professional, scientific and technical activities'],
  ['N', '사업시설 관리, 사업 지원 및 임대 서비스업',
    'Business facilities management and business support services; rental and leasing ' +
      'activities'],
  ['O', '공공 행정, 국방 및 사회보장 행정',
    'Public administration and defence; compulsory social security'],
  ['P', '교육 서비스업', 'Education'],
  ['Q', '보건업 및 사회복지 서비스업', 'Human health and social work activities'],
  ['R', '예술, 스포츠 및 여가관련 서비스업', 'Arts, sports and recreation related services'],
  ['S', '협회 및 단체, 수리 및 기타 개인 서비스업',
    'Membership organizations, repair and other personal services'],
  ['T', '가구 내 고용활동 및 달리 분류되지 않은 자가 소비 생산활동',
    'Activities of households as employers; undifferentiated goods- and services-producing ' +
      'activities of households for own use'],
  ['U', '국제 및 외국기관', 'Activities of extraterritorial organizations and bodies'],
];

const KSIC_SECTIONS: ReadonlyMap<string, KsicSection> = new Map(
  SECTION_ROWS.map(([code, nameKorean, nameEnglish]) => [
    code,
    Object.freeze({ code, nameKorean, nameEnglish }),
  ]),
);

export const KSIC_SECTION_CODES: readonly string[] = Object.freeze([...KSIC_SECTIONS.keys()]);

// A sub-subclass (세세분류) code of the 11th revision has five digits.
export const KSIC_SUB_SUBCLASS_PATTERN = /^[0-9]{5}$/;

export function findKsicSection(code: string): KsicSection | null {
  return KSIC_SECTIONS.get(code) ?? null;
}
