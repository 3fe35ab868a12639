import { approvalNumber } from '../../../domain/approval-number.ts';
import { seoulDate } from '../../../domain/business-days.ts';
import { signXmlDocument, type XmlSigner } from '../../../domain/xml-signature.ts';
import type { TaxInvoiceRow } from '../store.ts';
import { buildTaxInvoiceXml } from './document.ts';

// The signed standard XML of a document being issued (docs/tax-invoice-xml.md): its approval
// number is given now, from the issue date in Korea, etax's issuing system code and a counter
// value, and is part of what the supplier signs.

export type ApprovalNumbering = { systemCode: string; counter: bigint };

// `YYYYMMDDhhmmss` in Korea (UTC+9, no daylight saving).
function seoulTimestamp(at: Date): string {
  return new Date(at.getTime() + 9 * 3_600_000).toISOString().replace(/[-:T]/g, '')
    .slice(0, 14);
}

export type SignedTaxInvoiceXml = {
  approvalNumber: string;
  xml: string;
  signatureValue: string;
  digest: string;
  // DER, base64.
  certificate: string;
};

export async function signTaxInvoiceXml(
  row: TaxInvoiceRow,
  signer: XmlSigner,
  issuedAt: Date,
  numbering: ApprovalNumbering,
): Promise<SignedTaxInvoiceXml> {
  const number = approvalNumber({ issueDate: seoulDate(issuedAt), ...numbering });
  const xml = buildTaxInvoiceXml({
    issuanceKey: row.issuanceKey,
    invoice: row.invoice,
    taxType: row.taxType,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    amendment: row.amendmentReason === null ? null : { reasonCode: row.amendmentReason,
      originalNtsTransactionId: row.originalNtsTransactionId },
    approvalNumber: number,
    issuedAt: seoulTimestamp(issuedAt),
  });
  const signed = await signXmlDocument(xml, signer);
  return { approvalNumber: number, xml: signed.xml, signatureValue: signed.signatureValue,
    digest: signed.digest, certificate: signer.certificate.toString('base64') };
}
