// The strict XML reader of the signature verifier: what it reads (namespaces, attributes, text
// with references, comments, line ends as XML 1.0 normalizes them) and what it refuses, whether
// malformed or outside what signed documents hold (DOCTYPE and its entities, CDATA, processing
// instructions).
import { describe, expect, it } from 'vitest';
import { readXml, XmlReadError, type XmlElement } from '../../src/domain/xml-reader.ts';

const text = (element: XmlElement): string => element.children
  .map((child) => (child.kind === 'text' ? child.data : text(child))).join('');

describe('the XML reader', () => {
  it('reads elements, namespaces, attributes and text with references', () => {
    const root = readXml('<?xml version="1.0" encoding="UTF-8"?>\r\n<!-- before -->' +
      '<r xmlns="urn:a" xmlns:p="urn:p" p:x="1&amp;&#x9;2" y=\'a\tb\'>' +
      'a &lt;&gt;&amp;&quot;&apos; &#x85;&#8232;\r\nb\rc<!-- inside --><p:e/><f xmlns="">g</f>' +
      '</r>\n<!-- after -->\n');
    expect(root).toMatchObject({ name: 'r', localName: 'r', namespaceURI: 'urn:a',
      declarations: [['', 'urn:a'], ['p', 'urn:p']] });
    expect(root.attributes).toEqual([
      { name: 'p:x', prefix: 'p', localName: 'x', namespaceURI: 'urn:p', value: '1&\t2' },
      { name: 'y', prefix: '', localName: 'y', namespaceURI: '', value: 'a b' },
    ]);
    expect(text(root)).toBe('a <>&"\' \u0085\u2028\nb\ncg');
    const [, e, f] = root.children as XmlElement[];
    expect(e).toMatchObject({ localName: 'e', namespaceURI: 'urn:p' });
    expect(f).toMatchObject({ localName: 'f', namespaceURI: '' });
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>'],
    ['an unknown entity', '<r>&x;</r>'],
    ['CDATA', '<r><![CDATA[x]]></r>'],
    ['a processing instruction', '<r><?pi x?></r>'],
    ['a second root', '<r/><r/>'],
    ['text after the root', '<r/>x'],
    ['text before the root', 'x<r/>'],
    ['an unclosed element', '<r><a></r>'],
    ['a mismatched end tag', '<r></s>'],
    ['an undeclared prefix', '<p:r/>'],
    ['a repeated attribute', '<r a="1" a="2"/>'],
    ['the same attribute through two prefixes', '<r xmlns:p="u" xmlns:q="u" p:a="1" q:a="2"/>'],
    ['an unquoted attribute', '<r a=1/>'],
    ['"<" in an attribute', '<r a="<"/>'],
    ['a control character', '<r>\u0001</r>'],
    ['U+FFFE', '<r>\ufffe</r>'],
    ['a lone surrogate', '<r>\ud800</r>'],
    ['a reference to a control character', '<r>&#1;</r>'],
    ['a reference out of range', '<r>&#x110000;</r>'],
    ['"]]>" in text', '<r>]]></r>'],
    ['a reference without ";"', '<r>&amp</r>'],
    ['an unclosed comment', '<r><!-- x</r>'],
    ['"--" in a comment', '<r><!-- a -- b --></r>'],
    ['XML 1.1', '<?xml version="1.1"?><r/>'],
    ['another encoding', '<?xml version="1.0" encoding="EUC-KR"?><r/>'],
    ['nothing', ''],
    ['not XML', 'not xml at all'],
    ['a non-ASCII name', '<세금계산서/>'],
    ['xmlns:p=""', '<r xmlns:p=""/>'],
  ])('refuses %s', (_name, xml) => {
    expect(() => readXml(xml)).toThrow(XmlReadError);
  });

  it('reads 64 levels and refuses deeper documents, which signed documents never are', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;
    expect(readXml(nested(64)).name).toBe('a');
    expect(() => readXml(nested(65))).toThrow(XmlReadError);
    expect(() => readXml(nested(100_000))).toThrow(XmlReadError);
  });
});
