import { setImmediate } from 'node:timers/promises';
import type { Db } from '../../../platform/db/connect.ts';
import { isApiError } from '../../../platform/errors.ts';
import type { IssuersService } from '../../issuers/index.ts';
import { endWithoutIssuance, type LifecycleDeps } from '../lifecycle.ts';
import * as store from '../store.ts';
import { signTaxInvoiceXml, type ApprovalNumbering } from '../xml/signed-document.ts';
import { allocateApprovalCounters, insertXmlDocuments } from '../xml/store.ts';
import { endSteps, moveToTransmission } from './steps-store.ts';

// The issuance step (docs/tax-invoices.md § Processing): PENDING | APPROVED → ISSUED for the
// documents of one batch. Each is given its approval number (the issue date, the issuing system's
// code, a serial from one database counter taken for the whole batch in one round trip) and its
// standard XML signed under its issuer's certificate (../xml/), then all are moved, their signed
// XML kept and their next step made transmission, due after the cancel window
// (TAX_INVOICE_TRANSMISSION_DELAY_SECONDS), in one transaction. The signing certificate is kept
// with the XML (../xml/tables.ts). A document whose issuer can no longer sign fails instead, and
// gets its points back; one that moved on meanwhile (canceled) loses its step.

export type IssuanceJobDeps = LifecycleDeps & {
  db: Db;
  issuers: Pick<IssuersService, 'requireIssuerCertificate'>;
  transmissionDelaySeconds: number;
  // The issuing system's code registered with the tax authority (TAX_INVOICE_NTS_SYSTEM_CODE).
  ntsSystemCode: string;
  now: () => Date;
};

const CERTIFICATE_CAUSES: Record<string, { code: string; message: string }> = {
  CERTIFICATE_NOT_REGISTERED: { code: 'NOT_FOUND_CERTIFICATE',
    message: 'The supplier has no valid registered joint certificate.' },
  ISSUER_DEACTIVATED: { code: 'ISSUER_DEACTIVATED', message: 'The supplier is deactivated.' },
  NOT_FOUND: { code: 'ISSUER_NOT_FOUND', message: 'The supplier no longer exists.' },
};

const ISSUABLE = ['PENDING', 'APPROVED'] as const;

export async function issueDocuments(deps: IssuanceJobDeps, issuanceKeys: string[]) {
  const found = await store.findInvoicesByKeys(deps.db, issuanceKeys);
  const rows = found.filter((row) => (ISSUABLE as readonly string[]).includes(row.status));
  // A document canceled or issued since its step was due has nothing left for this step.
  const issuable = new Set(rows.map((row) => row.issuanceKey));
  await endSteps(deps.db, issuanceKeys.filter((issuanceKey) => !issuable.has(issuanceKey)));
  // The issue date is part of the approval number, so it is fixed before anything is signed.
  // A counter value left unused (a document that fails, or a batch that ends before its commit)
  // is a gap in the serials, which numbers may have.
  const issuedAt = deps.now();
  const counters = await allocateApprovalCounters(deps.db, rows.length);
  const signed = (await Promise.all(rows.map((row, index) => signOrFail(deps, row, issuedAt,
    { systemCode: deps.ntsSystemCode, counter: counters[index]! }))))
    .filter((document) => document !== null);
  if (signed.length === 0) return;
  const transmissionDueAt = new Date(deps.now().getTime() +
    deps.transmissionDelaySeconds * 1_000);
  await deps.db.transaction(async (tx) => {
    const issued = await store.transitionMany(tx, {
      from: ISSUABLE, to: 'ISSUED', actor: 'JOB',
      items: signed.map(({ row, document }) => ({ issuanceKey: row.issuanceKey,
        changes: { signedDigest: document.digest, signature: document.signatureValue,
          issuedAt } })),
    });
    const documents = new Map(signed.map(({ row, document }) => [row.issuanceKey, document]));
    await insertXmlDocuments(tx, issued.map((issuanceKey) => {
      const { approvalNumber, xml, certificate } = documents.get(issuanceKey)!;
      return { issuanceKey, approvalNumber, signedXml: xml, signingCertificate: certificate };
    }));
    await moveToTransmission(tx, issued, transmissionDueAt);
    const issuedKeys = new Set(issued);
    await endSteps(tx, signed.map(({ row }) => row.issuanceKey)
      .filter((issuanceKey) => !issuedKeys.has(issuanceKey)));
  });
}

// The document signed, or null when its issuer can no longer sign: the document then fails.
async function signOrFail(deps: IssuanceJobDeps, row: store.TaxInvoiceRow, issuedAt: Date,
  numbering: ApprovalNumbering) {
  let signer;
  try {
    ({ signer } = await deps.issuers.requireIssuerCertificate(store.scopeOfRow(row),
      row.supplierKey, row.issuanceType === 'STANDARD' ? 'STANDARD' : 'REVERSE_APPROVAL'));
  } catch (error) {
    const cause = isApiError(error) ? CERTIFICATE_CAUSES[error.code] : undefined;
    if (cause === undefined) throw error;
    await deps.db.transaction((tx) => endWithoutIssuance(deps, tx, {
      issuanceKey: row.issuanceKey, from: ISSUABLE, to: 'FAILED', actor: 'JOB', cause }));
    return null;
  }
  // Building a document's XML takes a fraction of a millisecond of CPU; a batch's documents take
  // turns with requests instead of holding the event loop for all of them at once. Their RSA
  // signatures run on the thread pool meanwhile.
  await setImmediate();
  return { row, document: await signTaxInvoiceXml(row, signer!, issuedAt, numbering) };
}
