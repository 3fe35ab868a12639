// Tax invoice approval numbers (국세청 승인번호, docs/tax-invoice-xml.md § The approval number):
// 24 characters, the issue date (`YYYYMMDD`), the issuing system's eight-digit code registered
// with the tax authority, and a serial of eight digits or lower-case letters unique per system and
// day (real numbers end like `uwh00005`; the standard's sample ends in `a1b2c3d4`). Imports
// nothing from the rest of the code.

// What every reader accepts: from the tax authority, a gateway, the portal or etax's own.
export const APPROVAL_NUMBER_PATTERN_SOURCE = '^[0-9]{16}[0-9a-z]{8}$';
export const APPROVAL_NUMBER_PATTERN = new RegExp(APPROVAL_NUMBER_PATTERN_SOURCE);

// The issuing system code of a deployment that has none registered: the sandbox's. `41` opens
// the codes of accredited issuing systems (ASPs); six zeros mark it as no real one.
export const SANDBOX_NTS_SYSTEM_CODE = '41000000';

const SERIAL_LENGTH = 8;
const SERIAL_RADIX = 36;
// Serials wrap after 36^8 (about 2.8 × 10^12) numbers, far more than one system issues in a day.
const SERIAL_SPACE = BigInt(SERIAL_RADIX) ** BigInt(SERIAL_LENGTH);

// The eight-character serial of a counter value: base 36, digits then lower-case letters.
export function approvalSerial(counter: bigint): string {
  return (((counter % SERIAL_SPACE) + SERIAL_SPACE) % SERIAL_SPACE).toString(SERIAL_RADIX)
    .padStart(SERIAL_LENGTH, '0');
}

export function approvalNumber(input: { issueDate: string; systemCode: string;
  counter: bigint }): string {
  const date = input.issueDate.replaceAll('-', '');
  return `${date}${input.systemCode}${approvalSerial(input.counter)}`;
}
