// Checks on text people type into documents that go to the tax authority. The authority's forms
// and the character sets its systems use hold only the Basic Multilingual Plane (U+0000–U+FFFF),
// so an emoji or a rare CJK extension character in a name cannot be put on a tax invoice.
// Imports nothing from the rest of the code.

type NonBmpCharacter = {
  // Position in UTF-16 code units, as String.prototype.indexOf counts.
  index: number;
  codePoint: number;
};

const BMP_LAST_CODE_POINT = 0xffff;
const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;

// The first character outside the BMP, or null when there is none. A lone surrogate (half of a
// pair, which JSON can carry as `"\ud83d"`) counts too: it is not a character at all and no
// character set can encode it.
export function firstNonBmpCharacter(text: string): NonBmpCharacter | null {
  let index = 0;
  for (const character of text) {
    const codePoint = character.codePointAt(0)!;
    const isLoneSurrogate = codePoint >= SURROGATE_FIRST && codePoint <= SURROGATE_LAST;
    if (codePoint > BMP_LAST_CODE_POINT || isLoneSurrogate) return { index, codePoint };
    index += character.length;
  }
  return null;
}

// U+FFFE and U+FFFF are noncharacters that XML cannot carry: a document holding one is not
// well-formed, so they cannot go on a document signed as XML. The index of the first, or -1.
export function firstXmlNoncharacter(text: string): number {
  return text.search(/[\uFFFE\uFFFF]/);
}

// `U+1F600`, the way Unicode names a code point, for messages.
export function formatCodePoint(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

// True when the text has no characters other than whitespace, counting the ideographic space
// (U+3000) of Korean input methods and the no-break space as whitespace.
export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

// With the `u` flag a surrogate pair reads as the one character it encodes, so only a lone half
// of a pair is in the category Cs (surrogate).
const LONE_SURROGATE = /\p{Cs}/u;

// The first lone surrogate of the text (half of a UTF-16 pair, which JSON can carry as
// `"\ud800"`), or null when there is none. It is not a character: no character set, and no
// PostgreSQL text column, can hold it.
export function firstLoneSurrogate(text: string): number | null {
  const match = LONE_SURROGATE.exec(text);
  return match === null ? null : match[0].charCodeAt(0);
}

// Characters no printed field may hold: controls (they break documents, logs and CSV exports)
// and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
// make a name or an amount display in another order than it is stored ("Trojan Source").
const NOT_PRINTED = '\\u0000-\\u001f\\u007f\\u202a-\\u202e\\u2066-\\u2069';

// The schemas' pattern for text a person types and a document prints: none of those
// characters, and not only whitespace (the ideographic and no-break spaces count as such).
export const PRINTED_TEXT_PATTERN = `^(?!\\s+$)[^${NOT_PRINTED}]*$`;

// What a request is told when a printed field breaks the pattern.
export const PRINTED_TEXT_RULE = 'must be printable text: not only spaces, no control ' +
  'characters and no bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069)';

// A C0 control character or DEL: what no one-line text of a form or a command may hold.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}
