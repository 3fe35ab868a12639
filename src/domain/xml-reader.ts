// A strict XML reader for the signed documents of the e-tax-invoice profile
// (src/domain/xml-signature.ts): it builds the small tree the verifier canonicalizes, several
// times faster than a DOM. It reads well-formed XML 1.0 of the kinds signed documents are made
// of (an XML declaration, elements with ASCII names and namespaces, attributes, text, character
// and predefined entity references, comments) and refuses, as outside the profile, what they
// never hold: a DOCTYPE (and so any other entity), CDATA sections and processing instructions.
// Line ends and attribute values are normalized as XML 1.0 says.

type XmlText = { kind: 'text'; data: string };
type XmlAttribute = { name: string; prefix: string; localName: string;
  namespaceURI: string; value: string };
export type XmlElement = {
  kind: 'element';
  name: string;
  localName: string;
  namespaceURI: string;
  // The namespace declarations on the element, [prefix, uri] ('' for the default one).
  declarations: Array<[string, string]>;
  // The attributes other than namespace declarations.
  attributes: XmlAttribute[];
  // Every namespace in scope: the ancestors' declarations and the element's own.
  scope: ReadonlyMap<string, string>;
  children: Array<XmlElement | XmlText>;
  parent: XmlElement | null;
};

export class XmlReadError extends Error {}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const NAME = /[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?/y;
const SPACE = /[ \t\r\n]*/y;
// Characters XML 1.0 allows: tab, line feed, carriage return, and the BMP from U+0020 but
// surrogates, U+FFFE and U+FFFF; pairs of surrogates stand for the planes above.
const NOT_XML_CHARACTER = new RegExp('[^\\t\\n\\r\\u0020-\\ud7ff\\ue000-\\ufffd\\ud800-\\udfff]|' +
  '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]');
// What a text without surrogates may hold: the test that settles almost every document (Korean
// text lies below the surrogates) in one quick pass, before the slower one that pairs them.
const OUTSIDE_BMP_RANGES = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd]/;

const holdsNonXmlCharacter = (text: string) =>
  OUTSIDE_BMP_RANGES.test(text) && NOT_XML_CHARACTER.test(text);
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' };

function fail(message: string): never {
  throw new XmlReadError(message);
}

// Text or an attribute value with its references replaced.
function decode(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;]*);?/g, (reference, body: string) => {
    if (!reference.endsWith(';')) fail('a reference has no ";"');
    if (body in PREDEFINED) return PREDEFINED[body]!;
    const code = /^#x([0-9A-Fa-f]{1,6})$/.test(body) ? parseInt(body.slice(2), 16)
      : /^#([0-9]{1,7})$/.test(body) ? parseInt(body.slice(1), 10) : fail(`&${body}; is not a ` +
        'character reference or a predefined entity');
    if (code > 0x10ffff) fail('a character reference is out of range');
    const character = String.fromCodePoint(code);
    if (NOT_XML_CHARACTER.test(character)) fail('a character reference is not an XML character');
    return character;
  });
}

export function readXml(input: string): XmlElement {
  const text = input.replace(/\r\n?/g, '\n');
  if (holdsNonXmlCharacter(text)) fail('the document holds a character XML does not allow');
  return new Reader(text).document();
}

const XML_DECLARATION = new RegExp('^<\\?xml\\s+version=(["\'])1\\.0\\1' +
  '(\\s+encoding=(["\'])UTF-8\\3)?(\\s+standalone=(["\'])(yes|no)\\5)?\\s*\\?>$', 'i');

const ROOT_SCOPE: ReadonlyMap<string, string> = new Map([['xml', XML_NS]]);

const isDeclaration = (attribute: string) =>
  attribute === 'xmlns' || attribute.startsWith('xmlns:');

// A qualified name's prefix, local name and namespace in `scope`; an attribute without a prefix
// is in no namespace.
function resolveName(scope: ReadonlyMap<string, string>, qualifiedName: string,
  isAttribute: boolean) {
  const colon = qualifiedName.indexOf(':');
  const prefix = colon < 0 ? '' : qualifiedName.slice(0, colon);
  if (prefix === '' && isAttribute) return { prefix, localName: qualifiedName, uri: '' };
  const uri = scope.get(prefix) ?? (prefix === '' ? '' : fail(`${prefix}: is not declared`));
  return { prefix, localName: qualifiedName.slice(colon + 1), uri };
}

// Signed documents nest a few levels; the verifier's walks recurse, so deeper is refused.
const DEPTH_MAX = 64;

class Reader {
  private at = 0;
  private depth = 0;
  private root: XmlElement | null = null;
  private current: XmlElement | null = null;

  constructor(private readonly text: string) {}

  document(): XmlElement {
    const { text } = this;
    if (text.startsWith('<?xml')) {
      const end = text.indexOf('?>');
      if (end < 0 || !XML_DECLARATION.test(text.slice(0, end + 2))) {
        fail('the XML declaration is not XML 1.0 in UTF-8');
      }
      this.at = end + 2;
    }
    this.misc();
    if (text[this.at] !== '<' || text.startsWith('<!', this.at) ||
      text.startsWith('<?', this.at)) fail('the root element is expected');
    do {
      this.node();
    } while (this.current !== null && this.at < text.length);
    if (this.root === null || this.current !== null) fail('the root element is not closed');
    this.misc();
    if (this.at < text.length) fail('only comments and whitespace may follow the root element');
    return this.root;
  }

  // Whitespace and comments, before and after the root.
  private misc(): void {
    for (;;) {
      this.space();
      if (this.text.startsWith('<!--', this.at)) this.comment();
      else return;
    }
  }

  private node(): void {
    const { text } = this;
    const next = text.indexOf('<', this.at);
    if (this.current !== null && next !== this.at) {
      const end = next < 0 ? text.length : next;
      const raw = text.slice(this.at, end);
      if (raw.includes(']]>')) fail('text holds "]]>"');
      this.current.children.push({ kind: 'text', data: decode(raw) });
      this.at = end;
    } else if (text.startsWith('<!--', this.at)) {
      this.comment();
    } else if (text.startsWith('<!', this.at) || text.startsWith('<?', this.at)) {
      fail('CDATA sections, processing instructions and declarations are outside the profile');
    } else if (text.startsWith('</', this.at)) {
      this.at += 2;
      const closing = this.name();
      this.space();
      if (text[this.at] !== '>' || this.current === null || closing !== this.current.name) {
        fail(`</${closing}> does not close the open element`);
      }
      this.at += 1;
      this.current = this.current.parent;
      this.depth -= 1;
    } else {
      this.element();
    }
  }

  private element(): void {
    this.at += 1;
    const element = this.startTag(this.name(), this.current);
    if (this.current === null) this.root = element;
    else this.current.children.push(element);
    if (this.text.startsWith('/>', this.at)) {
      this.at += 2;
    } else if (this.text[this.at] === '>') {
      this.at += 1;
      this.current = element;
      this.depth += 1;
      if (this.depth > DEPTH_MAX) fail('the document nests deeper than signed documents do');
    } else {
      fail(`<${element.name}> is not closed`);
    }
  }

  private name(): string {
    NAME.lastIndex = this.at;
    const match = NAME.exec(this.text);
    if (match === null) fail(`a name is expected at ${this.at}`);
    this.at = NAME.lastIndex;
    return match[0];
  }

  private space(): boolean {
    SPACE.lastIndex = this.at;
    SPACE.exec(this.text);
    const moved = SPACE.lastIndex !== this.at;
    this.at = SPACE.lastIndex;
    return moved;
  }

  private comment(): void {
    const end = this.text.indexOf('-->', this.at + 4);
    if (end < 0 || this.text.slice(this.at + 4, end).includes('--')) {
      fail('a comment is not closed');
    }
    this.at = end + 3;
  }

  // The attributes of a start tag, as written: [name, value], the value normalized.
  private rawAttributes(): Array<[string, string]> {
    const { text } = this;
    const raw: Array<[string, string]> = [];
    while (this.space() && text[this.at] !== '>' && !text.startsWith('/>', this.at)) {
      const attribute = this.name();
      this.space();
      if (text[this.at] !== '=') fail(`${attribute} has no value`);
      this.at += 1;
      this.space();
      const quote = text[this.at];
      if (quote !== '"' && quote !== '\'') fail(`${attribute}'s value is not quoted`);
      const end = text.indexOf(quote, this.at + 1);
      if (end < 0) fail(`${attribute}'s value is not closed`);
      const value = text.slice(this.at + 1, end);
      if (value.includes('<')) fail(`${attribute}'s value holds "<"`);
      if (raw.some(([seen]) => seen === attribute)) fail(`${attribute} appears twice`);
      // Attribute-value normalization (XML 1.0 § 3.3.3): literal white space becomes a space,
      // before references are replaced.
      raw.push([attribute, decode(value.replace(/[\t\n]/g, ' '))]);
      this.at = end + 1;
    }
    return raw;
  }

  private startTag(qualified: string, parent: XmlElement | null): XmlElement {
    const raw = this.rawAttributes();
    // An element without declarations of its own shares its parent's scope.
    let scope: ReadonlyMap<string, string> = parent?.scope ?? ROOT_SCOPE;
    const declarations: Array<[string, string]> = [];
    for (const [attribute, value] of raw) {
      if (!isDeclaration(attribute)) continue;
      const prefix = attribute === 'xmlns' ? '' : attribute.slice(6);
      if (prefix === 'xml' || prefix === 'xmlns' || (prefix !== '' && value === '')) {
        fail(`${attribute} is not a valid namespace declaration`);
      }
      declarations.push([prefix, value]);
    }
    if (declarations.length > 0) scope = new Map([...scope, ...declarations]);
    const attributes: XmlAttribute[] = [];
    for (const [attribute, value] of raw) {
      if (isDeclaration(attribute)) continue;
      const { prefix, localName, uri } = resolveName(scope, attribute, true);
      attributes.push({ name: attribute, prefix, localName, namespaceURI: uri, value });
    }
    if (attributes.length > 1) {
      const keys = new Set(attributes.map((attribute) =>
        `${attribute.namespaceURI}\u0000${attribute.localName}`));
      if (keys.size !== attributes.length) fail(`<${qualified}> repeats an attribute`);
    }
    const { localName, uri } = resolveName(scope, qualified, false);
    return { kind: 'element', name: qualified, localName, namespaceURI: uri, declarations,
      attributes, scope, children: [], parent };
  }
}
