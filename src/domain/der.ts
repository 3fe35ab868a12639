// The few DER (ASN.1) shapes an encrypted joint-certificate key file needs: read a
// tag-length-value, and write one. Anything malformed throws DerError. This is data and
// arithmetic: it imports nothing from the rest of the code.

export class DerError extends Error {}

export const DER_TAGS = {
  integer: 0x02,
  octetString: 0x04,
  objectIdentifier: 0x06,
  sequence: 0x30,
} as const;

export type DerNode = { tag: number; value: Buffer };

// Lengths beyond four bytes would describe gigabytes; a key file is a few kilobytes.
const LENGTH_BYTES_MAX = 4;

function readNode(input: Buffer, offset: number): { node: DerNode; end: number } {
  if (offset + 2 > input.length) throw new DerError('truncated DER');
  const tag = input[offset]!;
  let length = input[offset + 1]!;
  let cursor = offset + 2;
  if (length & 0x80) {
    const lengthBytes = length & 0x7f;
    if (lengthBytes === 0 || lengthBytes > LENGTH_BYTES_MAX) throw new DerError('bad DER length');
    if (cursor + lengthBytes > input.length) throw new DerError('truncated DER');
    length = 0;
    for (let index = 0; index < lengthBytes; index += 1) {
      length = length * 256 + input[cursor + index]!;
    }
    cursor += lengthBytes;
  }
  const end = cursor + length;
  if (end > input.length) throw new DerError('truncated DER');
  return { node: { tag, value: input.subarray(cursor, end) }, end };
}

// The single node that makes up the whole input.
export function readDer(input: Buffer): DerNode {
  const { node, end } = readNode(input, 0);
  if (end !== input.length) throw new DerError('trailing bytes after DER');
  return node;
}

// The children of a constructed node (a SEQUENCE).
export function readChildren(node: DerNode, expectedTag: number = DER_TAGS.sequence): DerNode[] {
  if (node.tag !== expectedTag) throw new DerError(`expected tag ${expectedTag}`);
  const children: DerNode[] = [];
  for (let offset = 0; offset < node.value.length;) {
    const { node: child, end } = readNode(node.value, offset);
    children.push(child);
    offset = end;
  }
  return children;
}

export function expectTag(node: DerNode | undefined, tag: number): Buffer {
  if (node === undefined || node.tag !== tag) throw new DerError(`expected tag ${tag}`);
  return node.value;
}

export function readObjectIdentifier(node: DerNode | undefined): string {
  const value = expectTag(node, DER_TAGS.objectIdentifier);
  if (value.length === 0) throw new DerError('empty object identifier');
  const arcs = [Math.floor(value[0]! / 40), value[0]! % 40];
  let arc = 0;
  for (const byte of value.subarray(1)) {
    arc = arc * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(arc);
      arc = 0;
    }
  }
  return arcs.join('.');
}

// A non-negative INTEGER small enough for a JavaScript number (iteration counts).
export function readSmallInteger(node: DerNode | undefined): number {
  const value = expectTag(node, DER_TAGS.integer);
  if (value.length === 0 || value.length > 4 || value[0]! & 0x80) {
    throw new DerError('integer out of range');
  }
  return value.reduce((sum, byte) => sum * 256 + byte, 0);
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function encodeDer(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(value.length), value]);
}

export function encodeSequence(...children: Buffer[]): Buffer {
  return encodeDer(DER_TAGS.sequence, Buffer.concat(children));
}

export function encodeObjectIdentifier(oid: string): Buffer {
  const arcs = oid.split('.').map(Number);
  const bytes = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const encoded = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) {
      encoded.unshift((rest & 0x7f) | 0x80);
    }
    bytes.push(...encoded);
  }
  return encodeDer(DER_TAGS.objectIdentifier, Buffer.from(bytes));
}

export function encodeSmallInteger(value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return encodeDer(DER_TAGS.integer, Buffer.from(bytes));
}
