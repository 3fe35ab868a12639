import type { BusinessProfile, ProfileLookupResult, ProfileSource } from './index.ts';

// The profile source of test keys (docs/sandbox.md § Business profiles): a fixed, documented list
// of test numbers, each answering the same way every time. Only these numbers are valid with a
// test key; any other number is 400 INVALID_REQUEST before points or the source are touched. The
// numbers are in the 999-99 block, which no tax office hands out, and pass the checksum.

export const SANDBOX_BUSINESS_NUMBERS = {
  corporation: '9999900005',
  soleProprietor: '9999900010',
  neverChecked: '9999900024',
  notFound: '9999900039',
  lookupUnavailable: '9999900043',
  serviceUnavailable: '9999900058',
} as const;

// Mock scenario 1: a corporation with every field filled.
export const SANDBOX_CORPORATION: BusinessProfile = Object.freeze<BusinessProfile>({
  businessRegistrationNumber: SANDBOX_BUSINESS_NUMBERS.corporation,
  corporateRegistrationNumber: '1101111234569',
  businessKind: 'CORPORATE',
  commercialSalesNumber: '2024-서울강남-01234',
  organizationName: '주식회사 이택스샌드박스',
  organizationNameEnglish: 'eTax Sandbox Co., Ltd.',
  formerOrganizationNames: [
    { name: '주식회사 이택스랩', changedOn: '2022-03-15' },
    { name: '이택스랩 주식회사', changedOn: '2019-07-01' },
  ],
  representativeName: '홍길동',
  address: {
    roadAddress: '서울특별시 강남구 테헤란로 123, 4층',
    postalCode: '06234',
    sidoCode: '11',
    sigunguCode: '11680',
  },
  contact: {
    phone: '02-1234-5678',
    email: 'contact@sandbox.etax.example',
    websites: ['https://sandbox.etax.example', 'https://blog.sandbox.etax.example'],
  },
  industry: {
    businessType: '정보통신업',
    businessItem: '응용 소프트웨어 개발 및 공급',
    standardIndustry: { code: '58222', name: '응용 소프트웨어 개발 및 공급업' },
    category: { code: 'J', name: '정보통신업' },
  },
  openedOn: '2015-04-01',
  businessRegisteredOn: '2015-04-10',
  corporationEstablishedOn: '2015-03-20',
  registration: { status: 'ACTIVE', closedOn: null, checkedAt: '2025-01-02T03:04:05.000Z' },
  taxation: { type: 'GENERAL' },
});

// Mock scenario 2: a sole proprietor. Corporation-only fields are null, contact values are null
// and every list is empty.
export const SANDBOX_SOLE_PROPRIETOR: BusinessProfile = Object.freeze<BusinessProfile>({
  businessRegistrationNumber: SANDBOX_BUSINESS_NUMBERS.soleProprietor,
  corporateRegistrationNumber: null,
  businessKind: 'INDIVIDUAL',
  commercialSalesNumber: null,
  organizationName: '김철수상회',
  organizationNameEnglish: null,
  formerOrganizationNames: [],
  representativeName: '김*수',
  address: {
    roadAddress: '부산광역시 해운대구 해운대로 456',
    postalCode: '48094',
    sidoCode: '26',
    sigunguCode: '26350',
  },
  contact: { phone: null, email: null, websites: [] },
  industry: {
    businessType: '도매 및 소매업',
    businessItem: '식료품 소매',
    standardIndustry: { code: '47219', name: '기타 식료품 소매업' },
    category: { code: 'G', name: '도매 및 소매업' },
  },
  openedOn: '2020-09-01',
  businessRegisteredOn: '2020-09-03',
  corporationEstablishedOn: null,
  registration: { status: 'ACTIVE', closedOn: null, checkedAt: '2025-01-02T03:04:05.000Z' },
  taxation: { type: 'SIMPLIFIED_TAX_INVOICE_ISSUER' },
});

// Mock scenario 3: a business the service never checked, so `address`, `registration` and
// `taxation` are null.
export const SANDBOX_NEVER_CHECKED: BusinessProfile = Object.freeze<BusinessProfile>({
  businessRegistrationNumber: SANDBOX_BUSINESS_NUMBERS.neverChecked,
  corporateRegistrationNumber: null,
  businessKind: 'INDIVIDUAL',
  commercialSalesNumber: null,
  organizationName: '미확인상사',
  organizationNameEnglish: null,
  formerOrganizationNames: [],
  representativeName: '이영희',
  address: null,
  contact: { phone: null, email: null, websites: [] },
  industry: { businessType: null, businessItem: null, standardIndustry: null, category: null },
  openedOn: null,
  businessRegisteredOn: null,
  corporationEstablishedOn: null,
  registration: null,
  taxation: null,
});

const ANSWERS: Readonly<Record<string, ProfileLookupResult>> = Object.freeze({
  [SANDBOX_BUSINESS_NUMBERS.corporation]: { kind: 'found', profile: SANDBOX_CORPORATION },
  [SANDBOX_BUSINESS_NUMBERS.soleProprietor]: { kind: 'found', profile: SANDBOX_SOLE_PROPRIETOR },
  [SANDBOX_BUSINESS_NUMBERS.neverChecked]: { kind: 'found', profile: SANDBOX_NEVER_CHECKED },
  [SANDBOX_BUSINESS_NUMBERS.notFound]: { kind: 'notFound' },
  [SANDBOX_BUSINESS_NUMBERS.lookupUnavailable]: { kind: 'unavailable' },
  [SANDBOX_BUSINESS_NUMBERS.serviceUnavailable]: { kind: 'communicationFailed' },
});

// True for the numbers a test key may retrieve (normalised, ten digits).
export function isSandboxBusinessNumber(businessRegistrationNumber: string): boolean {
  return Object.hasOwn(ANSWERS, businessRegistrationNumber);
}

export function createSandboxProfiles(): ProfileSource {
  return {
    async findProfile(businessRegistrationNumber) {
      // A number off the list never gets here (the service answers 400 first); notFound keeps
      // the adapter total anyway.
      return ANSWERS[businessRegistrationNumber] ?? { kind: 'notFound' };
    },
  };
}
