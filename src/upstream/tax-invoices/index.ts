// Transmission of issued tax invoices to the tax authority (docs/tax-invoices.md §
// Transmission). An issued invoice is sent once it has been signed; the answer is the approval
// number (국세청 승인번호, src/domain/approval-number.ts), a rejection, or `unavailable` (any trouble
// reaching the authority), which the caller retries later. Two implementations exist: sandbox.ts
// for test keys and gateway.ts for live keys.
//
// A transmission is idempotent by issuance key: sending the same document again, after a crash
// between the call and recording its answer, gives the same approval number.

export type TransmissionRequest = {
  issuanceKey: string;
  // `YYYY-MM-DD`, the invoice's write date; approval numbers start with it.
  writeDate: string;
  supplierNumber: string;
  recipientNumber: string;
  // The trustee (수탁자) that issued and signed a trustee document (위수탁) in the supplier's
  // name, its BrokerParty; the signer's R proves this number then, not the supplier's. Null (or
  // absent, for callers that build a request of their own) for every other document.
  brokerNumber?: string | null;
  // The approval number etax gave at issuance, the signed XML's IssueID; null for a document
  // issued before the standard XML, which the authority numbers itself.
  approvalNumber: string | null;
  // The signed standard XML (its enveloped signature holds the certificate), or for a document
  // issued before it the canonical JSON that was signed; the signature value (base64) and the
  // signing certificate (DER, base64).
  signedDocument: string;
  signature: string;
  certificate: string;
  // The random value R (base64) of the signer's key file, which the authority checks the
  // certificate's VID against the supplier's registration number with; it goes beside the signed
  // document in the package sent to the authority. Null when the signing certificate has been
  // replaced or removed since the document was signed (docs/tax-invoices.md § The
  // signer's R-value).
  // etax always sends it; it is optional for callers that build a request of their own.
  signerRandomNumber?: string | null;
};

export type TransmissionResult =
  | { kind: 'accepted'; ntsTransactionId: string }
  | { kind: 'rejected'; code: string; message: string }
  | { kind: 'unavailable' };

export type InvoiceTransmitter = {
  transmit(request: TransmissionRequest, signal: AbortSignal): Promise<TransmissionResult>;
};

export const TRANSMISSION_UNAVAILABLE: TransmissionResult = Object.freeze({ kind: 'unavailable' });

export { APPROVAL_NUMBER_PATTERN } from '../../domain/approval-number.ts';
