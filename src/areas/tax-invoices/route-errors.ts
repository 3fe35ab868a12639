import { UNAUTHENTICATED } from '../../platform/errors.ts';

// The error responses the tax-invoice routes declare (docs/tax-invoices.md § Errors), shared by
// the issuance, amendment and reverse-issuance routes.

// What every tax-invoice route can answer.
export const COMMON_ERRORS = [UNAUTHENTICATED, 'INVALID_REQUEST', 'RATE_LIMITED',
  'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'] as const;

// What every request that makes documents can answer besides COMMON_ERRORS.
export const ACCEPTANCE_ERRORS = ['INVALID_BUSINESS_REGISTRATION_NUMBER', 'PAYMENT_REQUIRED',
  'NOT_FOUND', 'AVAILABLE_POINTS_INSUFFICIENT', 'ISSUER_DEACTIVATED',
  'CERTIFICATE_NOT_REGISTERED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const;
