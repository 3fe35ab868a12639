// The sandbox authority's check of the signer's R-value (src/upstream/tax-invoices/sandbox.ts):
// a transmission that carries R must carry the one that, with the certificate's VID, proves the
// supplier's registration number, as the authority checks the package it receives.
import { createPrivateKey, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueSandboxCertificate } from '../../../src/domain/sandbox-certificate.ts';
import { decryptSigningKeyFile } from '../../../src/domain/signing-key-file.ts';
import {
  signOnThreadPool,
  signXmlDocument,
  type XmlSigner,
} from '../../../src/domain/xml-signature.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import {
  createSandboxTransmitter,
  signerIdentityDefect,
} from '../../../src/upstream/tax-invoices/sandbox.ts';

const SUPPLIER = '1234567891';
const APPROVAL_NUMBER = '202611204100000800000001';
const NS = 'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';
const R = randomBytes(20);
let certificate: string;
let signer: XmlSigner;

beforeAll(async () => {
  const issued = await issueSandboxCertificate({ businessRegistrationNumber: SUPPLIER,
    organizationName: '이택스', password: 'pass1234!', now: new Date(), randomNumber: R });
  certificate = issued.signCert.toString('base64');
  const key = decryptSigningKeyFile(issued.signPri, 'pass1234!');
  if (key.kind !== 'decrypted') throw new Error('the sandbox key file did not open');
  const privateKey = createPrivateKey({ key: key.pkcs8, format: 'der', type: 'pkcs8' });
  signer = { certificate: issued.signCert, sign: signOnThreadPool(privateKey) };
});

function request(changes: Partial<TransmissionRequest>): TransmissionRequest {
  return { issuanceKey: 'txi_identity', writeDate: '2026-11-20', supplierNumber: SUPPLIER,
    recipientNumber: '2208162517', approvalNumber: APPROVAL_NUMBER,
    signedDocument: '<TaxInvoice/>', signature: 'c2ln', certificate,
    signerRandomNumber: R.toString('base64'), ...changes };
}

describe('signerIdentityDefect', () => {
  it('takes the signer\'s R', async () => {
    expect(await signerIdentityDefect(request({}))).toBeNull();
  });

  it('refuses another R, another supplier, or a certificate without a VID', async () => {
    const tampered = Buffer.from(R);
    tampered[5] = tampered[5]! ^ 0x10;
    const defect = 'The signer\'s R-value and the certificate\'s VID do not prove the ' +
      'supplier\'s number.';
    expect(await signerIdentityDefect(
      request({ signerRandomNumber: tampered.toString('base64') }))).toBe(defect);
    expect(await signerIdentityDefect(request({ supplierNumber: '1048123454' }))).toBe(defect);
    expect(await signerIdentityDefect(request({ certificate: Buffer.from('no certificate')
      .toString('base64') }))).toBe(defect);
  });

  it('leaves a request without R to the other checks', async () => {
    expect(await signerIdentityDefect(request({ signerRandomNumber: null }))).toBeNull();
    expect(await signerIdentityDefect(request({ signerRandomNumber: undefined }))).toBeNull();
  });
});

describe('the sandbox transmitter', () => {
  it('accepts a signed document with the signer\'s R and rejects it with another', async () => {
    const { xml } = await signXmlDocument({
      rootStartTag: `<TaxInvoice xmlns="${NS}">`,
      namespaces: [['', NS]],
      exchangedDocument: '<ExchangedDocument><ID>txi_identity</ID></ExchangedDocument>',
      signedContent: [
        `<TaxInvoiceDocument><IssueID>${APPROVAL_NUMBER}</IssueID><TypeCode>0101</TypeCode>`,
        '</TaxInvoiceDocument><TaxInvoiceTradeSettlement>',
        `<InvoicerParty><ID>${SUPPLIER}</ID></InvoicerParty>`,
        '<InvoiceeParty><ID>2208162517</ID></InvoiceeParty>',
        '</TaxInvoiceTradeSettlement>',
      ].join(''),
      rootEndTag: '</TaxInvoice>',
    }, signer);
    const transmitter = createSandboxTransmitter({ latencyMs: 0 });
    const transmit = (changes: Partial<TransmissionRequest>) => transmitter.transmit(
      request({ signedDocument: xml, ...changes }), new AbortController().signal);
    expect(await transmit({})).toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
    expect(await transmit({ signerRandomNumber: randomBytes(20).toString('base64') }))
      .toEqual({ kind: 'rejected', code: 'TRANSMISSION_REJECTED', message: 'The tax authority ' +
        'rejected the signed document: The signer\'s R-value and the certificate\'s VID do not ' +
        'prove the supplier\'s number.' });
  });
});
