import {
  createHash,
  sign,
  verify as verifyRsa,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { readXml, XmlReadError, type XmlElement } from './xml-reader.ts';

// XML-DSig signatures of the e-tax-invoice standard (docs/tax-invoice-xml.md § The signature):
// the profile the tax authority and the accredited certificate authorities' signing components
// use. One Reference, URI "", with two transforms in this order: inclusive canonicalization, then
// an XPath filter that leaves out the root element's own node, `ExchangedDocument` (which the
// transmitting system fills in) and the signature; a SHA-256 digest; SignedInfo canonicalized
// inclusively and signed with RSA-SHA256 (PKCS#1 v1.5); the certificate in KeyInfo. The
// `ds:`-prefixed Signature sits between ExchangedDocument and TaxInvoiceDocument and declares
// `xmlns:ds` itself.
//
// The canonical form of that node-set follows Apache Santuario and the certificate authorities'
// components, which differ from the letter of Canonical XML 1.0 (and from libxmlsec) on one
// point: the root element is not in the node-set, yet its namespace declarations are written
// once, bare, at the start of the octets, its other attributes (xsi:schemaLocation) are not
// written, and its children do not repeat the declarations. No library on npm implements either
// the XPath filter transform or that rendering, so both are here, for the documents of this
// profile only: the signer writes the canonical octets of the document it built directly, the
// verifier canonicalizes any document its strict reader (xml-reader.ts) reads.

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

export const INCLUSIVE_C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const XPATH_FILTER = 'http://www.w3.org/TR/1999/REC-xpath-19991116';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const NTS_XPATH = "not(self::*[name()='TaxInvoice'] | " +
  "ancestor-or-self::*[name()='ExchangedDocument'] | ancestor-or-self::ds:Signature)";

// What signs: RSA PKCS#1 v1.5 over SHA-256 of the data, and the certificate (DER) of its key.
// Asynchronous, so that the RSA operation, most of a document's signing, can run off the event
// loop: on a thread of its own, or on libuv's thread pool (node:crypto's sign with a callback).
export type XmlSigner = { certificate: Buffer; sign(data: Buffer): Promise<Buffer> };

const signWithCallback = promisify(sign);

// The signing function of an XmlSigner for an RSA private key, on the thread pool.
export const signOnThreadPool = (privateKey: KeyObject) =>
  (data: Buffer): Promise<Buffer> => signWithCallback('sha256', data, privateKey);

export type SignedXmlDocument = {
  xml: string;
  // SignatureValue, base64.
  signatureValue: string;
  // SHA-256 of the signed document's bytes, hex.
  digest: string;
};

// A document to sign, as its builder wrote it. `namespaces` are the root's namespace
// declarations ('' for the default one), the only ones in the document; `signedContent` is the
// root's content after ExchangedDocument, already in canonical form: no attributes or namespace
// declarations, every element with an end tag, text escaped as Canonical XML escapes it (`&`,
// `<`, `>`; no carriage return).
export type UnsignedXmlDocument = {
  rootStartTag: string;
  namespaces: ReadonlyArray<readonly [prefix: string, uri: string]>;
  exchangedDocument: string;
  signedContent: string;
  rootEndTag: string;
};

const escapeAttribute = (value: string) => value.replace(/[&<"\t\n\r]/g, (character) => ({
  '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;',
})[character]!);
const escapeText = (value: string) => value.replace(/[&<>\r]/g, (character) => ({
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' })[character]!);

// Namespace declarations in canonical order: the default one first, then by prefix.
function declarations(namespaces: Iterable<readonly [string, string]>): string {
  return [...namespaces].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([prefix, uri]) => ` ${prefix === '' ? 'xmlns' : `xmlns:${prefix}`}="${
      escapeAttribute(uri)}"`).join('');
}

// SignedInfo as written in the document (its canonical form but for the namespace declarations
// it inherits, which canonicalization writes on it).
function signedInfoContent(digestValue: string): string {
  return `<ds:CanonicalizationMethod Algorithm="${INCLUSIVE_C14N}"></ds:CanonicalizationMethod>` +
    `<ds:SignatureMethod Algorithm="${RSA_SHA256}"></ds:SignatureMethod>` +
    '<ds:Reference URI=""><ds:Transforms>' +
    `<ds:Transform Algorithm="${INCLUSIVE_C14N}"></ds:Transform>` +
    `<ds:Transform Algorithm="${XPATH_FILTER}"><ds:XPath>${escapeText(NTS_XPATH)}</ds:XPath>` +
    '</ds:Transform></ds:Transforms>' +
    `<ds:DigestMethod Algorithm="${SHA256}"></ds:DigestMethod>` +
    `<ds:DigestValue>${digestValue}</ds:DigestValue></ds:Reference>`;
}

// NEL (U+0085) and LINE SEPARATOR (U+2028) are text in XML 1.0 but line ends to XML 1.1 and to
// some parsers (xmldom among them), which would read them as a line feed and no longer find the
// signed text. The document writes them as character references, which every parser reads as the
// character itself; the canonical octets keep the characters.
const asDocumentText = (canonical: string) => canonical.replace(/[\u0085\u2028]/g,
  (character) => `&#x${character.charCodeAt(0).toString(16).toUpperCase()};`);

export async function signXmlDocument(document: UnsignedXmlDocument, signer: XmlSigner):
  Promise<SignedXmlDocument> {
  const referenceOctets = declarations(document.namespaces) + document.signedContent;
  const digestValue = createHash('sha256').update(referenceOctets, 'utf8').digest('base64');
  const content = signedInfoContent(digestValue);
  const inScope = new Map(document.namespaces);
  inScope.set('ds', DSIG_NS);
  const canonicalSignedInfo = `<ds:SignedInfo${declarations(inScope)}>${content}</ds:SignedInfo>`;
  const signatureValue = (await signer.sign(Buffer.from(canonicalSignedInfo, 'utf8')))
    .toString('base64');
  const xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + document.rootStartTag +
    asDocumentText(document.exchangedDocument) +
    `<ds:Signature xmlns:ds="${DSIG_NS}"><ds:SignedInfo>${content}</ds:SignedInfo>` +
    `<ds:SignatureValue>${signatureValue}</ds:SignatureValue><ds:KeyInfo><ds:X509Data>` +
    `<ds:X509Certificate>${signer.certificate.toString('base64')}</ds:X509Certificate>` +
    '</ds:X509Data></ds:KeyInfo></ds:Signature>' +
    asDocumentText(document.signedContent) + document.rootEndTag;
  return { xml, signatureValue,
    digest: createHash('sha256').update(xml, 'utf8').digest('hex') };
}

export type XmlSignatureCheck =
  | { valid: true; certificate: Buffer }
  | { valid: false; reason: string };

class OutsideProfile extends Error {}

const elementChildren = (element: XmlElement): XmlElement[] => element.children
  .filter((child): child is XmlElement => child.kind === 'element');
const isDsig = (element: XmlElement | undefined, localName: string): element is XmlElement =>
  element?.namespaceURI === DSIG_NS && element.localName === localName;
const isSignature = (element: XmlElement) =>
  element.namespaceURI === DSIG_NS && element.localName === 'Signature';
const textOf = (element: XmlElement): string => element.children
  .map((child) => (child.kind === 'text' ? child.data : textOf(child))).join('');

// The attributes other than namespace declarations, in canonical order (namespace URI, then
// local name; attributes without a namespace first).
function ownAttributes(element: XmlElement): string {
  if (element.attributes.length === 0) return '';
  return element.attributes
    .map((attribute) => ({ key: `${attribute.namespaceURI}\u0000${attribute.localName}`,
      text: ` ${attribute.name}="${escapeAttribute(attribute.value)}"` }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((attribute) => attribute.text).join('');
}

// Writes the declarations among `candidates` that change what is already written in scope.
function newDeclarations(candidates: Iterable<readonly [string, string]>,
  written: Map<string, string>): string {
  const changed: Array<[string, string]> = [];
  for (const [prefix, uri] of candidates) {
    if (prefix === 'xml') continue;
    const current = written.get(prefix) ?? '';
    if (current === uri) continue;
    written.set(prefix, uri);
    changed.push([prefix, uri]);
  }
  return changed.length === 0 ? '' : declarations(changed);
}

type Filter = (element: XmlElement) => 'visible' | 'hidden' | 'excluded';

// Canonical XML (inclusive, without comments) of `element`'s children under `filter`: a visible
// element is written with its tags, a hidden one (the root of this profile) only through its
// namespace declarations and its children, an excluded one not at all.
function canonicalChildren(element: XmlElement, filter: Filter, written: Map<string, string>):
  string {
  let out = '';
  for (const child of element.children) {
    out += child.kind === 'text' ? escapeText(child.data)
      : canonicalElement(child, filter, written, child.declarations);
  }
  return out;
}

function canonicalElement(element: XmlElement, filter: Filter, inherited: Map<string, string>,
  candidates: ReadonlyArray<readonly [string, string]>): string {
  const visibility = filter(element);
  if (visibility === 'excluded') return '';
  const written = candidates.length === 0 ? inherited : new Map(inherited);
  if (visibility === 'hidden') {
    if (element.attributes.some((attribute) => attribute.prefix === 'xml')) {
      throw new OutsideProfile('xml: attributes on the root are outside the profile');
    }
    return newDeclarations(candidates, written) + canonicalChildren(element, filter, written);
  }
  return `<${element.name}${newDeclarations(candidates, written)}${ownAttributes(element)}>` +
    `${canonicalChildren(element, filter, written)}</${element.name}>`;
}

// The octets the Reference digests: the document through both transforms.
function referenceOctets(root: XmlElement): string {
  const filter: Filter = (element) => {
    if (isSignature(element) || element.name === 'ExchangedDocument') return 'excluded';
    return element.name === 'TaxInvoice' ? 'hidden' : 'visible';
  };
  return canonicalElement(root, filter, new Map(), root.declarations);
}

// SignedInfo canonicalized on its own: it writes every namespace in scope.
function canonicalSubtree(element: XmlElement): string {
  for (let ancestor: XmlElement | null = element; ancestor !== null; ancestor = ancestor.parent) {
    if (ancestor.attributes.some((attribute) => attribute.prefix === 'xml')) {
      throw new OutsideProfile('xml: attributes are outside the profile');
    }
  }
  return canonicalElement(element, () => 'visible', new Map(), [...element.scope]);
}

// The document read as the verifier reads it; null when it is not well-formed XML or holds what
// signed documents never do (a DOCTYPE, CDATA, processing instructions).
export function parseXmlDocument(xml: string): XmlElement | null {
  try {
    return readXml(xml);
  } catch (error) {
    if (error instanceof XmlReadError) return null;
    throw error;
  }
}

// The first element of `namespace` and `localName` under `element`, in document order.
export function findElement(element: XmlElement, namespace: string, localName: string):
  XmlElement | null {
  for (const child of elementChildren(element)) {
    if (child.namespaceURI === namespace && child.localName === localName) return child;
    const found = findElement(child, namespace, localName);
    if (found !== null) return found;
  }
  return null;
}

export const elementText = textOf;

function countSignatures(element: XmlElement): number {
  return elementChildren(element).reduce((sum, child) =>
    sum + (isSignature(child) ? 1 : 0) + countSignatures(child), 0);
}

const algorithmOf = (element: XmlElement | undefined) => element?.attributes
  .find((attribute) => attribute.name === 'Algorithm')?.value ?? null;
const base64Of = (element: XmlElement | null | undefined) =>
  Buffer.from((element === null || element === undefined ? '' : textOf(element))
    .replace(/\s+/g, ''), 'base64');

// SignedInfo must be exactly the profile's; the reason names the first difference.
function signedInfoDefect(signedInfo: XmlElement): string | null {
  const [method, signatureMethod, reference, ...rest] = elementChildren(signedInfo);
  if (!isDsig(method, 'CanonicalizationMethod') || algorithmOf(method) !== INCLUSIVE_C14N) {
    return 'SignedInfo must be canonicalized with inclusive Canonical XML 1.0.';
  }
  if (!isDsig(signatureMethod, 'SignatureMethod') || algorithmOf(signatureMethod) !== RSA_SHA256) {
    return 'The signature must be RSA-SHA256.';
  }
  const uri = reference?.attributes.find((attribute) => attribute.name === 'URI');
  if (!isDsig(reference, 'Reference') || rest.length > 0 || uri?.value !== '' ||
    reference.attributes.length !== 1) {
    return 'The signature must have one Reference to the whole document (URI "").';
  }
  const [transforms, digestMethod, digestValue, ...others] = elementChildren(reference);
  const steps = isDsig(transforms, 'Transforms') ? elementChildren(transforms) : [];
  const xpath = steps[1] === undefined ? undefined : elementChildren(steps[1])[0];
  if (steps.length !== 2 || !isDsig(steps[0], 'Transform') || !isDsig(steps[1], 'Transform') ||
    algorithmOf(steps[0]) !== INCLUSIVE_C14N || algorithmOf(steps[1]) !== XPATH_FILTER ||
    !isDsig(xpath, 'XPath') || textOf(xpath).trim() !== NTS_XPATH ||
    xpath.scope.get('ds') !== DSIG_NS) {
    return 'The Reference must be transformed by inclusive Canonical XML, then the standard\'s ' +
      'XPath filter that leaves out the root, ExchangedDocument and the signature.';
  }
  if (!isDsig(digestMethod, 'DigestMethod') || algorithmOf(digestMethod) !== SHA256 ||
    !isDsig(digestValue, 'DigestValue') || others.length > 0) {
    return 'The Reference must be digested with SHA-256.';
  }
  return null;
}

// Checks a document signed with the profile: one Signature, between ExchangedDocument and
// TaxInvoiceDocument; SignedInfo exactly the profile's; the digest of the document through the
// profile's transforms; the signature of SignedInfo with the key of the certificate in KeyInfo.
// The caller decides whether that certificate is one it trusts.
export function verifyXmlDocument(xml: string): XmlSignatureCheck {
  const root = parseXmlDocument(xml);
  if (root === null) return { valid: false, reason: 'The document is not well-formed XML.' };
  return verifyParsedXmlDocument(root);
}

// Public keys by certificate: a verifier sees the same few certificates again and again, and
// reading one costs more than the RSA check. Bounded, so that many certificates cannot fill
// memory.
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEYS_MAX = 1_000;

function publicKeyOf(certificate: Buffer): KeyObject {
  const id = certificate.toString('base64');
  let key = publicKeys.get(id);
  if (key === undefined) {
    key = new X509Certificate(certificate).publicKey;
    if (publicKeys.size >= PUBLIC_KEYS_MAX) publicKeys.clear();
    publicKeys.set(id, key);
  }
  return key;
}

// verifyXmlDocument for a document already read with parseXmlDocument.
export function verifyParsedXmlDocument(root: XmlElement): XmlSignatureCheck {
  const siblings = elementChildren(root);
  const at = siblings.findIndex(isSignature);
  if (at < 0 || countSignatures(root) !== 1) {
    return { valid: false, reason: 'The document must carry one Signature, under its root.' };
  }
  const signature = siblings[at]!;
  if (root.name !== 'TaxInvoice' || siblings[at - 1]?.name !== 'ExchangedDocument' ||
    siblings[at + 1]?.name !== 'TaxInvoiceDocument') {
    return { valid: false, reason: 'The Signature must sit between ExchangedDocument and ' +
      'TaxInvoiceDocument, under TaxInvoice.' };
  }
  const [signedInfo, signatureValue, keyInfo, ...more] = elementChildren(signature);
  if (!isDsig(signedInfo, 'SignedInfo') || !isDsig(signatureValue, 'SignatureValue') ||
    !isDsig(keyInfo, 'KeyInfo') || more.length > 0) {
    return { valid: false, reason: 'The Signature must hold SignedInfo, SignatureValue and ' +
      'KeyInfo.' };
  }
  const defect = signedInfoDefect(signedInfo);
  if (defect !== null) return { valid: false, reason: defect };
  const [x509Data, ...otherKeyInfo] = elementChildren(keyInfo);
  const certificates = isDsig(x509Data, 'X509Data') ? elementChildren(x509Data) : [];
  if (otherKeyInfo.length > 0 || certificates.length !== 1 ||
    !isDsig(certificates[0], 'X509Certificate')) {
    return { valid: false, reason: 'The signature must name one certificate in KeyInfo.' };
  }
  const certificate = base64Of(certificates[0]);
  let publicKey;
  try {
    publicKey = publicKeyOf(certificate);
  } catch {
    return { valid: false, reason: 'The certificate in KeyInfo is not an X.509 certificate.' };
  }
  let octets: string;
  let canonicalSignedInfo: string;
  try {
    octets = referenceOctets(root);
    canonicalSignedInfo = canonicalSubtree(signedInfo);
  } catch (error) {
    if (!(error instanceof OutsideProfile)) throw error;
    return { valid: false, reason: `The document is outside the profile: ${error.message}.` };
  }
  const digestValue = findElement(signedInfo, DSIG_NS, 'DigestValue');
  const digest = createHash('sha256').update(octets, 'utf8').digest();
  if (!digest.equals(base64Of(digestValue))) {
    return { valid: false, reason: 'The signature is not valid: the signed content changed.' };
  }
  let valid = false;
  try {
    valid = verifyRsa('sha256', Buffer.from(canonicalSignedInfo, 'utf8'), publicKey,
      base64Of(signatureValue));
  } catch {
    valid = false;
  }
  if (!valid) return { valid: false, reason: 'The signature is not valid.' };
  return { valid: true, certificate };
}
