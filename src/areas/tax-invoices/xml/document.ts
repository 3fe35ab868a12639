import type { UnsignedXmlDocument } from '../../../domain/xml-signature.ts';
import type { Broker, Invoice, Manager, Payment, TaxType } from '../schemas.ts';
import {
  amendmentStatusCode,
  documentTypeCode,
  PAYMENT_MEANS_CODES,
  PURPOSE_CODES,
  recipientIdCode,
  TAX_INVOICE_NAMESPACE,
  TAX_INVOICE_SCHEMA_LOCATION,
} from './codes.ts';

// The standard e-tax-invoice XML document (KEC/NTS `TaxInvoice`, docs/tax-invoice-xml.md) of one
// etax document, before it is signed. Elements come in the order of the standard's schema;
// optional ones are left out when the document has no value for them. The elements are written
// as Canonical XML writes them (no attributes or namespace declarations below the root, an end
// tag for every element, text escaped), so the signature's canonical octets are the text itself
// (src/domain/xml-signature.ts): names and remarks can hold any character the validation let
// through.

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

// What the document is made from: the stored document and the facts of its issuance.
export type XmlDocumentInput = {
  issuanceKey: string;
  invoice: Invoice;
  taxType: TaxType;
  totals: { supplyCost: number; tax: number; total: number };
  amendment: { reasonCode: number; originalNtsTransactionId: string | null } | null;
  // The 24-digit approval number given at issuance.
  approvalNumber: string;
  // When it was issued, `YYYYMMDDhhmmss` in Korea.
  issuedAt: string;
};

const compactDate = (date: string) => date.replaceAll('-', '');

type Child = [name: string, value: string | number | null | undefined] | [name: string,
  children: Child[]];

// Text as Canonical XML escapes it. The validation lets no control character through, so there
// is no carriage return to escape.
const escapeText = (value: string) => value.replace(/[&<>]/g, (character) =>
  (character === '&' ? '&amp;' : character === '<' ? '&lt;' : '&gt;'));

// `children` written out: [name, text] elements (left out when the text is null or empty) and
// [name, [...]] elements (left out when they would be empty).
function write(children: Child[]): string {
  let out = '';
  for (const [name, content] of children) {
    if (Array.isArray(content)) {
      const inner = write(content);
      if (inner !== '') out += `<${name}>${inner}</${name}>`;
    } else if (content !== null && content !== undefined && content !== '') {
      out += `<${name}>${escapeText(String(content))}</${name}>`;
    }
  }
  return out;
}

function contact(manager: Manager | undefined): Child[] {
  if (manager === undefined) return [];
  return [['PersonNameText', manager.name], ['TelephoneCommunication', manager.telephone],
    ['URICommunication', manager.email]];
}

function invoicerParty(supplier: Invoice['supplier']): Child[] {
  return [
    ['ID', supplier.identificationNumber],
    ['TypeCode', supplier.businessType],
    ['NameText', supplier.organizationName],
    ['ClassificationCode', supplier.businessItem],
    ['SpecifiedOrganization', [['TaxRegistrationID', supplier.taxRegistrationId]]],
    ['SpecifiedPerson', [['NameText', supplier.representativeName]]],
    ['DefinedContact', contact(supplier.manager)],
    ['SpecifiedAddress', [['LineOneText', supplier.address]]],
  ];
}

function invoiceeParty(supplied: Invoice['supplied']): Child[] {
  return [
    ['ID', supplied.identificationNumber],
    ['TypeCode', supplied.businessType],
    ['NameText', supplied.organizationName],
    ['ClassificationCode', supplied.businessItem],
    ['SpecifiedOrganization', [['TaxRegistrationID', supplied.taxRegistrationId],
      ['BusinessTypeCode', recipientIdCode(supplied.identificationNumber)]]],
    ['SpecifiedPerson', [['NameText', supplied.representativeName]]],
    ['PrimaryDefinedContact', contact(supplied.managers[0])],
    ['SecondaryDefinedContact', contact(supplied.managers[1])],
    ['SpecifiedAddress', [['LineOneText', supplied.address]]],
  ];
}

// The trustee of a trustee document (위수탁), in the shape of the supplier's party: the standard
// puts it after the recipient, with one DefinedContact.
function brokerParty(broker: Broker | null | undefined): Child[] {
  if (broker == null) return [];
  return [
    ['ID', broker.identificationNumber],
    ['TypeCode', broker.businessType],
    ['NameText', broker.organizationName],
    ['ClassificationCode', broker.businessItem],
    ['SpecifiedOrganization', [['TaxRegistrationID', broker.taxRegistrationId]]],
    ['SpecifiedPerson', [['NameText', broker.representativeName]]],
    ['DefinedContact', contact(broker.manager ?? undefined)],
    ['SpecifiedAddress', [['LineOneText', broker.address]]],
  ];
}

// One SpecifiedPaymentMeans per part given and not zero. The parts carry the sign of the
// total: an amendment that lowers the amounts lowers what was paid.
function paymentMeans(payment: Payment | null | undefined, total: number): Child[] {
  if (payment == null) return [];
  const sign = total < 0 ? -1 : 1;
  return (Object.keys(PAYMENT_MEANS_CODES) as Array<keyof typeof PAYMENT_MEANS_CODES>)
    .filter((part) => (payment[part] ?? 0) !== 0)
    .map((part): Child => ['SpecifiedPaymentMeans', [['TypeCode', PAYMENT_MEANS_CODES[part]],
      ['PaidAmount', sign * payment[part]!]]]);
}

function lineItems(input: XmlDocumentInput): Child[] {
  return input.invoice.items.map((item, index): Child => ['TaxInvoiceTradeLineItem', [
    ['SequenceNumeric', index + 1],
    ['DescriptionText', item.description],
    ['InvoiceAmount', item.supplyCost],
    ['ChargeableUnitQuantity', item.quantity],
    ['InformationText', item.specification],
    ['NameText', item.name],
    ['PurchaseExpiryDateTime', compactDate(item.date)],
    // A tax-exempt item carries a tax of 0, as the documents Hometax itself issues do.
    ['TotalTax', [['CalculatedAmount', input.taxType === 'TAX_FREE' ? 0 : item.tax]]],
    ['UnitPrice', [['UnitAmount', item.unitPrice]]],
  ]]);
}

const ROOT_START_TAG = `<TaxInvoice xmlns="${TAX_INVOICE_NAMESPACE}" xmlns:xsi="${
  XSI_NAMESPACE}" xsi:schemaLocation="${TAX_INVOICE_SCHEMA_LOCATION}">`;
const ROOT_NAMESPACES = [['', TAX_INVOICE_NAMESPACE], ['xsi', XSI_NAMESPACE]] as const;

export function buildTaxInvoiceXml(input: XmlDocumentInput): UnsignedXmlDocument {
  const { invoice, totals, amendment } = input;
  const exchangedDocument = write([
    ['ExchangedDocument', [['ID', input.issuanceKey], ['IssueDateTime', input.issuedAt]]],
  ]);
  const signedContent = write([
    ['TaxInvoiceDocument', [
      ['IssueID', input.approvalNumber],
      ['TypeCode', documentTypeCode(input.taxType, amendment !== null, invoice.broker != null)],
      ['DescriptionText', invoice.description],
      ['IssueDateTime', compactDate(invoice.date)],
      ['AmendmentStatusCode', amendment === null ? null
        : amendmentStatusCode(amendment.reasonCode)],
      ['PurposeCode', PURPOSE_CODES[invoice.purpose]],
      ['OriginalIssueID', amendment?.originalNtsTransactionId],
    ]],
    ['TaxInvoiceTradeSettlement', [
      ['InvoicerParty', invoicerParty(invoice.supplier)],
      ['InvoiceeParty', invoiceeParty(invoice.supplied)],
      ['BrokerParty', brokerParty(invoice.broker)],
      ...paymentMeans(invoice.payment, totals.total),
      ['SpecifiedMonetarySummation', [
        ['ChargeTotalAmount', totals.supplyCost],
        ['TaxTotalAmount', input.taxType === 'TAX_FREE' ? 0 : totals.tax],
        ['GrandTotalAmount', totals.total],
      ]],
    ]],
    ...lineItems(input),
  ]);
  return { rootStartTag: ROOT_START_TAG, namespaces: ROOT_NAMESPACES, exchangedDocument,
    signedContent, rootEndTag: '</TaxInvoice>' };
}
