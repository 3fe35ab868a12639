// The fields of a business profile as the API returns it (docs/business-profiles.md), sorted,
// so a test can check that a profile has exactly these.
export const PROFILE_KEYS = [
  'businessRegistrationNumber', 'corporateRegistrationNumber', 'businessKind',
  'commercialSalesNumber', 'organizationName', 'organizationNameEnglish',
  'formerOrganizationNames', 'representativeName', 'address', 'contact', 'industry', 'openedOn',
  'businessRegisteredOn', 'corporationEstablishedOn', 'registration', 'taxation',
].sort();
