// The sandbox tax authority checks a signed standard XML document as the authority would: the
// signature verifies with the certificate in KeyInfo, the IssueID is the approval number sent
// with it and the InvoicerParty is the supplier. It accepts the document under that approval
// number, or rejects it naming what is wrong.
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueSandboxCertificate } from '../../../src/domain/sandbox-certificate.ts';
import { decryptSigningKeyFile } from '../../../src/domain/signing-key-file.ts';
import { signXmlDocument, type XmlSigner } from '../../../src/domain/xml-signature.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import { createSandboxTransmitter } from '../../../src/upstream/tax-invoices/sandbox.ts';

const NS = 'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';
const APPROVAL_NUMBER = '202611214112345678901234';
const PASSWORD = 'sandbox-password-1';

let signer: XmlSigner;

beforeAll(async () => {
  const certificate = await issueSandboxCertificate({ businessRegistrationNumber: '1234567891',
    organizationName: '주식회사 이택스', password: PASSWORD, now: new Date() });
  const key = decryptSigningKeyFile(certificate.signPri, PASSWORD);
  if (key.kind !== 'decrypted') throw new Error('the sandbox key file did not open');
  const privateKey = createPrivateKey({ key: key.pkcs8, format: 'der', type: 'pkcs8' });
  signer = { certificate: certificate.signCert, sign: (data) => sign('sha256', data, privateKey) };
});

const document = (issueId: string, invoicer: string) => [
  '<?xml version="1.0" encoding="UTF-8"?>',
  `<TaxInvoice xmlns="${NS}">`,
  `<TaxInvoiceDocument><IssueID>${issueId}</IssueID><TypeCode>0101</TypeCode>`,
  '</TaxInvoiceDocument><TaxInvoiceTradeSettlement>',
  `<InvoicerParty><ID>${invoicer}</ID></InvoicerParty>`,
  '<InvoiceeParty><ID>2208162517</ID></InvoiceeParty>',
  '</TaxInvoiceTradeSettlement></TaxInvoice>',
].join('');

function request(signedDocument: string): TransmissionRequest {
  return { issuanceKey: 'txi_sandbox_xml', writeDate: '2026-11-20', supplierNumber: '1234567891',
    recipientNumber: '2208162517', approvalNumber: APPROVAL_NUMBER, signedDocument,
    signature: 'c2ln', certificate: signer.certificate.toString('base64') };
}

const transmit = (signedDocument: string) => createSandboxTransmitter({ latencyMs: 0 })
  .transmit(request(signedDocument), new AbortController().signal);

describe('the sandbox tax authority and the signed standard XML', () => {
  it('accepts a verified document under the approval number it carries', async () => {
    const signed = signXmlDocument(document(APPROVAL_NUMBER, '1234567891'), signer).xml;
    expect(await transmit(signed)).toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
  });

  it('rejects a document changed after signing', async () => {
    const signed = signXmlDocument(document(APPROVAL_NUMBER, '1234567891'), signer).xml;
    const result = await transmit(signed.replace('<TypeCode>0101', '<TypeCode>0102'));
    expect(result).toMatchObject({ kind: 'rejected', code: 'TRANSMISSION_REJECTED' });
  });

  it('rejects a document signed by a key that is not the certificate\'s', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const impostor: XmlSigner = { certificate: signer.certificate,
      sign: (data) => sign('sha256', data, privateKey) };
    const signed = signXmlDocument(document(APPROVAL_NUMBER, '1234567891'), impostor).xml;
    expect(await transmit(signed)).toMatchObject({ kind: 'rejected',
      message: expect.stringContaining('signature is not valid') });
  });

  it('rejects another approval number, another supplier, an unsigned document and non-XML',
    async () => {
      for (const [signedDocument, reason] of [
        [signXmlDocument(document('202611214100000000000000', '1234567891'), signer).xml,
          'IssueID'],
        [signXmlDocument(document(APPROVAL_NUMBER, '2208162517'), signer).xml, 'InvoicerParty'],
        [document(APPROVAL_NUMBER, '1234567891'), 'one Signature'],
        ['{"document":"canonical"}', 'well-formed'],
      ] as const) {
        expect(await transmit(signedDocument)).toMatchObject({ kind: 'rejected',
          code: 'TRANSMISSION_REJECTED', message: expect.stringContaining(reason) });
      }
    });
});
