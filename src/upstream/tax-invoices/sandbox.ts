import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import {
  AuthorityUnreachable,
  checkSignedDocument,
  type AuthorityChecks,
} from './authority-checks.ts';
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
// The document itself is checked on the authority's own thread (authority-checks.ts,
// signed-document-check.ts); a failure of that thread is an authority that cannot be reached.
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

const rejected = (message: string): TransmissionResult =>
  ({ kind: 'rejected', code: 'TRANSMISSION_REJECTED', message });

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

async function answer(request: TransmissionRequest, checkDocument: AuthorityChecks['check']):
  Promise<TransmissionResult> {
  if (request.recipientNumber === SANDBOX_RECIPIENTS.rejected) {
    return rejected('The tax authority rejected the invoice (sandbox test recipient).');
  }
  if (request.recipientNumber === SANDBOX_RECIPIENTS.unavailable) return TRANSMISSION_UNAVAILABLE;
  const { approvalNumber } = request;
  if (approvalNumber === null) {
    return { kind: 'accepted', ntsTransactionId: sandboxApprovalNumber(request) };
  }
  let defect: string | null;
  try {
    defect = await checkDocument({ signedDocument: request.signedDocument,
      supplierNumber: request.supplierNumber, brokerNumber: request.brokerNumber,
      approvalNumber }) ?? await signerIdentityDefect(request);
  } catch (error) {
    if (error instanceof AuthorityUnreachable) return TRANSMISSION_UNAVAILABLE;
    throw error;
  }
  if (defect !== null) {
    return rejected(`The tax authority rejected the signed document: ${defect}`);
  }
  return { kind: 'accepted', ntsTransactionId: approvalNumber };
}

// `authority`: where signed documents are checked; the process's authority thread unless a test
// names another.
export function createSandboxTransmitter(options: { latencyMs: number;
  authority?: AuthorityChecks }): InvoiceTransmitter {
  const checkDocument = options.authority?.check ?? checkSignedDocument;
  return {
    async transmit(request, signal) {
      if (options.latencyMs > 0) {
        try {
          await sleep(options.latencyMs, undefined, { signal });
        } catch {
          return TRANSMISSION_UNAVAILABLE;
        }
      }
      return answer(request, checkDocument);
    },
  };
}
