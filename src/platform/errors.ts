// Every error code the API can return, grouped by status. A code comes into existence only
// here; docs/errors.md and openapi/openapi.json are checked against this table by a test. Each
// has its message in English and in Korean (`messageKo`), answered to a request that prefers
// Korean (Accept-Language, src/platform/language.ts).
export const ERRORS = {
  // 400: the request itself is wrong.
  INVALID_REQUEST: {
    status: 400,
    message: 'The request is invalid.',
    messageKo: '요청이 올바르지 않습니다.',
  },
  INVALID_BUSINESS_REGISTRATION_NUMBER: {
    status: 400,
    message: 'The business registration number checksum does not match.',
    messageKo: '사업자등록번호의 검증번호가 맞지 않습니다.',
  },
  // Designed by etax where the spec is silent: the single bank holder lookup's answer for a
  // virtual account with a fixed deposit amount (the bulk lookup's item code).
  AMOUNT_REQUIRED: {
    status: 400,
    message: 'The account is a virtual account with a fixed deposit amount. Look the holder up ' +
      'again after the total payment amount is entered.',
    messageKo: '입금 금액이 정해진 가상계좌입니다. 결제 총액을 입력한 뒤 예금주를 다시 조회하세요.',
  },
  // Designed by etax: a webhook endpoint URL that is not https (live keys) or that targets an
  // address inside a private network (docs/webhooks.md § Allowed URLs).
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    message: 'The webhook URL is not allowed.',
    messageKo: '허용되지 않는 웹훅 URL입니다.',
  },
  // Designed by etax: certificate verification (docs/certificate-verification.md).
  INVALID_FILE: {
    status: 400,
    message: 'The file is damaged or over the limits of what is read.',
    messageKo: '파일이 손상되었거나 읽을 수 있는 한도를 넘었습니다.',
  },
  // 402/409: points.
  PAYMENT_REQUIRED: {
    status: 402,
    message: 'The point balance is too low for this call.',
    messageKo: '포인트 잔액이 이 호출에 부족합니다.',
  },
  AVAILABLE_POINTS_INSUFFICIENT: {
    status: 409,
    message: 'Points are temporarily reserved by other requests in progress. Retry shortly.',
    messageKo: '진행 중인 다른 요청이 포인트를 일시적으로 예약하고 있습니다. 잠시 후 다시 시도하세요.',
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    message: 'This client reference id was already used with different content or type.',
    messageKo: '이 클라이언트 참조 ID는 이미 다른 내용이나 유형의 요청에 사용되었습니다.',
  },
  // Designed by etax: webhook endpoints (docs/webhooks.md).
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    message: 'This account has the most webhook endpoints allowed in this environment.',
    messageKo: '이 환경에서 계정에 허용된 웹훅 엔드포인트 수를 모두 사용했습니다.',
  },
  WEBHOOK_ENDPOINT_DISABLED: {
    status: 409,
    message: 'The webhook endpoint is disabled. Enable it before sending events to it.',
    messageKo: '웹훅 엔드포인트가 비활성화되어 있습니다. 이벤트를 보내려면 먼저 활성화하세요.',
  },
  // 403: designed by etax: the account's plan is below the operation's (docs/plans.md).
  PLAN_UPGRADE_REQUIRED: {
    status: 403,
    message: 'This operation needs a higher plan. Upgrade the account\'s plan to use it.',
    messageKo: '이 작업은 더 높은 요금제가 필요합니다. 계정의 요금제를 변경한 뒤 사용하세요.',
  },
  // 403: designed by etax: in the sandbox, a HOMETAX connection is made only to a business the
  // account issues for, so that no test account reads another's invoices through a number it
  // merely typed (docs/connections.md § Sandbox).
  SANDBOX_CONNECTION_NOT_ALLOWED: {
    status: 403,
    message: 'Test keys connect the tax portal only for a business the account issues for: ' +
      'register it as an issuer with a test key first (POST /v1/issuers).',
    messageKo: '테스트 키로는 계정이 발행하는 사업자의 홈택스만 연결할 수 있습니다. 먼저 테스트 키로 ' +
      '사업자를 발행자로 등록하세요(POST /v1/issuers).',
  },
  // 404: nothing there.
  NOT_FOUND: {
    status: 404,
    message: 'The requested resource does not exist.',
    messageKo: '요청한 리소스가 없습니다.',
  },
  // Designed by etax where the spec is silent: issuers and their certificates (docs/issuers.md).
  CERTIFICATE_HISTORY_NOT_FOUND: {
    status: 404,
    message: 'The issuer has no certificate registration history yet.',
    messageKo: '발행자의 인증서 등록 이력이 아직 없습니다.',
  },
  ISSUER_ALREADY_REGISTERED: {
    status: 409,
    message: 'An active issuer with this business registration number and tax registration ' +
      'id already exists.',
    messageKo: '이 사업자등록번호와 종사업장번호로 활성 발행자가 이미 있습니다.',
  },
  ISSUER_DEACTIVATED: {
    status: 409,
    message: 'The issuer is deactivated.',
    messageKo: '비활성화된 발행자입니다.',
  },
  CERTIFICATE_NOT_REGISTERED: {
    status: 409,
    message: 'The issuer has no registered joint certificate.',
    messageKo: '발행자에게 등록된 공동인증서가 없습니다.',
  },
  // 403: designed by etax: the account requires an approver for drafts, and an API key asked
  // to issue one; it is submitted for approval instead (docs/drafts.md § Approval).
  DRAFT_APPROVAL_REQUIRED: {
    status: 403,
    message: 'The account requires approval before a draft is issued. The draft was submitted ' +
      'and waits for an approver in the dashboard.',
    messageKo: '이 계정은 임시저장 문서를 발행하기 전에 승인이 필요합니다. 문서가 승인 요청되었으며 ' +
      '대시보드에서 승인자를 기다립니다.',
  },
  // Designed by etax where the spec is silent: drafts (docs/drafts.md).
  DRAFT_NOT_EDITABLE: {
    status: 409,
    message: 'The draft cannot be changed now: it waits for approval or was issued.',
    messageKo: '임시저장 문서를 지금 변경할 수 없습니다. 승인 대기 중이거나 이미 발행되었습니다.',
  },
  DRAFT_ALREADY_ISSUED: {
    status: 409,
    message: 'The draft was already issued.',
    messageKo: '이미 발행된 임시저장 문서입니다.',
  },
  DRAFT_CHANGED: {
    status: 409,
    message: 'The draft changed while it was being issued. Read it and issue it again.',
    messageKo: '발행하는 동안 임시저장 문서가 변경되었습니다. 다시 조회한 뒤 발행하세요.',
  },
  DRAFT_NOT_SUBMITTED: {
    status: 409,
    message: 'The draft does not wait for approval.',
    messageKo: '승인을 기다리는 임시저장 문서가 아닙니다.',
  },
  // Designed by etax where the spec is silent: tax invoices (docs/tax-invoices.md).
  TAX_INVOICE_NOT_CANCELABLE: {
    status: 409,
    message: 'The tax invoice can no longer be canceled.',
    messageKo: '세금계산서를 더 이상 취소할 수 없습니다.',
  },
  TAX_INVOICE_NOT_TRANSMITTED: {
    status: 409,
    message: 'The tax invoice is not transmitted yet; it has no approval number to mail.',
    messageKo: '세금계산서가 아직 전송되지 않아 메일로 보낼 승인번호가 없습니다.',
  },
  TAX_INVOICE_NOT_SIGNED: {
    status: 409,
    message: 'The tax invoice has no signed XML: it is not issued.',
    messageKo: '세금계산서에 서명된 XML이 없습니다. 발행되지 않은 문서입니다.',
  },
  // Designed by etax: a tax invoice's attachments (docs/tax-invoices.md § Attachments).
  TAX_INVOICE_ATTACHMENTS_LOCKED: {
    status: 409,
    message: 'The tax invoice\'s attachments no longer change: it is transmitting, ' +
      'transmitted or ended.',
    messageKo: '세금계산서가 전송 중이거나 전송되었거나 종료되어 첨부파일을 바꿀 수 없습니다.',
  },
  TAX_INVOICE_ATTACHMENT_LIMIT: {
    status: 409,
    message: 'A tax invoice carries at most 5 attachments.',
    messageKo: '세금계산서 한 건에는 첨부파일을 5개까지 붙일 수 있습니다.',
  },
  // Designed by etax: amendments (docs/tax-invoice-amendments.md).
  TAX_INVOICE_NOT_AMENDABLE: {
    status: 409,
    message: 'The tax invoice cannot be amended this way.',
    messageKo: '이 방식으로는 세금계산서를 수정할 수 없습니다.',
  },
  TAX_INVOICE_ALREADY_AMENDED: {
    status: 409,
    message: 'The tax invoice was already amended in a way that rules out this amendment.',
    messageKo: '이 세금계산서는 이미 수정되어 이 수정 발행을 할 수 없습니다.',
  },
  // Designed by etax where the spec is silent: reverse issuance (docs/reverse-issuance.md). Spec
  // §4.4 defines two errors for canceling a request that is already approved, canceled or
  // issued; these are they, and approval, refusal and approval links answer them too.
  ISSUE_REQUEST_ALREADY_APPROVED: {
    status: 409,
    message: 'The reverse issuance request was already approved; it is issued or being issued.',
    messageKo: '역발행 요청이 이미 승인되어 발행되었거나 발행 중입니다.',
  },
  ISSUE_REQUEST_ALREADY_CANCELED: {
    status: 409,
    message: 'The reverse issuance request was already canceled or refused.',
    messageKo: '역발행 요청이 이미 취소되었거나 거부되었습니다.',
  },
  ISSUE_DEADLINE_PASSED: {
    status: 409,
    message: 'The issue deadline of the tax invoice has passed; it can no longer be issued.',
    messageKo: '세금계산서의 발급 기한이 지나 더 이상 발행할 수 없습니다.',
  },
  // Designed by etax: revenue and expense books (docs/revenue-expense.md).
  CONNECTION_REQUIRED: {
    status: 409,
    message: 'Connect the tax portal (Hometax) before requesting a collection.',
    messageKo: '수집을 요청하기 전에 홈택스를 연결하세요.',
  },
  // Designed by etax where the spec is silent: the supplier's registration status at the tax
  // authority does not let it issue the document (docs/tax-invoices.md § Supplier eligibility).
  SUPPLIER_CLOSED: {
    status: 409,
    message: 'The supplier\'s business is closed; it cannot issue tax invoices.',
    messageKo: '공급자가 폐업한 사업자라 세금계산서를 발행할 수 없습니다.',
  },
  SUPPLIER_TAX_EXEMPT: {
    status: 409,
    message: 'The supplier is a tax-exempt business; it issues only tax-exempt invoices.',
    messageKo: '공급자가 면세사업자라 계산서만 발행할 수 있습니다.',
  },
  SUPPLIER_NOT_TAX_INVOICE_ISSUER: {
    status: 409,
    message: 'The supplier is a simplified taxpayer that cannot issue tax invoices.',
    messageKo: '공급자가 세금계산서를 발급할 수 없는 간이과세자입니다.',
  },
  // Designed by etax: the counterparty book (docs/counterparties.md).
  COUNTERPARTY_ALREADY_EXISTS: {
    status: 409,
    message: 'The counterparty book already has this business registration number (and ' +
      'sub-place number).',
    messageKo: '거래처 목록에 이미 같은 사업자등록번호(와 종사업장번호)가 있습니다.',
  },
  COUNTERPARTY_CLOSED: {
    status: 409,
    message: 'The counterparty\'s business is closed; tax invoices are not issued to it by its ' +
      'counterparty id.',
    messageKo: '거래처가 폐업한 사업자라 거래처로 세금계산서를 발행할 수 없습니다.',
  },
  COUNTERPARTY_IMPORT_EMPTY: {
    status: 409,
    message: 'The import has no valid row to add.',
    messageKo: '가져오기에 추가할 올바른 행이 없습니다.',
  },
  // Designed by etax where the spec is silent: cash receipts (docs/cash-receipts.md).
  CASH_RECEIPT_NOT_CANCELABLE: {
    status: 409,
    message: 'Only an issued cash receipt can be canceled.',
    messageKo: '발행된 현금영수증만 취소할 수 있습니다.',
  },
  CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING: {
    status: 409,
    message: 'The cancellation exceeds what remains of the cash receipt.',
    messageKo: '취소 금액이 현금영수증의 남은 금액을 넘습니다.',
  },
  // Designed by etax where the spec is silent: document issuance (docs/documents.md).
  INVALID_CORPORATE_REGISTRATION_NUMBER: {
    status: 400,
    message: 'The corporate registration number check digit does not match.',
    messageKo: '법인등록번호의 검증번호가 맞지 않습니다.',
  },
  CORPORATION_TYPE_NOT_SUPPORTED: {
    status: 400,
    message: 'Registry copies are not issued for this kind of corporation.',
    messageKo: '이 종류의 법인은 등기사항증명서를 발급하지 않습니다.',
  },
  OWNER_BUSINESS_NOT_REGISTERED: {
    status: 409,
    message: 'This account has no owner business in this environment: set it with ' +
      'PUT /v1/account/business.',
    messageKo: '이 환경에 계정의 소유 사업자가 없습니다. PUT /v1/account/business로 설정하세요.',
  },
  // Designed by etax: a fact certificate (휴업/폐업사실증명) of a business the tax authority
  // reports in another state (docs/documents.md § Types and options).
  DOCUMENT_NOT_APPLICABLE: {
    status: 409,
    message: 'The tax authority reports the owner business in a state this document does not ' +
      'certify.',
    messageKo: '국세청에 등록된 사업자 상태로는 이 증명서를 발급할 수 없습니다.',
  },
  DOCUMENT_NOT_ISSUED: {
    status: 409,
    message: 'The document is not issued (yet): its PDF exists once its status is ISSUED.',
    messageKo: '문서가 (아직) 발급되지 않았습니다. 상태가 ISSUED가 되면 PDF가 생깁니다.',
  },
  // Designed by etax where the spec is silent.
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is larger than the limit.',
    messageKo: '요청 본문이 한도보다 큽니다.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be sent as Content-Type: application/json.',
    messageKo: '요청 본문은 Content-Type: application/json으로 보내야 합니다.',
  },
  // Designed by etax: certificate verification takes PDF, PNG and JPEG files.
  UNSUPPORTED_FILE_TYPE: {
    status: 415,
    message: 'The file must be a PDF, PNG or JPEG.',
    messageKo: '파일은 PDF, PNG 또는 JPEG여야 합니다.',
  },
  // Designed by etax: a tax invoice's attachments are PDF, PNG, JPEG, XLSX or DOCX files.
  ATTACHMENT_TYPE_NOT_ALLOWED: {
    status: 415,
    message: 'The attachment must be a PDF, PNG, JPEG, XLSX or DOCX file, named for its kind.',
    messageKo: '첨부파일은 PDF, PNG, JPEG, XLSX 또는 DOCX 파일이어야 하며 파일 이름의 확장자가 ' +
      '내용과 맞아야 합니다.',
  },
  // 429: too fast.
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests. Retry after the Retry-After seconds.',
    messageKo: '요청이 너무 많습니다. Retry-After의 초만큼 기다린 뒤 다시 시도하세요.',
  },
  // 5xx: our side or upstream.
  INTERNAL_SERVER_ERROR: {
    status: 500,
    message: 'An internal error occurred.',
    messageKo: '내부 오류가 발생했습니다.',
  },
  LOOKUP_UNAVAILABLE: {
    status: 503,
    message: 'Retrieval is unavailable. Retry later.',
    messageKo: '지금은 조회할 수 없습니다. 잠시 후 다시 시도하세요.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'A temporary internal communication error occurred. Retry later.',
    messageKo: '일시적인 내부 통신 오류가 발생했습니다. 잠시 후 다시 시도하세요.',
  },
} as const satisfies Record<string, { status: number; message: string; messageKo: string }>;

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
