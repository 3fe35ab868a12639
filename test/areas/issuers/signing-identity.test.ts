// The identity check at signing time (src/areas/issuers/signing.ts): a registered certificate
// signs only when its VID, recomputed with the R sealed in its key, proves the issuer's number,
// so a registration made before etax checked the VID (a certificate without one, or a key
// without R) signs nothing until it is registered again. And the R a transmission carries is
// the signing certificate's: none once the certificate was replaced.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssuersService, type IssuersService } from '../../../src/areas/issuers/service.ts';
import { issuerCertificates } from '../../../src/areas/issuers/tables.ts';
import { createSealingKey } from '../../../src/domain/sealed-box.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  corporateSubject,
  createCaWithCertificate,
  issueCertificate,
  signPriKey,
  type TestCa,
  type TestCertificate,
} from './certificate-fixtures.ts';

const PASSWORD = 'Signing-Identity-Password';
const NUMBER = '1234567891';
const sealing = createSealingKey(randomBytes(32));

let app: TestApp;
let ca: TestCa;
let good: TestCertificate;
let issuers: IssuersService;

beforeAll(async () => {
  app = await createTestApp();
  ({ ca, certificate: good } = await createCaWithCertificate('이택스', NUMBER));
  issuers = createIssuersService({ db: app.platform.database.db, stage: async () => 'job',
    sealing, publicBaseUrl: 'http://localhost', log: pino({ level: 'silent' }),
    cursors: app.cursors, now: app.platform.outside.now });
});
afterAll(async () => {
  await app?.close();
});

async function registeredIssuer(certificate: TestCertificate) {
  const { accountId } = await app.createAccount();
  const scope = { accountId, environment: 'test' as const };
  const issuer = await issuers.createIssuer({ scope, issuer: { identificationNumber: NUMBER,
    organizationName: '이택스', representativeName: '홍길동' } });
  const { identifier } = await issuers.submitCertificate({ scope, issuerId: issuer.issuerId,
    upload: { signCert: certificate.certificateDer,
      signPri: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2'), password: PASSWORD } });
  expect(await issuers.processUpload(identifier)).toMatchObject({ code: 'REGISTERED' });
  return { scope, issuerId: issuer.issuerId, supplierKey: issuer.supplierKey };
}

describe('signing under a registered certificate', () => {
  it('signs, and gives the signing certificate\'s R for its transmission', async () => {
    const { scope, supplierKey } = await registeredIssuer(good);
    const { signer } = await issuers.requireIssuerCertificate(scope, supplierKey, 'STANDARD');
    expect(signer!.randomNumber).toEqual(good.randomNumber);
    expect(await issuers.signingRandomNumber(scope, supplierKey, good.certificateDer))
      .toEqual(good.randomNumber);
    const replaced = await issueCertificate(ca, { subject: corporateSubject('이택스', NUMBER) });
    expect(await issuers.signingRandomNumber(scope, supplierKey, replaced.certificateDer))
      .toBeNull();
    expect(await issuers.signingRandomNumber({ ...scope, environment: 'live' }, supplierKey,
      good.certificateDer)).toBeNull();
  });

  it('refuses a registration that cannot prove the issuer\'s number, until registered again',
    async () => {
      const { scope, issuerId, supplierKey } = await registeredIssuer(good);
      // As registered before the VID check: a certificate without a VID and a key without R.
      const old = await issueCertificate(ca, { subject: corporateSubject('이택스', NUMBER),
        identity: null });
      await app.platform.database.db.update(issuerCertificates).set({
        certificateBase64: old.certificateDer.toString('base64'),
        sealedPrivateKey: sealing.seal(old.pkcs8, issuerId),
        registrationIdentifier: 'crg_before_the_vid_check',
      }).where(eq(issuerCertificates.issuerId, issuerId));
      await expect(issuers.requireIssuerCertificate(scope, supplierKey, 'STANDARD'))
        .rejects.toMatchObject({ code: 'CERTIFICATE_NOT_REGISTERED',
          message: expect.stringContaining('identity data (VID)') });
      expect(await issuers.signingRandomNumber(scope, supplierKey, old.certificateDer))
        .toBeNull();
      await registeredIssuerAgain(scope, issuerId);
      const { signer } = await issuers.requireIssuerCertificate(scope, supplierKey, 'STANDARD');
      expect(signer!.randomNumber).toEqual(good.randomNumber);
    });
});

async function registeredIssuerAgain(scope: { accountId: string; environment: 'test' },
  issuerId: string) {
  const { identifier } = await issuers.submitCertificate({ scope, issuerId, upload: {
    signCert: good.certificateDer, signPri: signPriKey(good.pkcs8, PASSWORD, 'pbes2'),
    password: PASSWORD } });
  expect(await issuers.processUpload(identifier)).toMatchObject({ code: 'REGISTERED' });
}
