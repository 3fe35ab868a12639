// Where business profiles come from, as profile retrieval sees it. Test keys
// read the sandbox data set (sandbox.ts); live keys read the profile store of the businesses
// area. Either answers with a union result; trouble reaching the source is a result, never an
// exception, so the caller decides the response.

export const REGISTRATION_STATUSES = [
  'ACTIVE',
  'SUSPENDED',
  'CLOSED',
  'NOT_REGISTERED',
  'UNKNOWN',
] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

export const TAX_TYPES = [
  'GENERAL',
  'SIMPLIFIED_RECEIPT_ISSUER',
  'SIMPLIFIED_TAX_INVOICE_ISSUER',
  'SPECIAL_TAXPAYER',
  'TAX_FREE',
  'NONPROFIT',
  'UNIQUE_NUMBER_ORGANIZATION',
] as const;
export type TaxType = (typeof TAX_TYPES)[number];

export const BUSINESS_KINDS = ['INDIVIDUAL', 'CORPORATE'] as const;
export type BusinessKind = (typeof BUSINESS_KINDS)[number];

type Classification = { code: string; name: string };

// The business profile object, exactly as the response carries it: every field is
// present, dates are `YYYY-MM-DD` and `checkedAt` an ISO 8601 UTC date-time.
export type BusinessProfile = {
  businessRegistrationNumber: string;
  corporateRegistrationNumber: string | null;
  businessKind: BusinessKind | null;
  commercialSalesNumber: string | null;
  organizationName: string | null;
  organizationNameEnglish: string | null;
  // Most recently changed first.
  formerOrganizationNames: Array<{ name: string; changedOn: string | null }>;
  representativeName: string | null;
  address: {
    roadAddress: string | null;
    postalCode: string | null;
    sidoCode: string | null;
    sigunguCode: string | null;
  } | null;
  contact: { phone: string | null; email: string | null; websites: string[] };
  industry: {
    businessType: string | null;
    businessItem: string | null;
    standardIndustry: Classification | null;
    category: Classification | null;
  };
  openedOn: string | null;
  businessRegisteredOn: string | null;
  corporationEstablishedOn: string | null;
  registration: {
    status: RegistrationStatus;
    closedOn: string | null;
    checkedAt: string;
  } | null;
  taxation: { type: TaxType } | null;
};

export type ProfileLookupResult =
  | { kind: 'found'; profile: BusinessProfile }
  | { kind: 'notFound' }
  // The profile source cannot answer now: 503 LOOKUP_UNAVAILABLE.
  | { kind: 'unavailable' }
  // Our own services could not talk to each other: 503 SERVICE_UNAVAILABLE.
  | { kind: 'communicationFailed' };

export type ProfileSource = {
  // `businessRegistrationNumber` is ten digits with a valid checksum.
  findProfile(businessRegistrationNumber: string): Promise<ProfileLookupResult>;
};
