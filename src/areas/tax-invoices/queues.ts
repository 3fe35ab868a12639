// The job queues of the tax-invoices area (docs/tax-invoices.md § Processing). Job data names
// only the document; everything else is read from it when the job runs.

// Signs a PENDING or APPROVED document with the issuer's certificate: → ISSUED.
export const ISSUANCE_QUEUE = 'tax-invoices-issuance';
export type IssuanceJobData = { issuanceKey: string };

// Sends an ISSUED document to the tax authority: → TRANSMITTING → TRANSMITTED or FAILED.
export const TRANSMISSION_QUEUE = 'tax-invoices-transmission';
export type TransmissionJobData = { issuanceKey: string; attemptNumber: number };
