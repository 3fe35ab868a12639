import { createHash } from 'node:crypto';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import {
  elementText,
  findElement,
  parseXmlDocument,
  verifyParsedXmlDocument,
} from '../../domain/xml-signature.ts';
import {
  TRANSMISSION_UNAVAILABLE,
  type InvoiceTransmitter,
  type TransmissionRequest,
  type TransmissionResult,
} from './index.ts';

// The tax authority of test keys. A signed standard XML document is checked as the authority
// would: its enveloped signature must verify with the certificate in its KeyInfo, its IssueID
// must be the approval number sent with it, its InvoicerParty the supplier and its BrokerParty
// the trustee sent with it (none for a document without one), and the signer's R-value sent
// beside it must prove the signer's number (the trustee's of a trustee document, the supplier's
// of any other) with the certificate's VID; it is then
// accepted under that approval number, or rejected (TRANSMISSION_REJECTED) naming what is wrong.
// A document issued before the standard XML (no approval number) is accepted with a number made
// from the write date and a hash of the issuance key. Either way a repeated transmission gets the
// same number. Documented recipient numbers (docs/sandbox.md § Tax invoices) make transmission
// fail.

export const SANDBOX_RECIPIENTS = {
  // The authority rejects the invoice: the document fails with TRANSMISSION_REJECTED.
  rejected: '9900000000001',
  // The authority cannot be reached, at every attempt: the document fails with
  // TRANSMISSION_UNAVAILABLE once the retries are spent.
  unavailable: '9900000000002',
} as const;

// The middle eight digits of an approval number name the issuing system; 41 is an ASP.
const ISSUING_SYSTEM = '41';

export function sandboxApprovalNumber(request: Pick<TransmissionRequest,
  'issuanceKey' | 'writeDate'>): string {
  const digest = createHash('sha256').update(request.issuanceKey).digest();
  const serial = (digest.readBigUInt64BE(0) % 10n ** 14n).toString().padStart(14, '0');
  return `${request.writeDate.replaceAll('-', '')}${ISSUING_SYSTEM}${serial}`;
}

const TAX_INVOICE_NAMESPACE =
  'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';

const rejected = (message: string): TransmissionResult =>
  ({ kind: 'rejected', code: 'TRANSMISSION_REJECTED', message });

// What is wrong with a signed standard XML document, or null when the authority takes it.
export function signedXmlDefect(request: TransmissionRequest & { approvalNumber: string }):
  string | null {
  const root = parseXmlDocument(request.signedDocument);
  if (root === null) return 'The document is not well-formed XML.';
  const check = verifyParsedXmlDocument(root);
  if (!check.valid) return check.reason;
  if (root.localName !== 'TaxInvoice' || root.namespaceURI !== TAX_INVOICE_NAMESPACE) {
    return 'The document is not a standard TaxInvoice.';
  }
  const issueId = findElement(root, TAX_INVOICE_NAMESPACE, 'IssueID');
  if (issueId === null || elementText(issueId) !== request.approvalNumber) {
    return 'The signed IssueID is not the approval number sent with the document.';
  }
  const invoicer = findElement(root, TAX_INVOICE_NAMESPACE, 'InvoicerParty');
  const invoicerId = invoicer === null ? null
    : findElement(invoicer, TAX_INVOICE_NAMESPACE, 'ID');
  if (invoicerId === null || elementText(invoicerId) !== request.supplierNumber) {
    return 'The signed InvoicerParty is not the supplier.';
  }
  const broker = findElement(root, TAX_INVOICE_NAMESPACE, 'BrokerParty');
  const brokerId = broker === null ? null : findElement(broker, TAX_INVOICE_NAMESPACE, 'ID');
  const brokerNumber = request.brokerNumber ?? null;
  if ((brokerId === null ? null : elementText(brokerId)) !== brokerNumber) {
    return brokerNumber === null ? 'The signed document names a trustee (BrokerParty) that ' +
      'was not sent with it.' : 'The signed BrokerParty is not the trustee sent with it.';
  }
  return null;
}

// Reading a certificate costs more than the rest of the check, and an issuer's documents all
// come with the same certificate and R: the answers are kept for the most recent signers.
const IDENTITY_CHECKS_CACHED_MAX = 1_000;
const identityChecks = new LRUCache<string, boolean>({ max: IDENTITY_CHECKS_CACHED_MAX });

async function provesSupplier(certificate: string, randomNumber: string,
  supplierNumber: string) {
  const key = `${supplierNumber}:${randomNumber}:${certificate}`;
  const cached = identityChecks.get(key);
  if (cached !== undefined) return cached;
  // The certificate parser loads with the first check, not at the start.
  const { checkIdentity, readCertificate } = await import('../../domain/joint-certificate.ts');
  const facts = readCertificate(Buffer.from(certificate, 'base64'));
  const proves = facts !== null &&
    checkIdentity(facts, Buffer.from(randomNumber, 'base64'), supplierNumber) === 'match';
  identityChecks.set(key, proves);
  return proves;
}

// Whether the signer's R, when the request carries one, proves with the certificate's VID that
// the certificate is the supplier's, as the authority checks it; null when it does.
export async function signerIdentityDefect(request: TransmissionRequest):
  Promise<string | null> {
  const { signerRandomNumber } = request;
  if (signerRandomNumber === undefined || signerRandomNumber === null) return null;
  // A trustee document is signed by the trustee, whose number the R must prove.
  const signer = request.brokerNumber ?? request.supplierNumber;
  return await provesSupplier(request.certificate, signerRandomNumber, signer) ? null
    : `The signer's R-value and the certificate's VID do not prove the ${
      request.brokerNumber == null ? 'supplier' : 'trustee'}'s number.`;
}

async function answer(request: TransmissionRequest): Promise<TransmissionResult> {
  if (request.recipientNumber === SANDBOX_RECIPIENTS.rejected) {
    return rejected('The tax authority rejected the invoice (sandbox test recipient).');
  }
  if (request.recipientNumber === SANDBOX_RECIPIENTS.unavailable) return TRANSMISSION_UNAVAILABLE;
  const { approvalNumber } = request;
  if (approvalNumber === null) {
    return { kind: 'accepted', ntsTransactionId: sandboxApprovalNumber(request) };
  }
  const defect = signedXmlDefect({ ...request, approvalNumber }) ??
    await signerIdentityDefect(request);
  if (defect !== null) {
    return rejected(`The tax authority rejected the signed document: ${defect}`);
  }
  return { kind: 'accepted', ntsTransactionId: approvalNumber };
}

export function createSandboxTransmitter(options: { latencyMs: number }): InvoiceTransmitter {
  return {
    async transmit(request, signal) {
      if (options.latencyMs > 0) {
        try {
          await sleep(options.latencyMs, undefined, { signal });
        } catch {
          return TRANSMISSION_UNAVAILABLE;
        }
      } else {
        // Checking a signed document takes a fraction of a millisecond of CPU, and a batch
        // transmits many side by side: each check takes its turn with requests instead of the
        // batch's checks holding the event loop together.
        await setImmediate();
      }
      return answer(request);
    },
  };
}
