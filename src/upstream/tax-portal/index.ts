// The tax authority's web portal (Hometax) as the revenue and expense books see it: a login that
// proves a connection works, and the collection of a business's sales and purchase tax invoices
// for whole months. Upstream trouble of any kind is the `unavailable` result, never an exception.
// Two implementations exist: sandbox.ts for test keys and gateway.ts for live keys (an operator
// gateway, TAX_PORTAL_GATEWAY_URL).

export type PortalCredentials =
  // The portal user id and password of the business.
  | { method: 'PASSWORD'; businessRegistrationNumber: string; userId: string; password: string }
  // The joint certificate an issuer of the same account registered (docs/connections.md).
  | { method: 'CERTIFICATE'; businessRegistrationNumber: string; issuerId: string };

export type PortalLoginResult =
  | { kind: 'connected'; businessName: string }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'unavailable' };

export type PortalTaxType = 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE';
type PortalInvoiceStatus = 'ISSUED' | 'TRANSMITTED';

type PortalParty = { businessRegistrationNumber: string; name: string };

// One tax invoice as the portal lists it, from the connected business's side.
export type PortalInvoice = {
  direction: 'SALES' | 'PURCHASE';
  // 국세청 승인번호: 16 digits and a serial of 8 digits or lower-case letters
  // (src/domain/approval-number.ts).
  approvalNumber: string;
  writeDate: string;
  issueDate: string;
  supplier: PortalParty;
  recipient: PortalParty;
  supplyCost: number;
  tax: number;
  totalAmount: number;
  taxType: PortalTaxType;
  // Amendment reason (1 to 6) and the original's approval number, for an amended invoice.
  amendment: { reason: number; originalApprovalNumber: string } | null;
  status: PortalInvoiceStatus;
  // Issued after the issue deadline (the 10th of the next month).
  late: boolean;
};

export type CollectRequest = {
  credentials: PortalCredentials;
  // `YYYY-MM`, oldest first.
  months: string[];
  // How many collections of this connection finished before this one: the sandbox changes some
  // invoices on a later collection, so that the order of change matters.
  previousCollections: number;
};

export type CollectResult =
  | { kind: 'collected'; invoices: PortalInvoice[] }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'unavailable' };

export type TaxPortal = {
  login(credentials: PortalCredentials, signal: AbortSignal): Promise<PortalLoginResult>;
  collect(request: CollectRequest, signal: AbortSignal): Promise<CollectResult>;
};

export const PORTAL_UNAVAILABLE = Object.freeze({ kind: 'unavailable' as const });
