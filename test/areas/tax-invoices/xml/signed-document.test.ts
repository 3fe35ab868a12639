// The standard e-tax-invoice XML of every kind of document etax issues (normal, zero-rated,
// tax-free, and each amendment reason), signed with a joint certificate of the sandbox CA in the
// standard's signature profile: etax's verifier and xmlsec1 (with the sandbox CA as its trust
// anchor, test/helpers/xmlsec1.ts) verify each signature, also after ExchangedDocument is
// rewritten; any change to an amount, a party or an item breaks it; and each document has the
// elements of the standard's published element list, in its order. No schema of the standard is
// published openly, so the structure is checked element by element.
import type { KeyObject } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  INCLUSIVE_C14N,
  NTS_XPATH,
  verifyXmlDocument,
  XPATH_FILTER,
  type XmlSigner,
} from '../../../../src/domain/xml-signature.ts';
import type { Invoice, TaxType } from '../../../../src/areas/tax-invoices/schemas.ts';
import type { TaxInvoiceRow } from '../../../../src/areas/tax-invoices/store.ts';
import {
  DOCUMENT_CLASSIFICATIONS,
  DOCUMENT_KINDS,
  documentTypeCode,
  TAX_INVOICE_NAMESPACE,
} from '../../../../src/areas/tax-invoices/xml/codes.ts';
import { signTaxInvoiceXml } from '../../../../src/areas/tax-invoices/xml/signed-document.ts';
import { signOnSigningThread } from '../../../../src/areas/issuers/signing-thread.ts';
import { signedXmlDefect } from '../../../../src/upstream/tax-invoices/signed-document-check.ts';
import { sandboxSigner } from '../../../helpers/sandbox-signer.ts';
import { xmlsec1Verify } from '../../../helpers/xmlsec1.ts';

const ISSUED_AT = new Date('2026-11-20T15:30:00Z'); // 2026-11-21 00:30 in Korea
// A registered system's code and the counter value whose serial is the standard's sample's.
const NUMBERING = { systemCode: '41000008', counter: BigInt(parseInt('a1b2c3d4', 36)) };

let signer: XmlSigner;
let privateKey: KeyObject;

beforeAll(async () => {
  ({ signer, privateKey } = await sandboxSigner());
});

function invoice(tax: (supplyCost: number) => number | null, sign = 1): Invoice {
  const items = [
    { date: '2026-11-20', name: '클라우드 사용료 <월> & "부가"', specification: '월 구독',
      quantity: 10 * sign, unitPrice: 5_000, supplyCost: 50_000 * sign, tax: tax(50_000 * sign),
      description: null },
    { date: '2026-11-20', name: '기술 지원', specification: null, quantity: null,
      unitPrice: null, supplyCost: 150_000 * sign, tax: tax(150_000 * sign),
      description: '11월분' },
  ];
  return {
    date: '2026-11-20', purpose: 'CLAIM',
    supplier: { identificationNumber: '1234567891', taxRegistrationId: null,
      organizationName: '주식회사 이택스', representativeName: '홍길동',
      address: '서울특별시 중구 세종대로 110', businessType: '서비스', businessItem: '소프트웨어',
      manager: { email: 'tax@example.co.kr', name: '김담당', telephone: '02-1234-5678' } },
    supplied: { identificationNumber: '2208162517', taxRegistrationId: '0001',
      organizationName: '주식회사 받는곳', representativeName: '이영희', address: null,
      businessType: null, businessItem: null,
      managers: [{ email: 'account@example.com', name: '박수신', telephone: '010-1234-5678' },
        { email: 'copy@example.com', name: null, telephone: null }] },
    items, description: '11월 이용료',
    payment: { cash: 100_000, check: null, note: 20_000, credit: 60_000 },
  };
}

function row(taxType: TaxType, amendmentReason: number | null, sign = 1): TaxInvoiceRow {
  const rate = { TAXABLE: (cost: number) => cost / 10, ZERO_RATED: () => 0,
    TAX_FREE: () => null }[taxType];
  const document = invoice(rate, sign);
  const supplyCost = document.items.reduce((sum, item) => sum + item.supplyCost, 0);
  const tax = document.items.reduce((sum, item) => sum + (item.tax ?? 0), 0);
  return {
    issuanceKey: `txi_${taxType}_${amendmentReason ?? 0}`, invoice: document, taxType,
    supplyCostTotal: supplyCost, taxTotal: tax, totalAmount: supplyCost + tax,
    amendmentReason,
    originalNtsTransactionId: amendmentReason === null ? null : '202611194100000000000001',
  } as TaxInvoiceRow;
}

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'application/xml');
const childNames = (element: Element) => Array.from(element.childNodes)
  .filter((node) => node.nodeType === 1).map((node) => (node as Element).localName);
const text = (xml: string, name: string) => parse(xml)
  .getElementsByTagNameNS(TAX_INVOICE_NAMESPACE, name)[0]?.textContent ?? null;

// The elements of the standard's element list, in its order.
const ROOT_CHILDREN = ['ExchangedDocument', 'Signature', 'TaxInvoiceDocument',
  'TaxInvoiceTradeSettlement', 'TaxInvoiceTradeLineItem', 'TaxInvoiceTradeLineItem'];
const DOCUMENT_ORDER = ['IssueID', 'TypeCode', 'DescriptionText', 'IssueDateTime',
  'AmendmentStatusCode', 'PurposeCode', 'OriginalIssueID'];
const SETTLEMENT_CHILDREN = ['InvoicerParty', 'InvoiceeParty', 'SpecifiedPaymentMeans',
  'SpecifiedPaymentMeans', 'SpecifiedPaymentMeans', 'SpecifiedMonetarySummation'];
const PARTY_ORDER = ['ID', 'TypeCode', 'NameText', 'ClassificationCode',
  'SpecifiedOrganization', 'SpecifiedPerson', 'DefinedContact', 'PrimaryDefinedContact',
  'SecondaryDefinedContact', 'SpecifiedAddress'];
// The optional elements the document has no value for are left out: the supplier has no
// sub-place number (SpecifiedOrganization), the recipient no business type, item or address.
const INVOICER_CHILDREN = ['ID', 'TypeCode', 'NameText', 'ClassificationCode',
  'SpecifiedPerson', 'DefinedContact', 'SpecifiedAddress'];
const INVOICEE_CHILDREN = ['ID', 'NameText', 'SpecifiedOrganization', 'SpecifiedPerson',
  'PrimaryDefinedContact', 'SecondaryDefinedContact'];
const LINE_ORDER = ['SequenceNumeric', 'DescriptionText', 'InvoiceAmount',
  'ChargeableUnitQuantity', 'InformationText', 'NameText', 'PurchaseExpiryDateTime', 'TotalTax',
  'UnitPrice'];

function expectInOrder(actual: string[], order: string[]) {
  expect(actual.every((name) => order.includes(name))).toBe(true);
  const positions = actual.map((name) => order.indexOf(name));
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
}

const KINDS: Array<{ name: string; taxType: TaxType; reason: number | null; sign: number;
  typeCode: string }> = [
  { name: 'normal tax invoice', taxType: 'TAXABLE', reason: null, sign: 1, typeCode: '0101' },
  { name: 'zero-rated tax invoice', taxType: 'ZERO_RATED', reason: null, sign: 1,
    typeCode: '0102' },
  { name: 'tax-free invoice (계산서)', taxType: 'TAX_FREE', reason: null, sign: 1,
    typeCode: '0301' },
  { name: 'amendment 1, entry correction (the cancelling half)', taxType: 'TAXABLE', reason: 1,
    sign: -1, typeCode: '0201' },
  { name: 'amendment 2, supply cost change', taxType: 'TAXABLE', reason: 2, sign: 1,
    typeCode: '0201' },
  { name: 'amendment 3, returned goods', taxType: 'TAXABLE', reason: 3, sign: -1,
    typeCode: '0201' },
  { name: 'amendment 4, termination', taxType: 'TAXABLE', reason: 4, sign: -1,
    typeCode: '0201' },
  { name: 'amendment 5, local letter of credit (the zero-rated half)', taxType: 'ZERO_RATED',
    reason: 5, sign: 1, typeCode: '0202' },
  { name: 'amendment 6, double issuance', taxType: 'TAXABLE', reason: 6, sign: -1,
    typeCode: '0201' },
  { name: 'amendment of a tax-free invoice (수정계산서)', taxType: 'TAX_FREE', reason: 4,
    sign: -1, typeCode: '0401' },
];

describe('the signed standard XML of each kind of document', () => {
  for (const kind of KINDS) {
    it(`${kind.name}: TypeCode ${kind.typeCode}, signed and verified, in the standard's order`,
      async () => {
        const input = row(kind.taxType, kind.reason, kind.sign);
        const signed = await signTaxInvoiceXml(input, signer, ISSUED_AT, NUMBERING);
        const check = verifyXmlDocument(signed.xml);
        expect(check).toEqual({ valid: true, certificate: signer.certificate });
        expect(xmlsec1Verify(signed.xml)).toMatchObject({ referenceValid: true,
          signatureValid: true });

        const document = parse(signed.xml);
        const root = document.documentElement!;
        expect(root.localName).toBe('TaxInvoice');
        expect(root.namespaceURI).toBe(TAX_INVOICE_NAMESPACE);
        expect(childNames(root)).toEqual(ROOT_CHILDREN);
        const [, , taxInvoiceDocument, settlement, line] = Array.from(root.childNodes)
          .filter((node) => node.nodeType === 1) as Element[];
        expectInOrder(childNames(taxInvoiceDocument!), DOCUMENT_ORDER);
        expect(childNames(settlement!)).toEqual(SETTLEMENT_CHILDREN);
        expectInOrder(childNames(line!), LINE_ORDER);
        const [invoicer, invoicee] = Array.from(settlement!.childNodes)
          .filter((node) => node.nodeType === 1) as Element[];
        expectInOrder(childNames(invoicer!), PARTY_ORDER);
        expect(childNames(invoicer!)).toEqual(INVOICER_CHILDREN);
        expectInOrder(childNames(invoicee!), PARTY_ORDER);
        expect(childNames(invoicee!)).toEqual(INVOICEE_CHILDREN);

        expect(text(signed.xml, 'IssueID')).toBe(signed.approvalNumber);
        expect(signed.approvalNumber).toBe('2026112141000008a1b2c3d4');
        expect(text(signed.xml, 'TypeCode')).toBe(kind.typeCode);
        expect(text(signed.xml, 'PurposeCode')).toBe('02');
        expect(text(signed.xml, 'AmendmentStatusCode'))
          .toBe(kind.reason === null ? null : `0${kind.reason}`);
        expect(text(signed.xml, 'OriginalIssueID'))
          .toBe(kind.reason === null ? null : '202611194100000000000001');
        expect(text(signed.xml, 'ChargeTotalAmount')).toBe(String(input.supplyCostTotal));
        expect(text(signed.xml, 'GrandTotalAmount')).toBe(String(input.totalAmount));
        // A tax-exempt document carries a tax of 0, in the total and on every item.
        expect(text(signed.xml, 'TaxTotalAmount')).toBe(String(input.taxTotal));
        expect(Array.from(document.getElementsByTagNameNS(TAX_INVOICE_NAMESPACE,
          'CalculatedAmount')).map((element) => element.textContent))
          .toEqual(input.invoice.items.map((item) => String(item.tax ?? 0)));
        if (kind.taxType === 'TAX_FREE') expect(input.taxTotal).toBe(0);
      });
  }
});

describe('the signature', () => {
  it('breaks when an amount, a party, an item or the approval number changes', async () => {
    const signed = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    for (const [from, to] of [['<GrandTotalAmount>220000<', '<GrandTotalAmount>220001<'],
      ['<TaxTotalAmount>20000<', '<TaxTotalAmount>2000<'], ['주식회사 받는곳', '주식회사 다른곳'],
      ['<ID>2208162517<', '<ID>2208162518<'], ['<InvoiceAmount>50000<', '<InvoiceAmount>5000<'],
      ['<NameText>기술 지원<', '<NameText>기술  지원<'],
      ['<SequenceNumeric>2<', '<SequenceNumeric>3<'],
      [signed.approvalNumber, signed.approvalNumber.replace(/.$/, (last) =>
        (last === '0' ? '1' : '0'))]]) {
      expect(signed.xml).toContain(from);
      const changed = signed.xml.replace(from!, to!);
      expect(verifyXmlDocument(changed).valid, `${from} → ${to}`).toBe(false);
      expect(xmlsec1Verify(changed).referenceValid, `${from} → ${to}`).toBe(false);
    }
    // An item removed, or one added.
    const items = /<TaxInvoiceTradeLineItem>[\s\S]*?<\/TaxInvoiceTradeLineItem>/
      .exec(signed.xml)![0];
    for (const changed of [signed.xml.replace(items, ''),
      signed.xml.replace(items, items + items)]) {
      expect(verifyXmlDocument(changed).valid).toBe(false);
      expect(xmlsec1Verify(changed).referenceValid).toBe(false);
    }
  });

  it('is made the same by the issuers\' signing thread, and xmlsec1 verifies it', async () => {
    const onThread = await signTaxInvoiceXml(row('TAXABLE', null),
      { certificate: signer.certificate, sign: signOnSigningThread(privateKey) },
      ISSUED_AT, NUMBERING);
    const onPool = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    expect(onThread.xml).toBe(onPool.xml);
    expect(xmlsec1Verify(onThread.xml)).toMatchObject({ referenceValid: true,
      signatureValid: true });
  });

  it('still verifies when the transmitting system rewrites ExchangedDocument', async () => {
    const signed = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    const exchanged = /<ExchangedDocument>[\s\S]*<\/ExchangedDocument>/.exec(signed.xml)![0];
    const rewritten = signed.xml.replace(exchanged, '<ExchangedDocument><ID>ASP-0001</ID>' +
      '<IssueDateTime>20261121093000</IssueDateTime><ReferencedDocument><ID>etax</ID>' +
      '</ReferencedDocument></ExchangedDocument>');
    expect(verifyXmlDocument(rewritten)).toEqual({ valid: true, certificate: signer.certificate });
    expect(xmlsec1Verify(rewritten)).toMatchObject({ referenceValid: true,
      signatureValid: true });
  });

  it('is refused when removed, doubled, moved or the document is not XML', async () => {
    const signed = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed.xml)![0];
    const moved = signed.xml.replace(signature, '').replace('</TaxInvoice>',
      `${signature}</TaxInvoice>`);
    expect(verifyXmlDocument(moved)).toMatchObject({ valid: false,
      reason: expect.stringContaining('between ExchangedDocument and TaxInvoiceDocument') });
    expect(verifyXmlDocument(signed.xml.replace(signature, '')).valid).toBe(false);
    expect(verifyXmlDocument(signed.xml.replace(signature, signature + signature)).valid)
      .toBe(false);
    expect(verifyXmlDocument('<TaxInvoice><unclosed></TaxInvoice>').valid).toBe(false);
    expect(verifyXmlDocument('not xml at all').valid).toBe(false);
  });

  it('is the standard\'s profile: inclusive c14n then the XPath filter, SHA-256, RSA-SHA256, ' +
    'the certificate in KeyInfo, ds: declared on the Signature', async () => {
    const signed = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    const signedInfo = /<ds:SignedInfo>([\s\S]*)<\/ds:SignedInfo>/.exec(signed.xml)![1];
    expect(signedInfo).toBe(
      `<ds:CanonicalizationMethod Algorithm="${INCLUSIVE_C14N}"></ds:CanonicalizationMethod>` +
      '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256">' +
      '</ds:SignatureMethod><ds:Reference URI=""><ds:Transforms>' +
      `<ds:Transform Algorithm="${INCLUSIVE_C14N}"></ds:Transform>` +
      `<ds:Transform Algorithm="${XPATH_FILTER}"><ds:XPath>${NTS_XPATH}</ds:XPath>` +
      '</ds:Transform></ds:Transforms>' +
      '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></ds:DigestMethod>' +
      `<ds:DigestValue>${/<ds:DigestValue>([^<]+)</.exec(signed.xml)![1]}</ds:DigestValue>` +
      '</ds:Reference>');
    expect(NTS_XPATH).toBe("not(self::*[name()='TaxInvoice'] | ancestor-or-self::*" +
      "[name()='ExchangedDocument'] | ancestor-or-self::ds:Signature)");
    expect(signed.xml).toContain('</ExchangedDocument><ds:Signature ' +
      'xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo>');
    expect(signed.xml).toContain('</ds:Signature><TaxInvoiceDocument>');
    expect(signed.xml).toContain('<ds:KeyInfo><ds:X509Data><ds:X509Certificate>' +
      `${signer.certificate.toString('base64')}</ds:X509Certificate>`);
    expect(signed.certificate).toBe(signer.certificate.toString('base64'));
  });
});

describe('the document', () => {
  it('escapes text and writes the payment breakdown with the sign of the total', async () => {
    const positive = (await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT,
      NUMBERING)).xml;
    expect(positive).toContain('클라우드 사용료 &lt;월&gt; &amp; "부가"');
    expect(positive).toMatch(/<TypeCode>10<\/TypeCode><PaidAmount>100000<\/PaidAmount>/);
    expect(positive).toMatch(/<TypeCode>30<\/TypeCode><PaidAmount>20000<\/PaidAmount>/);
    expect(positive).toMatch(/<TypeCode>40<\/TypeCode><PaidAmount>60000<\/PaidAmount>/);
    expect(positive).not.toMatch(/<TypeCode>20<\/TypeCode>/);
    const negative = (await signTaxInvoiceXml(row('TAXABLE', 4, -1), signer, ISSUED_AT,
      NUMBERING)).xml;
    expect(negative).toMatch(/<TypeCode>10<\/TypeCode><PaidAmount>-100000<\/PaidAmount>/);
  });

  it('leaves out the payment means when none is given', async () => {
    const input = row('TAXABLE', null);
    input.invoice = { ...input.invoice, payment: null };
    expect((await signTaxInvoiceXml(input, signer, ISSUED_AT, NUMBERING)).xml)
      .not.toContain('SpecifiedPaymentMeans');
  });

  it('names a thirteen-digit recipient as a resident or a foreigner, and thirteen nines (a ' +
    'foreigner without a number) as a foreigner', async () => {
    for (const [number, code] of [['9001011234567', '02'], ['9001015234567', '03'],
      ['9999999999999', '03'], ['2208162517', '01']]) {
      const input = row('TAXABLE', null);
      input.invoice = { ...input.invoice,
        supplied: { ...input.invoice.supplied, identificationNumber: number! } };
      const { xml } = await signTaxInvoiceXml(input, signer, ISSUED_AT, NUMBERING);
      expect(text(xml, 'BusinessTypeCode')).toBe(code);
    }
  });

  it('numbers a document by its issue date in Korea, the system code and the counter', async () => {
    const number = async (issuedAt: Date, counter: bigint) => (await signTaxInvoiceXml(
      row('TAXABLE', null), signer, issuedAt, { systemCode: '41000008', counter })).approvalNumber;
    expect(await number(ISSUED_AT, 1n)).toBe('202611214100000800000001');
    expect(await number(new Date('2026-11-20T14:59:59Z'), 35n)).toBe('20261120410000080000000z');
  });

  it('keeps the type codes in one table', async () => {
    expect(documentTypeCode('TAXABLE', false))
      .toBe(DOCUMENT_CLASSIFICATIONS.TAX_INVOICE + DOCUMENT_KINDS.NORMAL);
    expect(documentTypeCode('TAX_FREE', true))
      .toBe(DOCUMENT_CLASSIFICATIONS.AMENDED_INVOICE + DOCUMENT_KINDS.NORMAL);
  });
});

describe('a trustee document (위수탁)', () => {
  // The trustee 220-81-62517 issues for the supplier 123-45-67891; the recipient is another
  // business. The trustee signs (the sandbox signer stands for its certificate).
  function trusteeRow(taxType: TaxType, reason: number | null, sign = 1): TaxInvoiceRow {
    const input = row(taxType, reason, sign);
    input.invoice = { ...input.invoice,
      supplied: { ...input.invoice.supplied, identificationNumber: '1248100998' },
      broker: { identificationNumber: '2208162517', taxRegistrationId: '0002',
        organizationName: '수탁판매 주식회사', representativeName: '최수탁',
        address: '서울특별시 강남구 테헤란로 1', businessType: '도소매', businessItem: '위탁판매',
        manager: { email: 'trustee@example.co.kr', name: '김수탁', telephone: null } } };
    return input;
  }

  for (const [taxType, reason, sign, typeCode] of [['TAXABLE', null, 1, '0103'],
    ['ZERO_RATED', null, 1, '0105'], ['TAX_FREE', null, 1, '0303'], ['TAXABLE', 2, 1, '0203'],
    ['ZERO_RATED', 5, 1, '0205'], ['TAX_FREE', 4, -1, '0403']] as const) {
    it(`${taxType}${reason === null ? '' : ` amendment ${reason}`}: TypeCode ${typeCode}, ` +
      'BrokerParty after InvoiceeParty, signed and verified by etax and xmlsec1', async () => {
      const input = trusteeRow(taxType, reason, sign);
      const signed = await signTaxInvoiceXml(input, signer, ISSUED_AT, NUMBERING);
      expect(verifyXmlDocument(signed.xml)).toEqual({ valid: true,
        certificate: signer.certificate });
      expect(xmlsec1Verify(signed.xml)).toMatchObject({ referenceValid: true,
        signatureValid: true });
      expect(text(signed.xml, 'TypeCode')).toBe(typeCode);
      const settlement = parse(signed.xml).getElementsByTagNameNS(TAX_INVOICE_NAMESPACE,
        'TaxInvoiceTradeSettlement')[0]!;
      expect(childNames(settlement)).toEqual(['InvoicerParty', 'InvoiceeParty', 'BrokerParty',
        'SpecifiedPaymentMeans', 'SpecifiedPaymentMeans', 'SpecifiedPaymentMeans',
        'SpecifiedMonetarySummation']);
      const [invoicer, , broker] = Array.from(settlement.childNodes)
        .filter((node) => node.nodeType === 1) as Element[];
      // The document is in the supplier's name; the trustee's number is added as BrokerParty.
      expect(childNames(invoicer!)[0]).toBe('ID');
      expect(invoicer!.getElementsByTagNameNS(TAX_INVOICE_NAMESPACE, 'ID')[0]!.textContent)
        .toBe('1234567891');
      expect(childNames(broker!)).toEqual(['ID', 'TypeCode', 'NameText', 'ClassificationCode',
        'SpecifiedOrganization', 'SpecifiedPerson', 'DefinedContact', 'SpecifiedAddress']);
      expect(broker!.getElementsByTagNameNS(TAX_INVOICE_NAMESPACE, 'ID')[0]!.textContent)
        .toBe('2208162517');
      expect(broker!.getElementsByTagNameNS(TAX_INVOICE_NAMESPACE, 'TaxRegistrationID')[0]!
        .textContent).toBe('0002');
      expect(broker!.getElementsByTagNameNS(TAX_INVOICE_NAMESPACE, 'PersonNameText')[0]!
        .textContent).toBe('김수탁');
    });
  }

  it('breaks when the trustee changes', async () => {
    const signed = await signTaxInvoiceXml(trusteeRow('TAXABLE', null), signer, ISSUED_AT,
      NUMBERING);
    for (const [from, to] of [['<NameText>수탁판매 주식회사<', '<NameText>다른 수탁<'],
      ['<TaxRegistrationID>0002<', '<TaxRegistrationID>0003<']]) {
      expect(signed.xml).toContain(from);
      const changed = signed.xml.replace(from!, to!);
      expect(verifyXmlDocument(changed).valid).toBe(false);
      expect(xmlsec1Verify(changed).referenceValid).toBe(false);
    }
    const withoutBroker = signed.xml.replace(/<BrokerParty>[\s\S]*<\/BrokerParty>/, '');
    expect(verifyXmlDocument(withoutBroker).valid).toBe(false);
  });

  it('is taken by the sandbox authority only with the trustee sent beside it', async () => {
    const input = trusteeRow('TAXABLE', null);
    const signed = await signTaxInvoiceXml(input, signer, ISSUED_AT, NUMBERING);
    const request = { issuanceKey: input.issuanceKey, writeDate: '2026-11-20',
      supplierNumber: '1234567891', recipientNumber: '1248100998',
      approvalNumber: signed.approvalNumber, signedDocument: signed.xml, signature: 'x',
      certificate: signed.certificate };
    expect(signedXmlDefect({ ...request, brokerNumber: '2208162517' })).toBeNull();
    expect(signedXmlDefect({ ...request, brokerNumber: null }))
      .toMatch(/names a trustee \(BrokerParty\) that was not sent/);
    expect(signedXmlDefect({ ...request, brokerNumber: '1248100998' }))
      .toMatch(/BrokerParty is not the trustee/);
    const plain = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    expect(signedXmlDefect({ ...request,
      signedDocument: plain.xml, approvalNumber: plain.approvalNumber })).toBeNull();
    expect(signedXmlDefect({ ...request,
      signedDocument: plain.xml, approvalNumber: plain.approvalNumber,
      brokerNumber: '2208162517' })).toMatch(/BrokerParty is not the trustee/);
  });

  it('has no BrokerParty and a 01 kind without a trustee', async () => {
    const signed = await signTaxInvoiceXml(row('TAXABLE', null), signer, ISSUED_AT, NUMBERING);
    expect(signed.xml).not.toContain('BrokerParty');
    expect(documentTypeCode('ZERO_RATED', false, true))
      .toBe(DOCUMENT_CLASSIFICATIONS.TAX_INVOICE + DOCUMENT_KINDS.CONSIGNMENT_ZERO_RATED);
  });
});
