import {
  BODY_ERRORS,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';

// The error responses the cash-receipt routes declare (docs/cash-receipts.md § Errors), shared by
// the issuance, retrieval and bulk routes.

export const COMMON_ERRORS = [...PLATFORM_ERRORS, 'INVALID_REQUEST'] as const;
// What issuance and cancellation answer besides COMMON_ERRORS; the body and the reference id are
// checked after the rate limit.
export const ACCEPTANCE_ERRORS = [...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'PAYMENT_REQUIRED',
  'NOT_FOUND', 'AVAILABLE_POINTS_INSUFFICIENT', 'IDEMPOTENCY_CONFLICT',
  'SERVICE_UNAVAILABLE'] as const;

// What issuance answers besides the platform's errors: the issue route's, and a draft's issue
// (src/areas/drafts/).
export const ISSUE_ERRORS = [...COMMON_ERRORS, ...ACCEPTANCE_ERRORS,
  'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_DEACTIVATED'] as const;
