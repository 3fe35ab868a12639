import {
  BODY_ERRORS,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';

// The error responses the tax-invoice routes declare (docs/errors.md § Codes), shared by
// the issuance, retrieval, amendment and reverse-issuance routes.

// What every tax-invoice route can answer: they all take a path parameter, a query or a body.
export const COMMON_ERRORS = [...PLATFORM_ERRORS, 'INVALID_REQUEST'] as const;

// The supplier's registration status refuses it, or cannot be learned (when configured to
// refuse then): acceptance/supplier-eligibility.ts.
export const SUPPLIER_ELIGIBILITY_ERRORS = ['SUPPLIER_CLOSED', 'SUPPLIER_TAX_EXEMPT',
  'SUPPLIER_NOT_TAX_INVOICE_ISSUER', 'LOOKUP_UNAVAILABLE'] as const;

// What every request that makes documents can answer besides COMMON_ERRORS. The documents are
// checked after the rate limit, and so is the reference id.
export const ACCEPTANCE_ERRORS = [...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
  'INVALID_BUSINESS_REGISTRATION_NUMBER', 'PAYMENT_REQUIRED', 'NOT_FOUND',
  'AVAILABLE_POINTS_INSUFFICIENT', 'ISSUER_DEACTIVATED', 'CERTIFICATE_NOT_REGISTERED',
  ...SUPPLIER_ELIGIBILITY_ERRORS] as const;
