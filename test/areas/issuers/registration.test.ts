// The registration job's transaction (src/areas/issuers/registration.ts): the staged job
// carries only the upload id; onRegistrationRecorded runs inside the transaction that appends
// each record — it sees the new record through its transaction handle, and when it fails the
// record, the certificate and the upload's deletion roll back with it, so a retried job records
// the attempt once. Deregistration calls it the same way. pg-boss is replaced by a recorder so
// nothing but this test processes the uploads.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistrationRecord } from '../../../src/areas/issuers/registration.ts';
import { createIssuersService, type IssuersService } from '../../../src/areas/issuers/service.ts';
import { createSealingKey } from '../../../src/domain/sealed-box.ts';
import type { Executor } from '../../../src/platform/db/connect.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
  type TestCertificate,
} from './certificate-fixtures.ts';

const PASSWORD = 'Registration-Job-Password';

let app: TestApp;
let good: TestCertificate;
const staged: Array<{ queue: string; data: object }> = [];
type HookCall = { scope: object; record: RegistrationRecord; visibleInTransaction: number };
const hookCalls: HookCall[] = [];
let failNextHook = false;
let issuers: IssuersService;

beforeAll(async () => {
  app = await createTestApp();
  good = await issueCertificate(await createTestCa(),
    { subject: corporateSubject('이택스', '1234567891') });
  issuers = createIssuersService({
    db: app.platform.database.db,
    stage: async (_tx, queue, data) => {
      staged.push({ queue, data });
      return 'job';
    },
    sealing: createSealingKey(randomBytes(32)),
    cursors: app.cursors,
    publicBaseUrl: 'http://localhost',
    log: pino({ level: 'silent' }),
    now: app.platform.outside.now,
    onRegistrationRecorded: async (tx: Executor, scope, record) => {
      const visible = await tx.execute(sql`select count(*)::int as count
        from certificate_registration_history where identifier = ${record.identifier}`);
      hookCalls.push({ scope, record,
        visibleInTransaction: (visible.rows[0] as { count: number }).count });
      if (failNextHook) {
        failNextHook = false;
        throw new Error('hook failed');
      }
    },
  });
});
afterAll(async () => {
  await app?.close();
});

async function newIssuer() {
  const { accountId } = await app.createAccount();
  const scope = { accountId, environment: 'test' as const };
  const issuer = await issuers.createIssuer({ scope, issuer: { identificationNumber:
    '1234567891', organizationName: '이택스', representativeName: '홍길동' } });
  return { scope, issuerId: issuer.issuerId };
}

const upload = (password = PASSWORD) => ({ signCert: good.certificateDer,
  signPri: signPriKey(good.pkcs8, PASSWORD, 'pbes2'), password });

describe('registration job', () => {
  it('stages a job whose data is only the upload id', async () => {
    const { scope, issuerId } = await newIssuer();
    const { identifier } = await issuers.submitCertificate({ scope, issuerId, upload: upload() });
    expect(staged.at(-1)).toEqual({ queue: 'issuers-certificate-registration',
      data: { uploadId: identifier } });
  });

  it('calls the hook inside the recording transaction, for success and failure', async () => {
    const { scope, issuerId } = await newIssuer();
    for (const [password, code] of [[PASSWORD, 'REGISTERED'], ['bad', 'WRONG_PASSWORD']]) {
      const { identifier } = await issuers.submitCertificate({ scope, issuerId,
        upload: upload(password) });
      const record = await issuers.processUpload(identifier);
      expect(record).toMatchObject({ identifier, issuerId, code });
      expect(hookCalls.at(-1)).toEqual({ scope, record, visibleInTransaction: 1 });
    }
  });

  it('rolls the record back with a failing hook; the retry records it once', async () => {
    const { scope, issuerId } = await newIssuer();
    const { identifier } = await issuers.submitCertificate({ scope, issuerId, upload: upload() });
    failNextHook = true;
    await expect(issuers.processUpload(identifier)).rejects.toThrow('hook failed');
    await expect(issuers.latestHistory({ scope, issuerId }))
      .rejects.toMatchObject({ code: 'CERTIFICATE_HISTORY_NOT_FOUND' });
    await expect(issuers.getCertificate({ scope, issuerId }))
      .rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await issuers.processUpload(identifier)).toMatchObject({ code: 'REGISTERED' });
    expect(await issuers.processUpload(identifier)).toBeNull();
    const count = await app.platform.database.db.execute(sql`select count(*)::int as count
      from certificate_registration_history where issuer_id = ${issuerId}`);
    expect((count.rows[0] as { count: number }).count).toBe(1);
  });

  it('calls the hook for a deregistration, inside its transaction', async () => {
    const { scope, issuerId } = await newIssuer();
    const { identifier } = await issuers.submitCertificate({ scope, issuerId, upload: upload() });
    await issuers.processUpload(identifier);
    await issuers.deregisterCertificate({ scope, issuerId });
    expect(hookCalls.at(-1)).toMatchObject({ scope, visibleInTransaction: 1,
      record: { issuerId, code: 'DEREGISTERED', message: 'The certificate was deregistered.' } });
  });
});
