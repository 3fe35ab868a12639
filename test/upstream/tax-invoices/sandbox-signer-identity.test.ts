// The sandbox authority's check of the signer's R-value (src/upstream/tax-invoices/sandbox.ts):
// a transmission that carries R must carry the one that, with the certificate's VID, proves the
// supplier's registration number, as the authority checks the package it receives.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueSandboxCertificate } from '../../../src/domain/sandbox-certificate.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import { signerIdentityDefect } from '../../../src/upstream/tax-invoices/sandbox.ts';

const SUPPLIER = '1234567891';
const R = randomBytes(20);
let certificate: string;

beforeAll(async () => {
  const issued = await issueSandboxCertificate({ businessRegistrationNumber: SUPPLIER,
    organizationName: '이택스', password: 'pass1234!', now: new Date(), randomNumber: R });
  certificate = issued.signCert.toString('base64');
});

function request(changes: Partial<TransmissionRequest>): TransmissionRequest {
  return { issuanceKey: 'txi_identity', writeDate: '2026-11-20', supplierNumber: SUPPLIER,
    recipientNumber: '2208162517', approvalNumber: '202611204100000800000001',
    signedDocument: '<TaxInvoice/>', signature: 'c2ln', certificate,
    signerRandomNumber: R.toString('base64'), ...changes };
}

describe('signerIdentityDefect', () => {
  it('takes the signer\'s R', () => {
    expect(signerIdentityDefect(request({}))).toBeNull();
  });

  it('refuses another R, another supplier, or a certificate without a VID', () => {
    const tampered = Buffer.from(R);
    tampered[5] = tampered[5]! ^ 0x10;
    const defect = 'The signer\'s R-value and the certificate\'s VID do not prove the ' +
      'supplier\'s number.';
    expect(signerIdentityDefect(request({ signerRandomNumber: tampered.toString('base64') })))
      .toBe(defect);
    expect(signerIdentityDefect(request({ supplierNumber: '1048123454' }))).toBe(defect);
    expect(signerIdentityDefect(request({ certificate: Buffer.from('no certificate')
      .toString('base64') }))).toBe(defect);
  });

  it('leaves a request without R to the other checks', () => {
    expect(signerIdentityDefect(request({ signerRandomNumber: null }))).toBeNull();
    expect(signerIdentityDefect(request({ signerRandomNumber: undefined }))).toBeNull();
  });
});
