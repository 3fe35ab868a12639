// etax writes the canonical octets of the documents it signs itself (src/domain/xml-signature.ts),
// so they are checked against libxmlsec on many documents: 1,000 generated documents of every
// kind, with random Korean text, every character the validation lets through and documents of
// 99 items, are signed by etax, then signed again by `xmlsec1 --sign` from a template of each
// (the same SignedInfo, the node-set spelled out as test/helpers/xmlsec1.ts explains, digest and
// signature emptied). xmlsec1's digest must be etax's, and etax's SignatureValue must verify over
// the canonical SignedInfo xmlsec1 printed: the two agree on every digest and signature. etax's
// own verifier accepts every document too.
import { execFileSync } from 'node:child_process';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice, TaxType } from '../../../../src/areas/tax-invoices/schemas.ts';
import type { TaxInvoiceRow } from '../../../../src/areas/tax-invoices/store.ts';
import { signTaxInvoiceXml } from '../../../../src/areas/tax-invoices/xml/signed-document.ts';
import {
  NTS_XPATH,
  verifyXmlDocument,
  type XmlSigner,
} from '../../../../src/domain/xml-signature.ts';
import { sandboxSigner } from '../../../helpers/sandbox-signer.ts';
import { SPELLED_OUT_XPATH } from '../../../helpers/xmlsec1.ts';

const DOCUMENT_COUNT = 1_000;
const BATCH_SIZE = 100;

let signer: XmlSigner;
let folder: string;
let keyFile: string;

beforeAll(async () => {
  const made = await sandboxSigner();
  signer = made.signer;
  const { privateKey } = made;
  folder = mkdtempSync(join(tmpdir(), 'etax-xml-differential-'));
  keyFile = join(folder, 'key.pem');
  writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }));
});
afterAll(() => {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

// A deterministic generator (SHA-256 of the seed and a count), so that a failure names a
// document that can be made again.
function generator(seed: number) {
  let count = 0;
  const next = () => createHash('sha256').update(`${seed}:${count++}`).digest()
    .readUInt32BE(0) / 4_294_967_296;
  const integer = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const hangul = (length: number) => Array.from({ length },
    () => String.fromCharCode(integer(0xac00, 0xd7a3))).join('');
  return { next, integer, hangul };
}

// Every code point the validation lets through (docs/tax-invoices.md § Validation): the BMP but
// C0 controls, DEL, surrogates, U+FFFE and U+FFFF.
const ALLOWED = Array.from({ length: 0xfffe }, (_, code) => code)
  .filter((code) => code >= 0x20 && code !== 0x7f && (code < 0xd800 || code > 0xdfff))
  .map((code) => String.fromCharCode(code)).join('');
const CHUNK = Math.ceil(ALLOWED.length / DOCUMENT_COUNT);

const KINDS: Array<{ taxType: TaxType; reason: number | null; sign: number }> = [
  { taxType: 'TAXABLE', reason: null, sign: 1 }, { taxType: 'ZERO_RATED', reason: null, sign: 1 },
  { taxType: 'TAX_FREE', reason: null, sign: 1 }, { taxType: 'TAXABLE', reason: 1, sign: -1 },
  { taxType: 'TAXABLE', reason: 2, sign: 1 }, { taxType: 'TAXABLE', reason: 3, sign: -1 },
  { taxType: 'TAXABLE', reason: 4, sign: -1 }, { taxType: 'ZERO_RATED', reason: 5, sign: 1 },
  { taxType: 'TAXABLE', reason: 6, sign: -1 }, { taxType: 'TAX_FREE', reason: 4, sign: -1 },
];

function generatedRow(index: number): TaxInvoiceRow {
  const random = generator(index + 1);
  const kind = KINDS[index % KINDS.length]!;
  // Every character the validation lets through appears in some document's remark.
  const characters = ALLOWED.slice(index * CHUNK, (index + 1) * CHUNK);
  const text = (max: number) => random.next() < 0.2 ? characters.slice(0, max)
    : random.hangul(random.integer(1, max));
  const itemCount = index % 50 === 7 ? 99 : random.integer(1, 16);
  const items = Array.from({ length: itemCount }, (_, item) => {
    const supplyCost = kind.sign * random.integer(0, 10_000_000);
    return { date: '2026-11-20', name: `${text(30)} ${item}`,
      specification: random.next() < 0.5 ? null : text(20),
      quantity: random.next() < 0.5 ? null : kind.sign * random.integer(1, 1000),
      unitPrice: random.next() < 0.5 ? null : random.integer(0, 1_000_000), supplyCost,
      tax: kind.taxType === 'TAXABLE' ? Math.round(supplyCost / 10)
        : kind.taxType === 'ZERO_RATED' ? 0 : null,
      description: random.next() < 0.5 ? null : text(40) };
  });
  const invoice = {
    date: '2026-11-20', purpose: random.next() < 0.5 ? 'CLAIM' : 'RECEIPT',
    supplier: { identificationNumber: '1234567891', taxRegistrationId: null,
      organizationName: text(40), representativeName: random.hangul(3), address: text(60),
      businessType: text(20), businessItem: text(20),
      manager: { email: 'tax@example.co.kr', name: random.hangul(3), telephone: '02-1234-5678' } },
    supplied: { identificationNumber: random.next() < 0.3 ? '9999999999999' : '2208162517',
      taxRegistrationId: random.next() < 0.3 ? '0001' : null, organizationName: text(40),
      representativeName: random.hangul(3), address: random.next() < 0.5 ? null : text(60),
      businessType: null, businessItem: null,
      managers: [{ email: 'account@example.com', name: random.hangul(3), telephone: null }] },
    items, description: characters,
    payment: random.next() < 0.5 ? null : { cash: random.integer(0, 1000), check: null,
      note: null, credit: random.integer(0, 1000) },
  } as unknown as Invoice;
  const supplyCost = items.reduce((sum, item) => sum + item.supplyCost, 0);
  const tax = items.reduce((sum, item) => sum + (item.tax ?? 0), 0);
  return { issuanceKey: `txi_differential_${index}`, invoice, taxType: kind.taxType,
    supplyCostTotal: supplyCost, taxTotal: tax, totalAmount: supplyCost + tax,
    amendmentReason: kind.reason,
    originalNtsTransactionId: kind.reason === null ? null : '2026111941000000a1b2c3d4',
  } as TaxInvoiceRow;
}

const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')
  .replaceAll('>', '&gt;');
const valueOf = (xml: string, name: string) =>
  new RegExp(`<ds:${name}>([^<]*)</ds:${name}>`).exec(xml)![1]!.replace(/\s+/g, '');

// xmlsec1 signs the templates of a batch in one run; for each, in order, its digest and the
// canonical SignedInfo it signed (with the profile's XPath put back).
function xmlsec1Sign(templates: string[], batch: number) {
  const files = templates.map((template, index) => {
    const file = join(folder, `document-${batch}-${index}.xml`);
    writeFileSync(file, template);
    return file;
  });
  const output = execFileSync('xmlsec1', ['--sign', '--privkey-pem', keyFile,
    '--store-signatures', ...files], { encoding: 'utf8', maxBuffer: 1 << 30,
    // xmlsec1 reports that it cannot check the template's certificate; the signing is unaffected.
    stdio: ['ignore', 'pipe', 'ignore'] });
  const signedInfos = [...output.matchAll(
    /== PreSigned data - start buffer:\n([\s\S]*?)\n== PreSigned data - end buffer/g)]
    .map((match) => match[1]!.replace(escapeXml(SPELLED_OUT_XPATH), escapeXml(NTS_XPATH)));
  const digests = signedInfos.map((signedInfo) => valueOf(signedInfo, 'DigestValue'));
  return { signedInfos, digests };
}

describe('etax\'s canonical octets against xmlsec1', () => {
  it(`agree on every digest and signature of ${DOCUMENT_COUNT} generated documents`, async () => {
    const issuedAt = new Date('2026-11-20T01:00:00Z');
    const publicKey = new X509Certificate(signer.certificate).publicKey;
    let itemsMax = 0;
    for (let batch = 0; batch * BATCH_SIZE < DOCUMENT_COUNT; batch += 1) {
      const signed = await Promise.all(Array.from({ length: BATCH_SIZE }, (_, offset) => {
        const index = batch * BATCH_SIZE + offset;
        const row = generatedRow(index);
        itemsMax = Math.max(itemsMax, row.invoice.items.length);
        return signTaxInvoiceXml(row, signer, issuedAt,
          { systemCode: '41000000', counter: BigInt(index) * 7_919n });
      }));
      const templates = signed.map(({ xml }) => xml
        .replace(`<ds:XPath>${escapeXml(NTS_XPATH)}</ds:XPath>`,
          `<ds:XPath>${escapeXml(SPELLED_OUT_XPATH)}</ds:XPath>`)
        .replace(/<ds:DigestValue>[^<]*</, '<ds:DigestValue><')
        .replace(/<ds:SignatureValue>[^<]*</, '<ds:SignatureValue><'));
      const libxmlsec = xmlsec1Sign(templates, batch);
      expect(libxmlsec.digests).toHaveLength(BATCH_SIZE);
      signed.forEach((document, offset) => {
        const name = `document ${batch * BATCH_SIZE + offset}`;
        expect(libxmlsec.digests[offset], name).toBe(valueOf(document.xml, 'DigestValue'));
        expect(verify('sha256', Buffer.from(libxmlsec.signedInfos[offset]!, 'utf8'),
          publicKey,
          Buffer.from(document.signatureValue, 'base64')), name).toBe(true);
        expect(verifyXmlDocument(document.xml).valid, name).toBe(true);
      });
    }
    expect(itemsMax).toBe(99);
  }, 600_000);
});
