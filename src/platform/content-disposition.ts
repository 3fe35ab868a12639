// A Content-Disposition header for a file name of any script (RFC 6266): `filename` carries an
// ASCII stand-in for clients that read only it, `filename*` the name itself, UTF-8 and
// percent-encoded (RFC 8187), which every current browser and mail client prefers. Nothing of
// the name reaches the header unescaped, so no name can end the header, add a parameter or
// inject another header.

// RFC 8187's attr-char: what `filename*` carries as it is.
const ATTR_CHAR = /[A-Za-z0-9!#$&+.^_`|~-]/u;

function encodeExtValue(name: string): string {
  let out = '';
  for (const character of name) {
    if (ATTR_CHAR.test(character)) { out += character; continue; }
    for (const byte of Buffer.from(character, 'utf8')) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

// Printable ASCII except the quote and backslash; anything else becomes `_`.
function asciiStandIn(name: string): string {
  return [...name].map((character) => (/^[\x20-\x7e]$/u.test(character) &&
    character !== '"' && character !== '\\' ? character : '_')).join('');
}

export function contentDisposition(type: 'inline' | 'attachment', fileName: string): string {
  return `${type}; filename="${asciiStandIn(fileName)}"; filename*=UTF-8''${
    encodeExtValue(fileName)}`;
}
