// Every error code the API can return, grouped by status. A code comes into existence only
// here; docs/errors.md and openapi/openapi.json are checked against this table by a test.
export const ERRORS = {
  // 400: the request itself is wrong.
  INVALID_REQUEST: { status: 400, message: 'The request is invalid.' },
  INVALID_BUSINESS_REGISTRATION_NUMBER: {
    status: 400,
    message: 'The business registration number checksum does not match.',
  },
  // Designed by etax where the spec is silent: the single bank holder lookup's answer for a
  // virtual account with a fixed deposit amount (the bulk lookup's item code).
  AMOUNT_REQUIRED: {
    status: 400,
    message: 'The account is a virtual account with a fixed deposit amount. Look the holder up ' +
      'again after the total payment amount is entered.',
  },
  // Designed by etax: a webhook endpoint URL that is not https (live keys) or that targets an
  // address inside a private network (docs/webhooks.md § Allowed URLs).
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    message: 'The webhook URL is not allowed.',
  },
  // Designed by etax: certificate verification (docs/certificate-verification.md).
  INVALID_FILE: {
    status: 400,
    message: 'The file is damaged or over the limits of what is read.',
  },
  // 402/409: points.
  PAYMENT_REQUIRED: { status: 402, message: 'The point balance is too low for this call.' },
  AVAILABLE_POINTS_INSUFFICIENT: {
    status: 409,
    message: 'Points are temporarily reserved by other requests in progress. Retry shortly.',
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    message: 'This client reference id was already used with different content or type.',
  },
  // Designed by etax: webhook endpoints (docs/webhooks.md).
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    message: 'This account has the most webhook endpoints allowed in this environment.',
  },
  WEBHOOK_ENDPOINT_DISABLED: {
    status: 409,
    message: 'The webhook endpoint is disabled. Enable it before sending events to it.',
  },
  // 403: designed by etax: the account's plan is below the operation's (docs/plans.md).
  PLAN_UPGRADE_REQUIRED: {
    status: 403,
    message: 'This operation needs a higher plan. Upgrade the account\'s plan to use it.',
  },
  // 404: nothing there.
  NOT_FOUND: { status: 404, message: 'The requested resource does not exist.' },
  // Designed by etax where the spec is silent: issuers and their certificates (docs/issuers.md).
  CERTIFICATE_HISTORY_NOT_FOUND: {
    status: 404,
    message: 'The issuer has no certificate registration history yet.',
  },
  ISSUER_ALREADY_REGISTERED: {
    status: 409,
    message: 'An active issuer with this business registration number and tax registration ' +
      'id already exists.',
  },
  ISSUER_DEACTIVATED: { status: 409, message: 'The issuer is deactivated.' },
  CERTIFICATE_NOT_REGISTERED: {
    status: 409,
    message: 'The issuer has no registered joint certificate.',
  },
  // Designed by etax where the spec is silent: tax invoices (docs/tax-invoices.md).
  TAX_INVOICE_NOT_CANCELABLE: {
    status: 409,
    message: 'The tax invoice can no longer be canceled.',
  },
  TAX_INVOICE_NOT_TRANSMITTED: {
    status: 409,
    message: 'The tax invoice is not transmitted yet; it has no approval number to mail.',
  },
  TAX_INVOICE_NOT_SIGNED: {
    status: 409,
    message: 'The tax invoice has no signed XML: it is not issued.',
  },
  // Designed by etax: amendments (docs/tax-invoice-amendments.md).
  TAX_INVOICE_NOT_AMENDABLE: {
    status: 409,
    message: 'The tax invoice cannot be amended this way.',
  },
  TAX_INVOICE_ALREADY_AMENDED: {
    status: 409,
    message: 'The tax invoice was already amended in a way that rules out this amendment.',
  },
  // Designed by etax where the spec is silent: reverse issuance (docs/reverse-issuance.md). Spec
  // §4.4 defines two errors for canceling a request that is already approved, canceled or
  // issued; these are they, and approval, refusal and approval links answer them too.
  ISSUE_REQUEST_ALREADY_APPROVED: {
    status: 409,
    message: 'The reverse issuance request was already approved; it is issued or being issued.',
  },
  ISSUE_REQUEST_ALREADY_CANCELED: {
    status: 409,
    message: 'The reverse issuance request was already canceled or refused.',
  },
  ISSUE_DEADLINE_PASSED: {
    status: 409,
    message: 'The issue deadline of the tax invoice has passed; it can no longer be issued.',
  },
  // Designed by etax: revenue and expense books (docs/revenue-expense.md).
  CONNECTION_REQUIRED: {
    status: 409,
    message: 'Connect the tax portal (Hometax) before requesting a collection.',
  },
  // Designed by etax where the spec is silent: the supplier's registration status at the tax
  // authority does not let it issue the document (docs/tax-invoices.md § Supplier eligibility).
  SUPPLIER_CLOSED: {
    status: 409,
    message: 'The supplier\'s business is closed; it cannot issue tax invoices.',
  },
  SUPPLIER_TAX_EXEMPT: {
    status: 409,
    message: 'The supplier is a tax-exempt business; it issues only tax-exempt invoices.',
  },
  SUPPLIER_NOT_TAX_INVOICE_ISSUER: {
    status: 409,
    message: 'The supplier is a simplified taxpayer that cannot issue tax invoices.',
  },
  // Designed by etax where the spec is silent: cash receipts (docs/cash-receipts.md).
  CASH_RECEIPT_NOT_CANCELABLE: {
    status: 409,
    message: 'Only an issued cash receipt can be canceled.',
  },
  CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING: {
    status: 409,
    message: 'The cancellation exceeds what remains of the cash receipt.',
  },
  // Designed by etax where the spec is silent: document issuance (docs/documents.md).
  INVALID_CORPORATE_REGISTRATION_NUMBER: {
    status: 400,
    message: 'The corporate registration number check digit does not match.',
  },
  CORPORATION_TYPE_NOT_SUPPORTED: {
    status: 400,
    message: 'Registry copies are not issued for this kind of corporation.',
  },
  OWNER_BUSINESS_NOT_REGISTERED: {
    status: 409,
    message: 'This account has no owner business in this environment: set it with ' +
      'PUT /v1/account/business.',
  },
  DOCUMENT_NOT_ISSUED: {
    status: 409,
    message: 'The document is not issued (yet): its PDF exists once its status is ISSUED.',
  },
  // Designed by etax where the spec is silent.
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the limit.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be sent as Content-Type: application/json.',
  },
  // Designed by etax: certificate verification takes PDF, PNG and JPEG files.
  UNSUPPORTED_FILE_TYPE: {
    status: 415,
    message: 'The file must be a PDF, PNG or JPEG.',
  },
  // 429: too fast.
  RATE_LIMITED: { status: 429, message: 'Too many requests. Retry after the Retry-After seconds.' },
  // 5xx: our side or upstream.
  INTERNAL_SERVER_ERROR: { status: 500, message: 'An internal error occurred.' },
  LOOKUP_UNAVAILABLE: { status: 503, message: 'Retrieval is unavailable. Retry later.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'A temporary internal communication error occurred. Retry later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number; // Looked up, never passed in: code and status cannot disagree.
  constructor(code: ErrorCode, message: string = ERRORS[code].message) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

// The body of every error response but 401 (docs/errors.md § The error body); each operation's
// schema of it lists its own codes (src/platform/error-responses.ts).
export type ErrorBody = { code: ErrorCode; message: string; traceId: string };
