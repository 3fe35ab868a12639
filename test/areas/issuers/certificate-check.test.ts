// The registration rules (src/areas/issuers/certificate-check.ts) on real certificates made by a
// test CA: one test per registration code, in the documented order of checks, plus how a
// certificate is tied to the issuer's business: by the VID its CA made from the business
// number and the random value R in the key file, whatever the subject says. The checks run for
// a live key unless a test says otherwise: the test CA is not the sandbox CA, so its
// certificates register there.
import 'reflect-metadata';
import { KeyUsageFlags } from '@peculiar/x509';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCertificateUpload } from '../../../src/areas/issuers/certificate-check.ts';
import { readCertificate } from '../../../src/domain/joint-certificate.ts';
import { SANDBOX_CA_NAME } from '../../../src/domain/sandbox-ca.ts';
import { issueSandboxCertificate } from '../../../src/domain/sandbox-certificate.ts';
import { withRandomNumber } from '../../../src/domain/signing-key-file.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  NPKI_POLICIES,
  signPriKey,
  type TestCa,
  type TestCertificate,
} from './certificate-fixtures.ts';

const OWNER = { identificationNumber: '1234567891' };
const PASSWORD = 'Cert-Pa$$word1';
const NOW = new Date();
const AT = { now: NOW, environment: 'live' as const };
const DAY_MS = 86_400_000;

let ca: TestCa;
let good: TestCertificate;

beforeAll(async () => {
  ca = await createTestCa();
  const subject = corporateSubject('이택스', OWNER.identificationNumber);
  good = await issueCertificate(ca, { subject });
});

function upload(certificate: TestCertificate, password = PASSWORD) {
  return { signCert: certificate.certificateDer,
    signPri: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2'), password };
}

describe('checkCertificateUpload', () => {
  it('registers a valid certificate in each key file format, returning its facts', () => {
    for (const format of ['seedCbcWithSha1', 'pbes2', 'seedCbc'] as const) {
      const result = checkCertificateUpload({ signCert: good.certificateDer,
        signPri: signPriKey(good.pkcs8, PASSWORD, format), password: PASSWORD }, OWNER, AT);
      expect(result.code).toBe('REGISTERED');
      if (result.code !== 'REGISTERED') return;
      expect(result.pkcs8).toEqual(good.pkcs8);
      expect(result.facts.subject).toContain('이택스(1234567891)');
      expect(result.facts.issuerName).toContain('yessignCA-Test');
      expect(result.facts.keyUsages).toEqual(['digitalSignature', 'nonRepudiation']);
      expect(result.facts.policies).toEqual([NPKI_POLICIES.corporateGeneralPurpose]);
    }
  });

  it('answers UNSUPPORTED_CERTIFICATE_FORMAT for a file that is not a certificate', () => {
    const result = checkCertificateUpload({ ...upload(good), signCert: Buffer.from('garbage') },
      OWNER, AT);
    expect(result).toEqual({ code: 'UNSUPPORTED_CERTIFICATE_FORMAT' });
  });

  it('answers UNSUPPORTED_KEY_FORMAT for a key file that is not an encrypted key', () => {
    const result = checkCertificateUpload({ ...upload(good), signPri: good.certificateDer },
      OWNER, AT);
    expect(result).toEqual({ code: 'UNSUPPORTED_KEY_FORMAT' });
  });

  it('answers WRONG_PASSWORD before looking at validity or ownership', () => {
    const result = checkCertificateUpload(upload(good, 'wrong password'), OWNER, AT);
    expect(result).toEqual({ code: 'WRONG_PASSWORD' });
  });

  it('answers KEY_MISMATCH when signPri.key belongs to another certificate', async () => {
    const other = await issueCertificate(ca, { subject: corporateSubject('이택스', '1234567891') });
    const result = checkCertificateUpload({ signCert: good.certificateDer,
      signPri: signPriKey(other.pkcs8, PASSWORD, 'seedCbc'), password: PASSWORD }, OWNER, AT);
    expect(result).toEqual({ code: 'KEY_MISMATCH' });
  });

  it('answers CERTIFICATE_EXPIRED and CERTIFICATE_NOT_YET_VALID by validity', async () => {
    const subject = corporateSubject('이택스', OWNER.identificationNumber);
    const expired = await issueCertificate(ca, { subject, keys: good.keys,
      notBefore: new Date(NOW.getTime() - 400 * DAY_MS),
      notAfter: new Date(NOW.getTime() - DAY_MS) });
    const future = await issueCertificate(ca, { subject, keys: good.keys,
      notBefore: new Date(NOW.getTime() + DAY_MS),
      notAfter: new Date(NOW.getTime() + 400 * DAY_MS) });
    expect(checkCertificateUpload(upload(expired), OWNER, AT))
      .toEqual({ code: 'CERTIFICATE_EXPIRED' });
    expect(checkCertificateUpload(upload(future), OWNER, AT))
      .toEqual({ code: 'CERTIFICATE_NOT_YET_VALID' });
  });

  it('answers NOT_SIGNING_CERTIFICATE for a key-management certificate', async () => {
    const km = await issueCertificate(ca, { subject: corporateSubject('이택스', '1234567891'),
      keys: good.keys, keyUsages: KeyUsageFlags.keyEncipherment });
    expect(checkCertificateUpload(upload(km), OWNER, AT))
      .toEqual({ code: 'NOT_SIGNING_CERTIFICATE' });
  });

  it('answers VID_MISMATCH for a certificate issued for another business', async () => {
    const other = await issueCertificate(ca, { subject: corporateSubject('이택스', '1048123454') });
    expect(checkCertificateUpload(upload(other), OWNER, AT)).toEqual({ code: 'VID_MISMATCH' });
  });

  it('answers VID_MISMATCH when only the subject names the issuer\'s number', async () => {
    const disguised = await issueCertificate(ca, { subject: corporateSubject('이택스',
      OWNER.identificationNumber), identity: { number: '1048123454' } });
    expect(checkCertificateUpload(upload(disguised), OWNER, AT))
      .toEqual({ code: 'VID_MISMATCH' });
  });

  it('answers VID_MISMATCH for a key file whose R was changed', () => {
    const tampered = Buffer.from(good.randomNumber!);
    tampered[0] = tampered[0]! ^ 0x01;
    const result = checkCertificateUpload({ signCert: good.certificateDer,
      signPri: signPriKey(withRandomNumber(good.pkcs8, tampered), PASSWORD, 'pbes2'),
      password: PASSWORD }, OWNER, AT);
    expect(result).toEqual({ code: 'VID_MISMATCH' });
  });

  it('answers VID_MISSING for a certificate without a VID or a key file without R', async () => {
    const subject = corporateSubject('이택스', OWNER.identificationNumber);
    const noVid = await issueCertificate(ca, { subject, identity: null });
    expect(checkCertificateUpload(upload(noVid), OWNER, AT)).toEqual({ code: 'VID_MISSING' });
    const bareKey = Buffer.from(await crypto.subtle.exportKey('pkcs8', good.keys.privateKey));
    const withoutR = checkCertificateUpload({ signCert: good.certificateDer,
      signPri: signPriKey(bareKey, PASSWORD, 'seedCbcWithSha1'), password: PASSWORD }, OWNER, AT);
    expect(withoutR).toEqual({ code: 'VID_MISSING' });
  });

  it('ties the certificate by its VID alone: the subject may name nothing, the hash be SHA-1',
    async () => {
      const unnamed = await issueCertificate(ca, { identity: { number:
        OWNER.identificationNumber }, subject: 'CN=다른회사()0012345678901,OU=corporation4EC,' +
        'O=yessign,C=KR' });
      expect(checkCertificateUpload(upload(unnamed), OWNER, AT).code).toBe('REGISTERED');
      const sha1 = await issueCertificate(ca, { subject: corporateSubject('이택스',
        OWNER.identificationNumber), identity: { number: OWNER.identificationNumber,
        hash: 'sha1' } });
      expect(checkCertificateUpload(upload(sha1), OWNER, AT).code).toBe('REGISTERED');
    });

  it('checks a VID that names no hash with the certificate\'s signature hash', async () => {
    const subject = corporateSubject('이택스', OWNER.identificationNumber);
    const unnamedHash = await issueCertificate(ca, { subject, identity: { number:
      OWNER.identificationNumber, hash: null } });
    expect(readCertificate(unnamedHash.certificateDer)?.vid).toMatchObject({ hash: 'sha256' });
    expect(checkCertificateUpload(upload(unnamedHash), OWNER, AT).code).toBe('REGISTERED');
    const forAnother = await issueCertificate(ca, { subject, identity: { number: '1048123454',
      hash: null } });
    expect(checkCertificateUpload(upload(forAnother), OWNER, AT))
      .toEqual({ code: 'VID_MISMATCH' });
  });

  it('answers VID_MISMATCH to a sandbox certificate of another business, with a test key',
    async () => {
      const sandbox = await issueSandboxCertificate({ businessRegistrationNumber: '1048123454',
        organizationName: '이택스', password: PASSWORD, now: NOW });
      expect(checkCertificateUpload({ signCert: sandbox.signCert, signPri: sandbox.signPri,
        password: PASSWORD }, OWNER, { now: NOW, environment: 'test' }))
        .toEqual({ code: 'VID_MISMATCH' });
    });

  it('answers SANDBOX_CERTIFICATE to a live key for a sandbox certificate, before the password',
    async () => {
      const sandbox = await issueSandboxCertificate({ businessRegistrationNumber:
        OWNER.identificationNumber, organizationName: '이택스', password: PASSWORD, now: NOW });
      const sandboxUpload = { signCert: sandbox.signCert, signPri: sandbox.signPri,
        password: PASSWORD };
      expect(checkCertificateUpload(sandboxUpload, OWNER, AT))
        .toEqual({ code: 'SANDBOX_CERTIFICATE' });
      expect(checkCertificateUpload({ ...sandboxUpload, password: 'wrong' }, OWNER, AT))
        .toEqual({ code: 'SANDBOX_CERTIFICATE' });
      const withTestKey = checkCertificateUpload(sandboxUpload, OWNER,
        { now: NOW, environment: 'test' });
      expect(withTestKey.code).toBe('REGISTERED');
    });

  it('tells the sandbox CA by its signature, not by its name', async () => {
    const impostor = await createTestCa(SANDBOX_CA_NAME);
    const named = await issueCertificate(impostor, { keys: good.keys,
      subject: corporateSubject('이택스', OWNER.identificationNumber) });
    expect(readCertificate(named.certificateDer)?.issuerName).toContain('etax Sandbox CA');
    expect(checkCertificateUpload(upload(named), OWNER, AT).code).toBe('REGISTERED');
  });

  it('reads no facts from garbage', () => {
    expect(readCertificate(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))).toBeNull();
  });
});
