import { AsnParser } from '@peculiar/asn1-schema';
import { BaseBlock, fromBER, Integer, ObjectIdentifier } from 'asn1js';

// Reads DER into an @peculiar/asn1-schema class. asn1js decodes BER and is lenient where our
// own reader was strict, and the schema parser takes any context-specific tag for a SEQUENCE,
// so the rules the key files relied on are checked on the decoded tree before the schema
// sees it. Anything malformed throws DerError, whatever the library threw. It imports nothing
// from the rest of the code.

export class DerError extends Error {}

// Lengths beyond four bytes would describe gigabytes; a key file is a few kilobytes.
const LENGTH_BYTES_MAX = 4;

// Passed explicitly, since the library defaults (100 levels, 10,000 nodes, 16 MiB) may change.
// The deepest key file is 7 levels (PBES2 with a PRF); a PKCS#8 key with attributes about as
// deep. signPri.key is about 1.3 KB and the API takes 16 KiB, so 64 KiB is room and no more.
const DECODE_OPTIONS = {
  maxDepth: 16,
  maxNodes: 1_000,
  maxContentLength: 64 * 1024,
  // Trying every OCTET STRING as nested DER is wasted work and spends the node budget on
  // ciphertext; the schema says where nested DER is.
  parseEmbedded: false,
} as const;

const UNIVERSAL_CLASS = 1;

export type DerSchema<T> = { new(): T; name: string };

export type ParseDerOptions = {
  // How many leading fields of the top SEQUENCE carry universal tags. The rest are optional
  // fields that the schema tags itself (PKCS#8 attributes are [0]). Default: all of them.
  universalFieldCount?: number;
};

type Walk = { depth: number; index: number; universalFieldCount: number };

// The schema parser only looks at tags it has a type for: on the top element and on the
// fields directly inside it (deeper structure is read by a further parseDer of its bytes).
function checkTag(block: BaseBlock, { depth, index, universalFieldCount }: Walk): void {
  const checked = depth === 0 || (depth === 1 && index < universalFieldCount);
  if (checked && block.idBlock.tagClass !== UNIVERSAL_CLASS) {
    throw new DerError('unexpected tag class in DER');
  }
}

function checkDistinguished(block: BaseBlock, walk: Walk): void {
  const { lenBlock, valueBlock } = block;
  if (lenBlock.isIndefiniteForm) throw new DerError('indefinite length in DER');
  // blockLength counts the first length byte, which only says how many follow.
  if (lenBlock.blockLength - 1 > LENGTH_BYTES_MAX) throw new DerError('bad DER length');
  // asn1js lets a child run past the end of its parent; the content must fill the length.
  if (valueBlock.blockLength !== lenBlock.length) throw new DerError('inconsistent DER length');
  checkTag(block, walk);
  const empty = lenBlock.length === 0;
  if (empty && (block instanceof Integer || block instanceof ObjectIdentifier)) {
    throw new DerError('empty INTEGER or OBJECT IDENTIFIER in DER');
  }
  if (!block.idBlock.isConstructed || !('value' in valueBlock)) return;
  if (!Array.isArray(valueBlock.value)) return;
  // Bounded by DECODE_OPTIONS: at most maxNodes children, recursion at most maxDepth deep.
  valueBlock.value.forEach((child: unknown, index: number) => {
    if (!(child instanceof BaseBlock)) return;
    checkDistinguished(child, { ...walk, depth: walk.depth + 1, index });
  });
}

function decode(input: Uint8Array | ArrayBuffer, options: ParseDerOptions): BaseBlock {
  let decoded: ReturnType<typeof fromBER>;
  try {
    decoded = fromBER(input, DECODE_OPTIONS);
  } catch (error) {
    // asn1js throws, rather than reports, on some malformed input (a RangeError, mostly).
    throw new DerError(`malformed DER: ${(error as Error).message}`);
  }
  if (decoded.offset === -1) throw new DerError(`malformed DER: ${decoded.result.error}`);
  if (decoded.offset !== input.byteLength) throw new DerError('trailing bytes after DER');
  const universalFieldCount = options.universalFieldCount ?? Number.POSITIVE_INFINITY;
  checkDistinguished(decoded.result, { depth: 0, index: 0, universalFieldCount });
  return decoded.result;
}

// The single element that makes up the whole input, as an instance of `schema`.
export function parseDer<T>(
  input: Uint8Array | ArrayBuffer,
  schema: DerSchema<T>,
  options: ParseDerOptions = {},
): T {
  const decoded = decode(input, options);
  try {
    return AsnParser.fromASN(decoded, schema);
  } catch {
    // The parser throws Error, TypeError or AsnSchemaValidationError for a mismatch; for us
    // they all mean the same: this is not the structure we expected.
    throw new DerError(`DER is not a ${schema.name}`);
  }
}
