import type { Logger } from 'pino';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import type { IssuersService } from '../../issuers/index.ts';
import type {
  InvoiceTransmitter,
  TransmissionRequest,
} from '../../../upstream/tax-invoices/index.ts';
import { endWithoutIssuance, recordTransmitted, type LifecycleDeps } from '../lifecycle.ts';
import * as store from '../store.ts';
import { findXmlDocumentsByKeys, type XmlDocumentRow } from '../xml/store.ts';
import { endSteps, postpone, type LeasedStep } from './steps-store.ts';
import { canonicalDocument } from './signing.ts';

// The transmission step (docs/tax-invoices.md § Processing): ISSUED → TRANSMITTING (committed
// before the call, so a cancel can no longer win), then the call, then → TRANSMITTED or FAILED,
// or the step put off to its next attempt. A crash after the call leaves TRANSMITTING; the step,
// taken up again once its lease runs out, calls again, and the authority answers a repeated
// document with the same approval number.

export type TransmissionJobDeps = LifecycleDeps & {
  db: Db;
  transmitterFor(environment: Environment): InvoiceTransmitter | null;
  issuers: Pick<IssuersService, 'signingRandomNumber'>;
  transmissionTimeoutMs: number;
  now: () => Date;
  log: Logger;
  // Queues the recipient's mail of each document just transmitted, in the same transaction.
  mailTransmitted?(tx: Tx, transmitted: Array<store.TaxInvoiceRow & { ntsTransactionId: string }>):
    Promise<void>;
};

// Waits before each further attempt when the authority cannot be reached; after the last the
// document fails with TRANSMISSION_UNAVAILABLE. About 10 hours in all, inside the authority's
// next-day transmission rule.
export const TRANSMISSION_RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 3 * 3_600, 6 * 3_600];

// The signed standard XML and its approval number; a document issued before the XML existed
// has none and goes with the canonical JSON it was signed as. The signer's R comes from the
// issuers area, which keeps it sealed with the key.
async function transmissionRequest(
  deps: TransmissionJobDeps,
  row: store.TaxInvoiceRow,
  xml: XmlDocumentRow | undefined,
): Promise<TransmissionRequest> {
  // Kept with the XML; a document signed before that was so has it on its own row.
  const certificate = xml?.signingCertificate ?? row.signingCertificate!;
  const randomNumber = await deps.issuers.signingRandomNumber(store.scopeOfRow(row),
    row.supplierKey, Buffer.from(certificate, 'base64'));
  return {
    issuanceKey: row.issuanceKey,
    writeDate: row.writeDate,
    supplierNumber: row.invoice.supplier.identificationNumber,
    recipientNumber: row.counterpartNumber,
    brokerNumber: row.invoice.broker?.identificationNumber ?? null,
    approvalNumber: xml?.approvalNumber ?? null,
    signedDocument: xml?.signedXml ?? canonicalDocument(row),
    signature: row.signature!,
    certificate,
    signerRandomNumber: randomNumber?.toString('base64') ?? null,
  };
}

// `work` with a signal aborted after `timeoutMs` (a TimeoutError, as AbortSignal.timeout's), whose
// timer ends with the work: AbortSignal.timeout's would run out later for every document
// transmitted, and build the error it aborts with each time.
async function withTimeout<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>):
  Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(
    'The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

type TransmissionAttempt = {
  step: LeasedStep;
  row: store.TaxInvoiceRow;
  result: Awaited<ReturnType<InvoiceTransmitter['transmit']>>;
};

// ISSUED → TRANSMITTING for the documents of one batch (committed before the calls), then one
// call per document, side by side, each aborted at the gateway timeout, then the outcomes. A
// document an earlier attempt of its step left TRANSMITTING is called again; one that moved on
// meanwhile (canceled in its cancel window) loses its step.
export async function transmitDocuments(deps: TransmissionJobDeps, steps: LeasedStep[]) {
  const issuanceKeys = steps.map((step) => step.issuanceKey);
  await deps.db.transaction((tx) => store.transitionMany(tx, { from: ['ISSUED'],
    to: 'TRANSMITTING', actor: 'JOB',
    items: issuanceKeys.map((issuanceKey) => ({ issuanceKey })) }));
  const transmitting = new Map((await store.findInvoicesByKeys(deps.db, issuanceKeys))
    .filter((row) => row.status === 'TRANSMITTING').map((row) => [row.issuanceKey, row]));
  await endSteps(deps.db, issuanceKeys.filter((issuanceKey) => !transmitting.has(issuanceKey)));
  const xmlDocuments = new Map((await findXmlDocumentsByKeys(deps.db, [...transmitting.keys()]))
    .map((xml) => [xml.issuanceKey, xml]));
  const calls = await Promise.allSettled(steps.filter((step) =>
    transmitting.has(step.issuanceKey)).map(async (step): Promise<TransmissionAttempt> => {
      const row = transmitting.get(step.issuanceKey)!;
      const transmitter = deps.transmitterFor(store.scopeOfRow(row).environment);
      const result = transmitter === null ? { kind: 'unavailable' as const }
        : await withTimeout(deps.transmissionTimeoutMs, async (signal) => transmitter.transmit(
          await transmissionRequest(deps, row, xmlDocuments.get(row.issuanceKey)), signal));
      return { step, row, result };
    }));
  await settleTransmissions(deps, calls.flatMap((call) =>
    (call.status === 'fulfilled' ? [call.value] : [])));
  const failure = calls.find((call) => call.status === 'rejected');
  if (failure) throw failure.reason;
}

// Approval numbers are recorded together, in one transaction; a rejection or an unreachable
// authority, rare, each in a transaction of its own.
async function settleTransmissions(deps: TransmissionJobDeps, attempts: TransmissionAttempt[]) {
  const accepted = attempts.flatMap(({ row, result }) => (result.kind === 'accepted'
    ? [{ row, ntsTransactionId: result.ntsTransactionId, transmittedAt: deps.now() }] : []));
  if (accepted.length > 0) {
    await deps.db.transaction((tx) => recordTransmitted(deps, tx, accepted,
      async (transmitted) => deps.mailTransmitted?.(tx, transmitted
        .map(({ row, ntsTransactionId }) => ({ ...row, ntsTransactionId })))));
  }
  for (const { step, result } of attempts) {
    if (result.kind !== 'accepted') await settleFailedTransmission(deps, step, result);
    deps.log.info({ issuanceKey: step.issuanceKey, attemptNumber: step.attemptNumber,
      result: result.kind }, 'tax invoice transmission attempt');
  }
}

async function settleFailedTransmission(
  deps: TransmissionJobDeps,
  step: LeasedStep,
  result: Exclude<TransmissionAttempt['result'], { kind: 'accepted' }>,
): Promise<void> {
  const { issuanceKey } = step;
  await deps.db.transaction(async (tx) => {
    if (result.kind === 'rejected') {
      await endWithoutIssuance(deps, tx, { issuanceKey, from: ['TRANSMITTING'], to: 'FAILED',
        actor: 'JOB', cause: { code: result.code, message: result.message } });
      return;
    }
    const delay = TRANSMISSION_RETRY_DELAYS_SECONDS[step.attemptNumber - 1];
    if (delay === undefined) {
      await endWithoutIssuance(deps, tx, { issuanceKey, from: ['TRANSMITTING'], to: 'FAILED',
        actor: 'JOB', cause: { code: 'TRANSMISSION_UNAVAILABLE',
          message: 'The tax authority could not be reached; the invoice was not transmitted.' } });
      return;
    }
    await postpone(tx, { issuanceKey, step: 'TRANSMISSION', attemptNumber: step.attemptNumber + 1,
      dueAt: new Date(deps.now().getTime() + delay * 1_000) });
  });
}
