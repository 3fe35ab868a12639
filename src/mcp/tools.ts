import type { EtaxClient } from '@etax/sdk';
import { DEFAULT_PRICES, type PriceRow } from '../platform/operations.ts';
import type { HttpMethod } from './operation-schemas.ts';

// The tools of the MCP server (docs/mcp.md § Tools), each over one operation of the public API.
// A read tool calls its operation. A guarded tool (it issues, cancels, amends or spends points)
// is two tools: `preview_<name>` answers what it would do and a confirmation token, and
// `<name>` runs it with that token (server.ts).

type ToolCall = { etax: EtaxClient; arguments: Record<string, unknown>;
  referenceId: string | null };

export type ReadTool = {
  kind: 'read';
  name: string;
  title: string;
  description: string;
  method: HttpMethod;
  path: string;
  // The answer is a PDF: a link to it, or its bytes.
  pdf?: 'link' | 'download';
};

export type GuardedTool = {
  kind: 'guarded';
  name: string;
  title: string;
  description: string;
  method: HttpMethod;
  path: string;
  // Undoes or replaces something (cancel, amend), rather than only adding.
  destructive: boolean;
  // What the preview shows: the API's own validation of the same request (the path of the
  // operation that runs the action's checks short of its effect, with the same parameters,
  // headers and body), or, for an action without one, the current state of what it changes
  // and the most it could charge.
  preview: { validate: string } | { read?: (call: ToolCall) => Promise<unknown>;
    price?: (args: Record<string, unknown>) => { row: PriceRow; unitsMax: number } };
};

export type Tool = ReadTool | GuardedTool;

// GET a path of the API through the SDK; the error comes back as an EtaxError.
export async function readPath(etax: EtaxClient, path: string,
  params: Record<string, unknown> = {}): Promise<unknown> {
  const { data, error, response } = await (etax.GET as unknown as (path: string,
    init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(path,
    { params });
  if (!response.ok) {
    const { EtaxError } = await import('@etax/sdk');
    throw EtaxError.fromResponse(response, error);
  }
  return data;
}

const arrayLength = (value: unknown) => (Array.isArray(value) ? value.length : 1);
const bodyOf = (args: Record<string, unknown>) => (args.body ?? {}) as Record<string, unknown>;

const current = (path: (args: Record<string, unknown>) => string) =>
  async (call: ToolCall) => ({ current: await readPath(call.etax, path(call.arguments)) });

const taxInvoice = (args: Record<string, unknown>) =>
  `/v1/taxInvoices/${encodeURIComponent(String(args.issuanceKey))}`;

// A file input as a preview shows it: its name and size, not its bytes again.
const fileOf = (value: unknown) => {
  const file = value as { fileName?: unknown; contentBase64?: unknown } | undefined;
  return { fileName: file?.fileName ?? null,
    bytes: Buffer.from(String(file?.contentBase64 ?? ''), 'base64').length };
};

const AMENDMENTS = [
  ['termination', 'a contract terminated (계약의 해제): the original amount negated'],
  ['changeSupplyCost', 'a change of the supply cost (공급가액 변동): the difference'],
  ['doubleIssuance', 'an invoice issued twice by mistake (착오에 의한 이중발급): negated'],
  ['entryCorrection', 'an entry made in error (기재사항 착오·정정): a negation and a correction'],
  ['returnedGoods', 'goods returned (환입): the returned part negated'],
  ['localLetterOfCredit', 'a local letter of credit opened after issuance (내국신용장 사후개설)'],
] as const;

const READS: ReadTool[] = [
  { kind: 'read', name: 'list_issuers', method: 'get', path: '/v1/issuers',
    title: 'List issuers',
    description: 'The businesses registered to issue with this key, each with its ' +
      '`supplierKey` (what the issuing tools take) and whether it is active.' },
  { kind: 'read', name: 'get_issuer', method: 'get', path: '/v1/issuers/{issuerId}',
    title: 'Get an issuer', description: 'One issuer by its issuerId.' },
  { kind: 'read', name: 'get_issuer_certificate', method: 'get',
    path: '/v1/issuers/{issuerId}/certificates', title: 'Issuer certificate',
    description: 'The joint certificate registered for an issuer: serial number, validity, ' +
      'and whether it can sign. A tax invoice needs a valid one.' },
  { kind: 'read', name: 'get_issuer_certificate_history', method: 'get',
    path: '/v1/issuers/{issuerId}/certificates/latestHistory',
    title: 'Certificate registration status',
    description: 'The latest record of an issuer\'s certificate registration (REGISTERED, or ' +
      'why it failed).' },
  { kind: 'read', name: 'get_tax_invoice', method: 'get', path: '/v1/taxInvoices/{issuanceKey}',
    title: 'Get a tax invoice',
    description: 'A tax invoice in any state: PENDING, ISSUED, TRANSMITTING, TRANSMITTED (the ' +
      'tax authority has it, with its approval number), CANCELED or FAILED (with why).' },
  { kind: 'read', name: 'get_tax_invoice_status', method: 'get',
    path: '/v1/taxInvoices/issue/status', title: 'Tax invoice status by reference id',
    description: 'The status of the tax invoice request sent with a ' +
      'Service-Client-Reference-Id (the `referenceId` an issuing tool answered): how to learn ' +
      'what happened to an action whose answer was lost.' },
  { kind: 'read', name: 'list_tax_invoices', method: 'get', path: '/v1/taxInvoices',
    title: 'List tax invoices',
    description: 'Tax invoices in the order they were made, filtered by write date, status, ' +
      'recipient and supplier; page with `cursor`.' },
  { kind: 'read', name: 'get_tax_invoice_pdf_link', method: 'get',
    path: '/v1/taxInvoices/{issuanceKey}/pdf', pdf: 'link', title: 'Tax invoice PDF link',
    description: 'A link to the tax invoice\'s PDF (the API address; it needs the API key to ' +
      'open).' },
  { kind: 'read', name: 'get_cash_receipt', method: 'get',
    path: '/v1/cashReceipts/{issuanceKey}', title: 'Get a cash receipt',
    description: 'A cash receipt or cancellation: ACCEPTED, ISSUED (approved, with its ' +
      'approval number), TRANSMITTED or FAILED; amounts canceled and remaining.' },
  { kind: 'read', name: 'list_cash_receipts', method: 'get', path: '/v1/cashReceipts',
    title: 'List cash receipts', description: 'Cash receipts and cancellations, filtered by ' +
      'trade date, status and kind; page with `cursor`.' },
  { kind: 'read', name: 'get_document', method: 'get', path: '/v1/documents/{issuanceKey}',
    title: 'Get a document request', description: 'A document request: ACCEPTED, PROCESSING, ' +
      'ISSUED (its PDF is ready) or FAILED.' },
  { kind: 'read', name: 'download_document', method: 'get',
    path: '/v1/documents/{issuanceKey}/pdf', pdf: 'download', title: 'Download a document',
    description: 'The original PDF of an ISSUED document, as the issuing authority made it.' },
  { kind: 'read', name: 'list_revenue_expense_tax_invoices', method: 'get',
    path: '/v1/revenueExpenses/taxInvoices', title: 'Revenue and expense books',
    description: 'Sales and purchase tax invoices of the account (issued here and collected ' +
      'from the tax portal), in order of change. Standard plan or higher.' },
  { kind: 'read', name: 'list_bank_accounts', method: 'get', path: '/v1/bankAccounts',
    title: 'Connected bank accounts', description: 'The bank accounts connected in the ' +
      'dashboard. Standard plan or higher.' },
  { kind: 'read', name: 'list_bank_transactions', method: 'get',
    path: '/v1/bankAccounts/{bankAccountId}/transactions', title: 'Bank transactions',
    description: 'Deposits and withdrawals of a connected bank account, with matching hints ' +
      'for issued sales invoices. Standard plan or higher.' },
  { kind: 'read', name: 'get_points_balance', method: 'get', path: '/v1/points',
    title: 'Points balance', description: 'The point balance of the key\'s environment: ' +
      'posted, reserved by requests in progress, and available.' },
  { kind: 'read', name: 'list_points_ledger', method: 'get', path: '/v1/points/ledger',
    title: 'Points ledger', description: 'Every change of the balance, newest first: grants, ' +
      'charges, captures and refunds, each with the operation and request that made it.' },
  { kind: 'read', name: 'list_webhook_deliveries', method: 'get',
    path: '/v1/webhookEndpoints/{endpointId}/deliveries', title: 'Webhook deliveries',
    description: 'The delivery attempts of a webhook endpoint: event, status code, when, and ' +
      'whether it will be retried.' },
  { kind: 'read', name: 'list_webhook_endpoints', method: 'get', path: '/v1/webhookEndpoints',
    title: 'Webhook endpoints', description: 'The webhook endpoints of the key\'s ' +
      'environment, whose deliveries list_webhook_deliveries reads.' },
];

const GUARDED: GuardedTool[] = [
  { kind: 'guarded', name: 'issue_tax_invoice', method: 'post', path: '/v1/taxInvoices/issue',
    destructive: false, preview: { validate: '/v1/taxInvoices:validate' },
    title: 'Issue a tax invoice',
    description: 'Issues a tax invoice (세금계산서) for the supplier `supplierKey` names; it is ' +
      'signed and transmitted to the tax authority, which cannot be taken back (only ' +
      'canceled before transmission, or amended). Charges the taxInvoices.issue price.' },
  { kind: 'guarded', name: 'cancel_tax_invoice', method: 'post',
    path: '/v1/taxInvoices/{issuanceKey}/cancel', destructive: true,
    preview: { read: current(taxInvoice) }, title: 'Cancel a tax invoice',
    description: 'Withdraws a PENDING or ISSUED tax invoice before it is transmitted, and ' +
      'refunds its points. A transmitted one is amended instead.' },
  ...AMENDMENTS.map(([reason, what]): GuardedTool => ({ kind: 'guarded',
    name: `amend_tax_invoice_${reason.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`,
    method: 'post', path: `/v1/taxInvoices/{issuanceKey}/amend/${reason}`, destructive: true,
    preview: { validate: `/v1/taxInvoices/{issuanceKey}/amendments/${reason}:validate` },
    title: `Amend a tax invoice: ${reason}`,
    description: `Issues an amended tax invoice (수정세금계산서) of a TRANSMITTED one for ${what}. ` +
      'Transmitted to the tax authority; charged per document made.' })),
  { kind: 'guarded', name: 'request_reverse_issuance', method: 'post',
    path: '/v1/taxInvoices/issueRequest', destructive: false,
    preview: { validate: '/v1/taxInvoices/issueRequests:validate' },
    title: 'Request reverse issuance',
    description: 'Asks the supplier to issue a tax invoice the recipient drafted (역발행): ' +
      'the supplier approves or refuses by mail. Charges the taxInvoices.issue price now, ' +
      'refunded if the supplier refuses or the request is canceled.' },
  { kind: 'guarded', name: 'cancel_reverse_issuance_request', method: 'put',
    path: '/v1/taxInvoices/{issuanceKey}/issueRequest/cancel', destructive: true,
    preview: { read: current(taxInvoice) }, title: 'Cancel a reverse issuance request',
    description: 'Withdraws a REQUESTED reverse issuance request before the supplier decides.' },
  { kind: 'guarded', name: 'issue_cash_receipt', method: 'post', path: '/v1/cashReceipts/issue',
    destructive: false, preview: { validate: '/v1/cashReceipts:validate' },
    title: 'Issue a cash receipt',
    description: 'Issues a cash receipt (현금영수증) for the merchant `supplierKey` names; the ' +
      'tax authority approves it. Charges the cashReceipts.issue price.' },
  { kind: 'guarded', name: 'cancel_cash_receipt', method: 'post',
    path: '/v1/cashReceipts/{issuanceKey}/cancel', destructive: true,
    preview: { validate: '/v1/cashReceipts/{issuanceKey}/cancellations:validate' },
    title: 'Cancel a cash receipt',
    description: 'Issues a cancellation receipt of an ISSUED or TRANSMITTED cash receipt: ' +
      'what remains without amounts, or the part given.' },
  { kind: 'guarded', name: 'request_document', method: 'post', path: '/v1/documents/issue',
    destructive: false, preview: { validate: '/v1/documents:validate' },
    title: 'Request a document',
    description: 'Requests a tax-authority certificate of the owner business or a certified ' +
      'corporate registry copy; issued asynchronously. Charged 500, 1,000 or 1,500 points by ' +
      'type when issued.' },
  { kind: 'guarded', name: 'get_business_registration_status', method: 'get',
    path: '/v1/businessRegistrationStatuses/{businessRegistrationNumber}', destructive: false,
    preview: { price: () => ({ row: 'businesses.registrationStatus.inquire', unitsMax: 1 }) },
    title: 'Business registration status (one number)',
    description: 'The tax authority\'s registration status (ACTIVE, SUSPENDED, CLOSED, ' +
      'NOT_REGISTERED) and tax type of one business registration number, checked now. ' +
      'Charged when the status is returned; see lookup_registration_statuses for several.' },
  { kind: 'guarded', name: 'lookup_registration_statuses', method: 'post',
    path: '/v1/businessRegistrationStatuses:bulkInquire', destructive: false,
    preview: { price: (args) => ({ row: 'businesses.registrationStatus.inquire',
      unitsMax: arrayLength(bodyOf(args).businessRegistrationNumbers) }) },
    title: 'Registration statuses (up to 100)',
    description: 'The tax authority\'s registration status and tax type of 1 to 100 business ' +
      'registration numbers, checked now. Charged per number returned.' },
  { kind: 'guarded', name: 'retrieve_business_profile', method: 'get',
    path: '/v1/businessProfiles/{businessRegistrationNumber}', destructive: false,
    preview: { price: () => ({ row: 'businesses.profiles.retrieve', unitsMax: 1 }) },
    title: 'Business profile', description: 'The stored profile of a business: names, ' +
      'representative, address, contact, industry, registration and taxation. Charged per ' +
      'successful retrieval.' },
  { kind: 'guarded', name: 'search_business_profiles', method: 'get',
    path: '/v1/businessProfiles', destructive: false,
    preview: { price: (args) => ({ row: 'businesses.profiles.search',
      unitsMax: Number(args.limit ?? 10) }) },
    title: 'Search business profiles', description: 'Businesses by name, representative ' +
      'name or number. Charged per result returned.' },
  { kind: 'guarded', name: 'lookup_bank_account_holders', method: 'post',
    path: '/v1/bankAccountHolders:bulkInquire', destructive: false,
    preview: { price: (args) => ({ row: 'bank.holders.inquire',
      unitsMax: arrayLength(bodyOf(args).accounts) }) },
    title: 'Bank account holders', description: 'The holder names of 1 to 100 bank ' +
      'accounts. Charged per account whose holder is found.' },
  { kind: 'guarded', name: 'verify_business_registration_certificate', method: 'post',
    path: '/v1/businessRegistrationCertificates:verify', destructive: false,
    preview: { read: async (call) => ({ file: fileOf(call.arguments.file) }),
      price: () => ({ row: 'businesses.certificates.verify', unitsMax: 1 }) },
    title: 'Verify a business registration certificate',
    description: 'Reads a business registration certificate (사업자등록증: the PDF the tax ' +
      'portal gives, a scan or a photo; PDF, PNG or JPEG) given as `file` { fileName, ' +
      'contentBase64 }, and asks the tax authority whether what it says is true. Charged ' +
      'when the verdict is MATCHED or NOT_MATCHED; a file that cannot be read costs nothing.' },
];

export const TOOLS: readonly Tool[] = [...READS, ...GUARDED];

// The most a guarded call could charge at the default prices (an operator may change prices:
// the validation endpoints answer the server's own).
export function defaultPriceOf(tool: GuardedTool, args: Record<string, unknown>) {
  if (!('price' in tool.preview) || tool.preview.price === undefined) return null;
  const { row, unitsMax } = tool.preview.price(args);
  return { operation: row, pointsMax: DEFAULT_PRICES[row] * unitsMax,
    note: 'At the default price list; the server\'s operator may have changed it.' };
}
