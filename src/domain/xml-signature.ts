import { createHash, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml, type SignatureAlgorithm } from 'xml-crypto';

// Enveloped XML-DSig signatures (RSA-SHA256) of whole XML documents, as the e-tax-invoice XML
// standard signs them: one Reference to the whole document (URI ""), the enveloped-signature and
// exclusive canonicalization transforms, SHA-256 digests, and the signing certificate in
// KeyInfo/X509Data. xml-crypto does the canonicalization, digests and the Signature element;
// the RSA operation is the caller's, so a private key never has to leave whoever holds it.

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXCLUSIVE_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

// What signs: RSA PKCS#1 v1.5 over SHA-256 of the data, and the certificate (DER) of its key.
export type XmlSigner = { certificate: Buffer; sign(data: Buffer): Buffer };

export type SignedXmlDocument = {
  xml: string;
  // SignatureValue, base64.
  signatureValue: string;
  // SHA-256 of the signed document's bytes, hex.
  digest: string;
};

// The RSA-SHA256 algorithm of xml-crypto with the signing handed to the signer.
function delegatedRsaSha256(signer: XmlSigner): new () => SignatureAlgorithm {
  return class DelegatedRsaSha256 {
    getSignature(signedInfo: string | Buffer): string {
      return signer.sign(Buffer.from(signedInfo)).toString('base64');
    }
    verifySignature(): boolean {
      throw new Error('a signing algorithm does not verify');
    }
    getAlgorithmName() {
      return RSA_SHA256;
    }
  } as unknown as new () => SignatureAlgorithm;
}

// Signs the document: the Signature element is appended as the root's last child.
export function signXmlDocument(xml: string, signer: XmlSigner): SignedXmlDocument {
  const signature = new SignedXml({
    // Never used as a key: the delegated algorithm signs. xml-crypto only checks one is set.
    privateKey: 'held by the signer',
    // KeyInfo written directly: xml-crypto would parse the certificate again for every document.
    getKeyInfoContent: () => `<X509Data><X509Certificate>${
      signer.certificate.toString('base64')}</X509Certificate></X509Data>`,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: EXCLUSIVE_C14N,
  });
  signature.SignatureAlgorithms = { [RSA_SHA256]: delegatedRsaSha256(signer) };
  signature.addReference({ xpath: '/*', isEmptyUri: true, digestAlgorithm: SHA256,
    transforms: [ENVELOPED, EXCLUSIVE_C14N] });
  signature.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  const signed = signature.getSignedXml();
  const signatureValue = /<SignatureValue>([^<]+)<\/SignatureValue>/
    .exec(signature.getSignatureXml())![1]!;
  return {
    xml: signed,
    signatureValue,
    digest: createHash('sha256').update(signed, 'utf8').digest('hex'),
  };
}

export type XmlSignatureCheck =
  | { valid: true; certificate: Buffer }
  | { valid: false; reason: string };

// Checks a document signed as above: exactly one Signature, under the root, whose one reference
// covers the whole document, made with the key of the certificate in its KeyInfo. The caller
// decides whether that certificate is one it trusts.
export function verifyXmlDocument(xml: string): XmlSignatureCheck {
  let document;
  try {
    document = new DOMParser({ errorHandler: (level, message) => {
      if (level !== 'warning') throw new Error(String(message));
    } }).parseFromString(xml, 'application/xml');
  } catch {
    return { valid: false, reason: 'The document is not well-formed XML.' };
  }
  const root = document.documentElement;
  if (root === null) return { valid: false, reason: 'The document is not well-formed XML.' };
  const signatures = document.getElementsByTagNameNS(DSIG_NS, 'Signature');
  if (signatures.length !== 1 || signatures[0]!.parentNode !== root) {
    return { valid: false, reason: 'The document must carry one Signature, under its root.' };
  }
  const certificates = signatures[0]!.getElementsByTagNameNS(DSIG_NS, 'X509Certificate');
  if (certificates.length !== 1) {
    return { valid: false, reason: 'The signature must name one certificate in KeyInfo.' };
  }
  const certificate = Buffer.from((certificates[0]!.textContent ?? '').replace(/\s+/g, ''),
    'base64');
  let publicCert: string;
  try {
    publicCert = new X509Certificate(certificate).toString();
  } catch {
    return { valid: false, reason: 'The certificate in KeyInfo is not an X.509 certificate.' };
  }
  const check = new SignedXml({ publicCert, getCertFromKeyInfo: () => null });
  try {
    check.loadSignature(signatures[0]!);
    if (!check.checkSignature(xml)) return { valid: false, reason: 'The signature is not valid.' };
  } catch (error) {
    return { valid: false, reason: `The signature is not valid: ${(error as Error).message}` };
  }
  const references = check.getSignedReferences();
  if (references.length !== 1) {
    return { valid: false, reason: 'The signature must cover the whole document once.' };
  }
  const uris = Array.from(signatures[0]!.getElementsByTagNameNS(DSIG_NS, 'Reference'))
    .map((reference) => reference.getAttribute('URI'));
  if (uris.length !== 1 || uris[0] !== '') {
    return { valid: false, reason: 'The signature must cover the whole document (URI "").' };
  }
  return { valid: true, certificate };
}
