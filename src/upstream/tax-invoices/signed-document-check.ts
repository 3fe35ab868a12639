import {
  elementText,
  findElement,
  parseXmlDocument,
  verifyParsedXmlDocument,
} from '../../domain/xml-signature.ts';
import type { TransmissionRequest } from './index.ts';

// The sandbox tax authority's check of a signed standard XML document (sandbox.ts says what it
// accepts). It is pure and takes only what travels to the authority's thread
// (authority-thread.ts), where the sandbox runs it.

export type SignedDocumentCheck =
  Pick<TransmissionRequest, 'signedDocument' | 'supplierNumber' | 'brokerNumber'> &
  { approvalNumber: string };

const TAX_INVOICE_NAMESPACE =
  'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';

// What is wrong with a signed standard XML document, or null when the authority takes it.
export function signedXmlDefect(request: SignedDocumentCheck): string | null {
  const root = parseXmlDocument(request.signedDocument);
  if (root === null) return 'The document is not well-formed XML.';
  const check = verifyParsedXmlDocument(root);
  if (!check.valid) return check.reason;
  if (root.localName !== 'TaxInvoice' || root.namespaceURI !== TAX_INVOICE_NAMESPACE) {
    return 'The document is not a standard TaxInvoice.';
  }
  const issueId = findElement(root, TAX_INVOICE_NAMESPACE, 'IssueID');
  if (issueId === null || elementText(issueId) !== request.approvalNumber) {
    return 'The signed IssueID is not the approval number sent with the document.';
  }
  const invoicer = findElement(root, TAX_INVOICE_NAMESPACE, 'InvoicerParty');
  const invoicerId = invoicer === null ? null
    : findElement(invoicer, TAX_INVOICE_NAMESPACE, 'ID');
  if (invoicerId === null || elementText(invoicerId) !== request.supplierNumber) {
    return 'The signed InvoicerParty is not the supplier.';
  }
  const broker = findElement(root, TAX_INVOICE_NAMESPACE, 'BrokerParty');
  const brokerId = broker === null ? null : findElement(broker, TAX_INVOICE_NAMESPACE, 'ID');
  const brokerNumber = request.brokerNumber ?? null;
  if ((brokerId === null ? null : elementText(brokerId)) !== brokerNumber) {
    return brokerNumber === null ? 'The signed document names a trustee (BrokerParty) that ' +
      'was not sent with it.' : 'The signed BrokerParty is not the trustee sent with it.';
  }
  return null;
}
