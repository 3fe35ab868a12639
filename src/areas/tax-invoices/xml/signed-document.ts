import { createHash } from 'node:crypto';
import { seoulDate } from '../../../domain/business-days.ts';
import { signXmlDocument, type XmlSigner } from '../../../domain/xml-signature.ts';
import type { TaxInvoiceRow } from '../store.ts';
import { buildTaxInvoiceXml } from './document.ts';

// The signed standard XML of a document being issued (docs/tax-invoice-xml.md): its approval
// number is given now, from the issue date, and is part of what the supplier signs.

// The middle block of an approval number names the issuing system; 41 is an ASP. The first eight
// digits are the issue date in Korea, the last fourteen a serial made from the issuance key, so
// the same document issued the same day always gets the same number.
const ISSUING_SYSTEM = '41';
const SERIAL_DIGITS = 14;

export function approvalNumberOf(issuanceKey: string, issuedAt: Date): string {
  const digest = createHash('sha256').update(issuanceKey).digest();
  const serial = (digest.readBigUInt64BE(0) % 10n ** BigInt(SERIAL_DIGITS)).toString()
    .padStart(SERIAL_DIGITS, '0');
  return `${seoulDate(issuedAt).replaceAll('-', '')}${ISSUING_SYSTEM}${serial}`;
}

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

export function signTaxInvoiceXml(
  row: TaxInvoiceRow,
  signer: XmlSigner,
  issuedAt: Date,
): SignedTaxInvoiceXml {
  const approvalNumber = approvalNumberOf(row.issuanceKey, issuedAt);
  const xml = buildTaxInvoiceXml({
    issuanceKey: row.issuanceKey,
    invoice: row.invoice,
    taxType: row.taxType,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    amendment: row.amendmentReason === null ? null : { reasonCode: row.amendmentReason,
      originalNtsTransactionId: row.originalNtsTransactionId },
    approvalNumber,
    issuedAt: seoulTimestamp(issuedAt),
  });
  const signed = signXmlDocument(xml, signer);
  return { approvalNumber, xml: signed.xml, signatureValue: signed.signatureValue,
    digest: signed.digest, certificate: signer.certificate.toString('base64') };
}
