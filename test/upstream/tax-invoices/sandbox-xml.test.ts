// The sandbox tax authority checks a signed standard XML document as the authority would: the
// signature is the standard's profile and verifies with the certificate in KeyInfo, the IssueID
// is the approval number sent with it and the InvoicerParty is the supplier. It accepts the
// document under that approval number, or rejects it naming what is wrong: a document signed
// with another profile (exclusive canonicalization and an enveloped signature) is rejected.
import { generateKeyPairSync } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  signOnThreadPool,
  signXmlDocument,
  type UnsignedXmlDocument,
  type XmlSigner,
} from '../../../src/domain/xml-signature.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import { createSandboxTransmitter } from '../../../src/upstream/tax-invoices/sandbox.ts';
import { sandboxSigner } from '../../helpers/sandbox-signer.ts';

const NS = 'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';
const APPROVAL_NUMBER = '202611214112345678901234';

let signer: XmlSigner;
let privateKeyPem: string;

beforeAll(async () => {
  const made = await sandboxSigner();
  signer = made.signer;
  privateKeyPem = made.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
});

const document = (issueId: string, invoicer: string): UnsignedXmlDocument => ({
  rootStartTag: `<TaxInvoice xmlns="${NS}">`,
  namespaces: [['', NS]],
  exchangedDocument: '<ExchangedDocument><ID>txi_sandbox_xml</ID></ExchangedDocument>',
  signedContent: [
    `<TaxInvoiceDocument><IssueID>${issueId}</IssueID><TypeCode>0101</TypeCode>`,
    '</TaxInvoiceDocument><TaxInvoiceTradeSettlement>',
    `<InvoicerParty><ID>${invoicer}</ID></InvoicerParty>`,
    '<InvoiceeParty><ID>2208162517</ID></InvoiceeParty>',
    '</TaxInvoiceTradeSettlement>',
  ].join(''),
  rootEndTag: '</TaxInvoice>',
});
const unsigned = (parts: UnsignedXmlDocument) =>
  parts.rootStartTag + parts.exchangedDocument + parts.signedContent + parts.rootEndTag;

// The profile etax signed with before: exclusive canonicalization, an enveloped signature
// appended as the root's last child.
function signedWithEnvelopedProfile(xml: string): string {
  const signature = new SignedXml({ privateKey: privateKeyPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    getKeyInfoContent: () => `<X509Data><X509Certificate>${
      signer.certificate.toString('base64')}</X509Certificate></X509Data>` });
  signature.addReference({ xpath: '/*', isEmptyUri: true,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#'] });
  signature.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return signature.getSignedXml();
}

function request(signedDocument: string): TransmissionRequest {
  return { issuanceKey: 'txi_sandbox_xml', writeDate: '2026-11-20', supplierNumber: '1234567891',
    recipientNumber: '2208162517', approvalNumber: APPROVAL_NUMBER, signedDocument,
    signature: 'c2ln', certificate: signer.certificate.toString('base64') };
}

const transmit = (signedDocument: string) => createSandboxTransmitter({ latencyMs: 0 })
  .transmit(request(signedDocument), new AbortController().signal);

describe('the sandbox tax authority and the signed standard XML', () => {
  it('accepts a verified document under the approval number it carries', async () => {
    const signed = (await signXmlDocument(document(APPROVAL_NUMBER, '1234567891'), signer)).xml;
    expect(await transmit(signed)).toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
  });

  it('rejects a document signed with the enveloped exclusive-c14n profile, even placed where ' +
    'the standard puts the signature', async () => {
    const enveloped = signedWithEnvelopedProfile(unsigned(document(APPROVAL_NUMBER,
      '1234567891')));
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(enveloped)![0];
    const moved = enveloped.replace(signature, '').replace('</ExchangedDocument>',
      `</ExchangedDocument>${signature}`);
    expect(await transmit(moved)).toMatchObject({ kind: 'rejected',
      code: 'TRANSMISSION_REJECTED', message: expect.stringContaining('inclusive Canonical XML') });
  });

  it('rejects a document changed after signing', async () => {
    const signed = (await signXmlDocument(document(APPROVAL_NUMBER, '1234567891'), signer)).xml;
    const result = await transmit(signed.replace('<TypeCode>0101', '<TypeCode>0102'));
    expect(result).toMatchObject({ kind: 'rejected', code: 'TRANSMISSION_REJECTED' });
  });

  it('rejects a document signed by a key that is not the certificate\'s', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const impostor: XmlSigner = { certificate: signer.certificate,
      sign: signOnThreadPool(privateKey) };
    const signed = (await signXmlDocument(document(APPROVAL_NUMBER, '1234567891'),
      impostor)).xml;
    expect(await transmit(signed)).toMatchObject({ kind: 'rejected',
      message: expect.stringContaining('signature is not valid') });
  });

  it('rejects another approval number, another supplier, an unsigned document and non-XML',
    async () => {
      for (const [signedDocument, reason] of [
        [(await signXmlDocument(document('202611214100000000000000', '1234567891'),
          signer)).xml, 'IssueID'],
        [(await signXmlDocument(document(APPROVAL_NUMBER, '2208162517'), signer)).xml,
          'InvoicerParty'],
        [unsigned(document(APPROVAL_NUMBER, '1234567891')), 'one Signature'],
        [signedWithEnvelopedProfile(unsigned(document(APPROVAL_NUMBER, '1234567891'))),
          'between ExchangedDocument and TaxInvoiceDocument'],
        ['{"document":"canonical"}', 'well-formed'],
      ] as const) {
        expect(await transmit(signedDocument)).toMatchObject({ kind: 'rejected',
          code: 'TRANSMISSION_REJECTED', message: expect.stringContaining(reason) });
      }
    });
});
