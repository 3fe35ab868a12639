import { execFileSync } from 'node:child_process';
import { verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_CA_CERTIFICATE_PEM } from '../../src/domain/sandbox-ca.ts';
import { NTS_XPATH } from '../../src/domain/xml-signature.ts';

// `xmlsec1 --verify` (libxmlsec, the Debian package xmlsec1) as the outside verifier of the
// e-tax-invoice signature profile, with the etax Sandbox CA as the trust anchor.
//
// libxmlsec canonicalizes the profile's node-set by the letter of Canonical XML 1.0: the root,
// left out of the node-set, still has its namespace nodes and xsi:schemaLocation in it, so it
// writes the schema location and repeats the root's namespaces on every child. The accredited
// certificate authorities' components and Apache Santuario (what the tax authority accepts) write
// the root's namespace declarations once and neither of the others (docs/tax-invoice-xml.md §
// The signature). The same node-set spelled out in XPath terms makes libxmlsec compute the
// digest of that form: the profile's expression, and of the namespace and attribute nodes only
// the root's namespaces. So xmlsec1 verifies the document with that spelling in its Reference;
// the RSA signature, which is over the SignedInfo the signer wrote, is checked on the canonical
// SignedInfo libxmlsec printed with the spelling put back.
export const SPELLED_OUT_XPATH = `${NTS_XPATH} and (count(../namespace::*|.) != ` +
  "count(../namespace::*) or parent::*[name()='TaxInvoice']) and (count(../@*|.) != " +
  "count(../@*) or not(parent::*[name()='TaxInvoice']))";

export type Xmlsec1Verdict = {
  // The Reference digest recomputed by xmlsec1 matched, and the KeyInfo certificate chains to
  // the sandbox CA (xmlsec1 only gets this far with a trusted key).
  referenceValid: boolean;
  // The SignatureValue verifies over SignedInfo as xmlsec1 canonicalized it.
  signatureValid: boolean;
  output: string;
};

const unescapeXml = (text: string) => text.replaceAll('&lt;', '<').replaceAll('&gt;', '>')
  .replaceAll('&amp;', '&');
const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')
  .replaceAll('>', '&gt;');

export function xmlsec1Verify(signedXml: string): Xmlsec1Verdict {
  const folder = mkdtempSync(join(tmpdir(), 'etax-xmlsec1-'));
  try {
    const caFile = join(folder, 'ca.pem');
    const documentFile = join(folder, 'document.xml');
    writeFileSync(caFile, SANDBOX_CA_CERTIFICATE_PEM);
    const original = `<ds:XPath>${escapeXml(NTS_XPATH)}</ds:XPath>`;
    if (!signedXml.includes(original)) {
      return { referenceValid: false, signatureValid: false, output: 'not the profile\'s XPath' };
    }
    writeFileSync(documentFile, signedXml.replace(original,
      `<ds:XPath>${escapeXml(SPELLED_OUT_XPATH)}</ds:XPath>`));
    let output: string;
    try {
      output = execFileSync('xmlsec1', ['--verify', '--trusted-pem', caFile,
        '--enabled-reference-uris', 'empty', '--store-signatures', documentFile],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    }
    const referenceValid = /SignedInfo References \(ok\/all\): 1\/1/.test(output) ||
      /== PreSigned data - start buffer:/.test(output);
    const preSigned = /== PreSigned data - start buffer:\n([\s\S]*?)\n== PreSigned data - end/
      .exec(output)?.[1];
    let signatureValid = false;
    if (referenceValid && preSigned !== undefined) {
      const canonicalSignedInfo = preSigned.replace(escapeXml(SPELLED_OUT_XPATH),
        escapeXml(NTS_XPATH));
      const value = /<ds:SignatureValue>([^<]+)</.exec(signedXml)![1]!;
      const certificate = /<ds:X509Certificate>([^<]+)</.exec(signedXml)![1]!;
      signatureValid = verify('sha256', Buffer.from(canonicalSignedInfo, 'utf8'),
        new X509Certificate(Buffer.from(unescapeXml(certificate).replace(/\s+/g, ''), 'base64'))
          .publicKey, Buffer.from(value.replace(/\s+/g, ''), 'base64'));
    }
    return { referenceValid, signatureValid, output };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
