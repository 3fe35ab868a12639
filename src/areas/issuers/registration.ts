import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { newId } from '../../domain/ids.ts';
import type { CertificateFacts } from '../../domain/joint-certificate.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import type { JobDefinition, StageJob } from '../../platform/jobs.ts';
import type { CertificateUpload, CheckResult } from './certificate-check.ts';
import { REGISTRATION_CODES, type RegistrationCode } from './registration-codes.ts';
import * as store from './store.ts';
import type { Scope } from '../../platform/scope.ts';

// Recording certificate registration attempts. A direct upload is a job: the request seals the
// uploaded files and password and stages the job in one transaction; the job opens them, checks
// them, and in one transaction stores the certificate (on success), appends the history record,
// deletes the sealed upload and calls onRegistrationRecorded. The job's payload is only the
// upload id. The hosted page checks at once instead (registration-links.ts) and records its
// attempt with the same recordAttempt, so both ways leave the same records and events.

const CERTIFICATE_REGISTRATION_QUEUE = 'issuers-certificate-registration';

export type RegistrationRecord = {
  identifier: string;
  issuerId: string;
  occurredAt: string;
  code: RegistrationCode;
  message: string;
};


// Called inside the transaction that appends each history record (registration success and
// failure, and deregistration), so whatever it writes commits or rolls back with the record.
export type RegistrationRecordedHook = (
  tx: Executor,
  scope: Scope,
  record: RegistrationRecord,
) => Promise<void>;

type RegistrationDeps = {
  db: Db;
  stage: StageJob;
  sealing: SealingKey;
  now: () => Date;
  log: Logger;
  onRegistrationRecorded?: RegistrationRecordedHook;
};

type SealedUpload = { signCert: string; signPri: string; password: string };

// Retries cover a crashed worker or a lost database connection; the work itself is
// deterministic, so a few are enough. A job that runs longer than a minute is stuck.
const REGISTRATION_RETRY_LIMIT = 5;
const REGISTRATION_RETRY_DELAY_SECONDS = 2;
const REGISTRATION_EXPIRE_SECONDS = 60;
// Results must show within 30 seconds of the upload: poll every second, several jobs at a time.
const REGISTRATION_POLLING_INTERVAL_SECONDS = 1;
const REGISTRATION_BATCH_SIZE = 5;

async function appendRecord(
  deps: RegistrationDeps,
  tx: Executor,
  scope: Scope,
  input: { identifier: string; issuerId: string; code: RegistrationCode; occurredAt: Date },
): Promise<RegistrationRecord> {
  const message = REGISTRATION_CODES[input.code];
  await store.insertHistory(tx, { ...input, ...scope, message });
  const record = {
    identifier: input.identifier,
    issuerId: input.issuerId,
    occurredAt: input.occurredAt.toISOString(),
    code: input.code,
    message,
  };
  await deps.onRegistrationRecorded?.(tx, scope, record);
  return record;
}

// Seals the upload and stages its job in the caller's transaction; returns the identifier the
// history record will carry.
async function stageUpload(
  deps: RegistrationDeps,
  tx: Executor,
  scope: Scope,
  issuerId: string,
  upload: CertificateUpload,
): Promise<string> {
  const identifier = newId('certificateRegistration');
  const payload: SealedUpload = {
    signCert: upload.signCert.toString('base64'),
    signPri: upload.signPri.toString('base64'),
    password: upload.password,
  };
  const sealedUpload = deps.sealing.seal(Buffer.from(JSON.stringify(payload)), identifier);
  await store.insertUpload(tx, { id: identifier, issuerId, ...scope, sealedUpload });
  await deps.stage(tx, CERTIFICATE_REGISTRATION_QUEUE, { uploadId: identifier });
  return identifier;
}

function openUpload(sealing: SealingKey, row: store.UploadRow): CertificateUpload {
  const payload = JSON.parse(sealing.open(row.sealedUpload, row.id).toString()) as SealedUpload;
  return {
    signCert: Buffer.from(payload.signCert, 'base64'),
    signPri: Buffer.from(payload.signPri, 'base64'),
    password: payload.password,
  };
}

// One checked attempt: its identifier, the certificate it sent and the check's result.
export type CheckedAttempt = {
  identifier: string;
  issuerId: string;
  signCert: Buffer;
  occurredAt: Date;
  result: CheckResult;
};

function certificateRow(
  deps: RegistrationDeps,
  input: CheckedAttempt,
  result: { facts: CertificateFacts; pkcs8: Buffer },
): store.IssuerCertificateRow {
  const { facts } = result;
  return {
    issuerId: input.issuerId,
    registrationIdentifier: input.identifier,
    certificateBase64: input.signCert.toString('base64'),
    sealedPrivateKey: deps.sealing.seal(result.pkcs8, input.issuerId),
    subject: facts.subject,
    issuerName: facts.issuerName,
    serialNumber: facts.serialNumber,
    notBefore: facts.notBefore,
    notAfter: facts.notAfter,
    keyUsages: facts.keyUsages,
    policies: facts.policies,
    registeredAt: input.occurredAt,
  };
}

// In the caller's transaction: stores the certificate when the check passed, replacing any
// previous one, and appends the attempt's record.
async function recordAttempt(
  deps: RegistrationDeps,
  tx: Executor,
  scope: Scope,
  attempt: CheckedAttempt,
): Promise<RegistrationRecord> {
  const { result } = attempt;
  if (result.code === 'REGISTERED') {
    await store.upsertCertificate(tx, certificateRow(deps, attempt, result));
  }
  return appendRecord(deps, tx, scope, { identifier: attempt.identifier,
    issuerId: attempt.issuerId, code: result.code, occurredAt: attempt.occurredAt });
}

// Processes one staged upload. An upload already processed (a retried job) is left alone.
async function processUpload(
  deps: RegistrationDeps,
  uploadId: string,
): Promise<RegistrationRecord | null> {
  const { db } = deps;
  const upload = await store.findUpload(db, uploadId);
  if (upload === null) return null;
  const scope = { accountId: upload.accountId, environment: upload.environment as Environment };
  const issuer = await store.findIssuer(db, scope, upload.issuerId);
  if (issuer === null) throw new Error(`upload ${uploadId} has no issuer`);
  const occurredAt = deps.now();
  const opened = openUpload(deps.sealing, upload);
  const { checkCertificateUpload } = await import('./certificate-check.ts');
  const result = checkCertificateUpload(opened, issuer,
    { now: occurredAt, environment: scope.environment });
  return db.transaction(async (tx) => {
    if (!(await store.deleteUpload(tx, uploadId))) return null;
    return recordAttempt(deps, tx, scope, { identifier: uploadId, issuerId: issuer.id,
      signCert: opened.signCert, occurredAt, result });
  });
}

// Removes the current certificate and records it; false when none is registered.
async function deregister(
  deps: RegistrationDeps,
  scope: Scope,
  issuerId: string,
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    if (!(await store.deleteCertificate(tx, issuerId))) return false;
    const identifier = newId('certificateRegistration');
    const input = { identifier, issuerId, code: 'DEREGISTERED' as const, occurredAt: deps.now() };
    await appendRecord(deps, tx, scope, input);
    return true;
  });
}

function registrationJobDefinition(deps: RegistrationDeps): JobDefinition<{ uploadId: string }> {
  return {
    queue: CERTIFICATE_REGISTRATION_QUEUE,
    options: {
      retryLimit: REGISTRATION_RETRY_LIMIT,
      retryDelay: REGISTRATION_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      expireInSeconds: REGISTRATION_EXPIRE_SECONDS,
    },
    batchSize: REGISTRATION_BATCH_SIZE,
    pollingIntervalSeconds: REGISTRATION_POLLING_INTERVAL_SECONDS,
    async work(jobs: PgBoss.Job<{ uploadId: string }>[]) {
      for (const job of jobs) {
        const record = await processUpload(deps, job.data.uploadId);
        if (record) {
          deps.log.info({ identifier: record.identifier, code: record.code },
            'certificate registration recorded');
        }
      }
    },
  };
}

export function createCertificateRegistration(deps: RegistrationDeps) {
  return {
    stageUpload: (tx: Executor, scope: Scope, issuerId: string,
      upload: CertificateUpload) => stageUpload(deps, tx, scope, issuerId, upload),
    processUpload: (uploadId: string) => processUpload(deps, uploadId),
    recordAttempt: (tx: Executor, scope: Scope, attempt: CheckedAttempt) =>
      recordAttempt(deps, tx, scope, attempt),
    deregister: (scope: Scope, issuerId: string) => deregister(deps, scope, issuerId),
    jobDefinition: registrationJobDefinition(deps),
  };
}

export type CertificateRegistration = ReturnType<typeof createCertificateRegistration>;
