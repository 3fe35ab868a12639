import {
  isCorporationNumber,
  isValidBusinessRegistrationNumber,
} from '../../domain/business-registration-number.ts';
import { isValidCorporateRegistrationNumber } from '../../domain/corporate-registration-number.ts';

// Reads the fields of a business registration certificate (사업자등록증) from its lines of text,
// whether they came from a PDF's text layer or from OCR (docs/certificate-verification.md § What
// is read). Labels are found with every space removed, because OCR splits Hangul syllables
// ("개 업 연 월 일") and certificates space their labels out on purpose; the value of a label is
// the text after it up to the next label on the same line. Pure: it imports only domain rules.

export type TextLine = { text: string; confidence: number };
export type TextSource = 'PDF_TEXT' | 'OCR';

export const FIELD_NAMES = ['businessRegistrationNumber', 'organizationName',
  'representativeName', 'openedOn', 'corporateRegistrationNumber', 'address', 'businessType',
  'businessItem', 'issuedOn', 'kind'] as const;
export type FieldName = typeof FIELD_NAMES[number];

export type FieldReading = { value: string; confidence: number };
export type CertificateReading = {
  // True when the certificate's title was seen.
  titled: boolean;
  fields: Partial<Record<FieldName, FieldReading>>;
};

type LabelName = FieldName | 'ignored';

// Labels in their space-free form, most specific first: `법인등록번호` before `등록번호`. OCR
// misreads a syllable of a label by one stroke often enough to lose the whole field, so the
// syllables of the number and name labels also match their usual misreadings: a final ㅇ read
// as ㅁ (등 → 듬), an initial ㅂ as ㄹ or a final ㅂ as ㅁ (법 → 럽, 범), ㅗ as ㅜ (호 → 후).
const LABELS: ReadonlyArray<[RegExp, LabelName]> = [
  [/[법범럽]인[등듬]록번호/u, 'corporateRegistrationNumber'],
  [/[등듬]록번호/u, 'businessRegistrationNumber'],
  [/[법범럽]인명(\([^)]{0,5}\))?|상[호후](\([^)]{0,5}\))?|단체명/u, 'organizationName'],
  [/대표자성명|대표자|성명/u, 'representativeName'],
  [/개업연월일|개업일자?/u, 'openedOn'],
  [/생년월일|주민등록번호/u, 'ignored'],
  [/본점소재지/u, 'ignored'],
  [/사업장소재지|사업장주소/u, 'address'],
  [/사업의종류/u, 'ignored'],
  [/업태/u, 'businessType'],
  [/종목/u, 'businessItem'],
  [/발급일자?/u, 'issuedOn'],
  [/발급사유|공동사업자|전자우편주소|사업자단위과세적용사업자여부|전자세금계산서전용/u, 'ignored'],
];

const TITLE = /사업자등록증/u;
const CORPORATE_KIND = /\(?법인사업자\)?/u;
const INDIVIDUAL_KIND = /\(?(일반과세자|간이과세자|면세사업자|개인사업자)\)?/u;
const DATE_ONLY_LINE = /^\d{4}년\d{1,2}월\d{1,2}일$|^\d{4}[.-]\d{1,2}[.-]\d{1,2}\.?$/u;

// Characters OCR reads in place of digits, in number fields only.
const DIGIT_LOOKALIKES: Readonly<Record<string, string>> = {
  O: '0', o: '0', D: '0', Q: '0', I: '1', l: '1', '|': '1', i: '1', '!': '1', ']': '1', '[': '1',
  Z: '2', z: '2',
  S: '5', s: '5', B: '8', G: '6', b: '6', g: '9', q: '9', T: '7',
};
// Digits OCR confuses with each other: the candidates tried when a checksum fails.
const DIGIT_CONFUSIONS: Readonly<Record<string, string>> = {
  0: '869', 1: '74', 2: '7', 3: '85', 4: '1', 5: '63', 6: '508', 7: '12', 8: '3605', 9: '80',
};
// A number read through one digit confusion is not trusted as much as one read cleanly.
const CORRECTED_CONFIDENCE_FACTOR = 0.5;

// A line without its spaces, and where each of its characters was in the original line. A
// speck OCR leaves between two syllables (`성 . 명`, `상 、 호`) goes too: no label or value has
// punctuation between Hangul syllables.
function compactOf(text: string): { compact: string; origin: number[] } {
  let compact = '';
  const origin: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (/[\s_`'"~|ㆍ·]/u.test(character)) continue;
    if (/[.,、。]/u.test(character) && /[가-힣]$/u.test(compact)
      && /^[\s_`'"~|ㆍ·.,、。]*[가-힣]/u.test(text.slice(index + 1))) continue;
    compact += character;
    origin.push(index);
  }
  return { compact, origin };
}

type LabelHit = { name: LabelName; start: number; end: number };

// Every label on a compact line, leftmost first, never overlapping, from `offset` on.
function exactLabelsOn(compact: string, offset = 0): LabelHit[] {
  const hits: LabelHit[] = [];
  let rest = compact.slice(offset);
  for (;;) {
    let best: LabelHit | null = null;
    for (const [pattern, name] of LABELS) {
      const match = pattern.exec(rest);
      if (match && (best === null || match.index < best.start - offset)) {
        best = { name, start: offset + match.index, end: offset + match.index + match[0].length };
      }
    }
    if (best === null) return hits;
    hits.push(best);
    rest = compact.slice(best.end);
    offset = best.end;
  }
}

// The labels that open a line of the certificate and are followed by its colon, space-free.
const LINE_LABELS: ReadonlyArray<[string, LabelName]> = [
  ['등록번호', 'businessRegistrationNumber'], ['법인등록번호', 'corporateRegistrationNumber'],
  ['상호', 'organizationName'], ['법인명', 'organizationName'],
  ['법인명(단체명)', 'organizationName'], ['대표자', 'representativeName'],
  ['성명', 'representativeName'], ['개업연월일', 'openedOn'], ['사업장소재지', 'address'],
  ['본점소재지', 'ignored'], ['사업의종류', 'ignored'], ['발급사유', 'ignored'],
  ['생년월일', 'ignored'], ['주민등록번호', 'ignored'],
];
// Where a label ends at the latest: the longest label and a stray mark or two.
const LINE_LABEL_LENGTH_MAX = 10;

// Edit distance between two short strings, by Unicode code point.
function editDistance(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

// The label before a line's colon when OCR misread one of its syllables (`능록번호 :`,
// `낭 호 :`, `랄급사유 :`): the one line label a single syllable away. The colon after it is what
// makes so loose a match safe; two labels equally near are as good as none.
function lineLabelOf(compact: string): LabelHit | null {
  const colon = compact.search(/[:：]/u);
  if (colon < 1 || colon > LINE_LABEL_LENGTH_MAX) return null;
  const before = compact.slice(0, colon);
  const near = LINE_LABELS.filter(([label]) => editDistance(before, label) <= 1);
  const names = new Set(near.map(([, name]) => name));
  return names.size === 1 ? { name: near[0]![1], start: 0, end: colon } : null;
}

// Every label on a compact line: those spelled as printed, and a misread one before the colon
// that opens the line. A label spelled as printed that does not open the line may be the tail of
// a misread one (`림인등록번호` holds `등록번호`): the line label is then the better reading.
function labelsOn(compact: string): LabelHit[] {
  const hits = exactLabelsOn(compact);
  if (hits[0]?.start === 0) return hits;
  const lineLabel = lineLabelOf(compact);
  if (lineLabel === null) return hits;
  return [lineLabel, ...exactLabelsOn(compact, lineLabel.end)];
}

// Joins what OCR split: runs of two or more single Hangul syllables, with the word that follows
// ("이 택 스 샌 드 박스" → "이택스샌드박스"; a lone "및" stays apart), and a number cut from its
// counter ("4 층").
export function joinSplitSyllables(text: string): string {
  const tokens = text.replace(/\s*,\s*/gu, ', ').split(/\s+/u).filter((token) => token !== '');
  const joined: string[] = [];
  let index = 0;
  while (index < tokens.length) {
    let end = index;
    while (end < tokens.length && /^[가-힣]$/u.test(tokens[end]!)) end += 1;
    if (end - index >= 2) {
      const withNext = end < tokens.length && /^[가-힣]/u.test(tokens[end]!) ? end + 1 : end;
      joined.push(tokens.slice(index, withNext).join(''));
      index = withNext;
    } else {
      joined.push(tokens[index]!);
      index += 1;
    }
  }
  return joined.join(' ')
    .replace(/(\d)\s+(층|호|동|번지|가)(?=\s|,|$)/gu, '$1$2')
    // After a number, 충, 총 and 증 are the floor (층) misread.
    .replace(/(\d)[충총증](?=\s|,|$)/gu, '$1층')
    .replace(/\(\s+/gu, '(')
    .replace(/\s+\)/gu, ')')
    .trim();
}

function cleanValue(raw: string, source: TextSource): string {
  // OCR leaves label punctuation and specks at either end: `) : 값 .`.
  const trimmed = raw.replace(/^[\s:：;.,·ㆍ)_|'`"~-]+/u, '').replace(/[\s.,;:_|'`"~]+$/u, '');
  return source === 'OCR' ? joinSplitSyllables(trimmed) : trimmed.replace(/\s{2,}/gu, ' ');
}

function digitsOf(value: string): string {
  return [...value].map((character) => DIGIT_LOOKALIKES[character] ?? character).join('')
    .replace(/[^0-9]/gu, '');
}

// The number as read when its checksum holds; otherwise the one reading reachable through a
// single common digit confusion that does (several such readings are as good as none).
export function correctNumber(digits: string, isValid: (digits: string) => boolean):
{ digits: string; corrected: boolean } | null {
  if (isValid(digits)) return { digits, corrected: false };
  const candidates = new Set<string>();
  for (let index = 0; index < digits.length; index += 1) {
    for (const replacement of DIGIT_CONFUSIONS[digits[index]!] ?? '') {
      const candidate = digits.slice(0, index) + replacement + digits.slice(index + 1);
      if (isValid(candidate)) candidates.add(candidate);
    }
  }
  return candidates.size === 1 ? { digits: [...candidates][0]!, corrected: true } : null;
}

// The runs of digits of a value that have the number's length.
function digitRunsOf(value: string, length: number): string[] {
  const digits = digitsOf(value);
  // A longer run may carry a neighbour's digits ("… 법인등록번호" on the same line is cut off by
  // its label, but a stray date is not): take the runs of the right length.
  return digits.length === length ? [digits]
    : (value.match(/[0-9OoIl|SB[\]-]{8,}/gu) ?? []).map(digitsOf)
      .filter((run) => run.length === length);
}

function numberReading(value: string, length: number, isValid: (digits: string) => boolean,
  confidence: number): FieldReading | null {
  for (const candidate of digitRunsOf(value, length)) {
    const corrected = correctNumber(candidate, isValid);
    if (corrected !== null) {
      return {
        value: corrected.digits,
        confidence: corrected.corrected ? confidence * CORRECTED_CONFIDENCE_FACTOR : confidence,
      };
    }
  }
  return null;
}

// Numbers read again from their own region of the image, digits only (an OCR reader's second
// look when a number's checksum failed).
const NUMBER_FIELDS = {
  businessRegistrationNumber: { length: 10, isValid: isValidBusinessRegistrationNumber },
  corporateRegistrationNumber: { length: 13, isValid: isValidCorporateRegistrationNumber },
} as const;
export type NumberFieldName = keyof typeof NUMBER_FIELDS;

// Where two readings of a number disagree, each digit read is a candidate: the one combination
// whose checksum holds is the number (several are as good as none). Tried before single digit
// confusions, because what two readings of the same print disagree on is where the misread is.
function agreedNumber(readings: string[], isValid: (digits: string) => boolean): string | null {
  const [first, ...others] = readings;
  if (first === undefined || others.length === 0) return null;
  const choices = [...first].map((digit, index) =>
    [...new Set([digit, ...others.map((reading) => reading[index]!)])]);
  const combinations = choices.reduce((product, options) => product * options.length, 1);
  // Past a few disagreements the readings are noise, not two looks at the same digits.
  if (combinations === 1 || combinations > 16) return null;
  let found: string[] = [''];
  for (const options of choices) {
    found = found.flatMap((prefix) => options.map((digit) => prefix + digit));
  }
  const valid = found.filter(isValid);
  return valid.length === 1 ? valid[0]! : null;
}

// A number from the line it was printed on as first read and from a digits-only second reading
// of the same region: whichever reading's checksum holds, else the combination of the two
// readings that does, else one common digit confusion of the second reading, else of the first.
export function rereadNumber(name: NumberFieldName, firstLine: string, reread: TextLine):
FieldReading | null {
  const { length, isValid } = NUMBER_FIELDS[name];
  const second = digitRunsOf(reread.text, length);
  const first = digitRunsOf(firstLine, length);
  const valid = second.find(isValid);
  if (valid !== undefined) return { value: valid, confidence: reread.confidence };
  const corrected = (digits: string) =>
    ({ value: digits, confidence: reread.confidence * CORRECTED_CONFIDENCE_FACTOR });
  if (second.length === 1 && first.length === 1) {
    const agreed = agreedNumber([second[0]!, first[0]!], isValid);
    if (agreed !== null) return corrected(agreed);
  }
  for (const digits of [...second, ...first]) {
    const fixed = correctNumber(digits, isValid);
    if (fixed !== null) return corrected(fixed.digits);
  }
  return null;
}

// The label of the number a line carries, if it carries one.
export function numberLabelOf(text: string): NumberFieldName | null {
  const hit = labelsOn(compactOf(text).compact)
    .find((label) => label.name === 'businessRegistrationNumber'
      || label.name === 'corporateRegistrationNumber');
  return (hit?.name as NumberFieldName | undefined) ?? null;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1900 && year <= 2999 && date.getUTCMonth() === month - 1
    && date.getUTCDate() === day;
}

// A Korean date without the specks OCR leaves before its counters (`19.일`, `01,월`).
function withoutDateSpecks(compact: string): string {
  return compact.replace(/(\d)[.,'`·]+(?=[년월일])/gu, '$1');
}

// `2015 년 04 월 01 일`, `2015.04.01`, `2015-04-01` → `2015-04-01`; null when not a date.
export function dateOf(value: string): string | null {
  const compact = withoutDateSpecks(value.replace(/\s+/gu, '')).replace(/[Oo]/gu, '0');
  const match = /(\d{4})년(\d{1,2})월(\d{1,2})일/u.exec(compact)
    ?? /(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})/u.exec(compact);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!isCalendarDate(year, month, day)) return null;
  return `${match[1]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

// `(주)`, `（주）` and `주식회사` are one form: the name is kept as printed, with the full-width
// parentheses made plain.
export function organizationNameOf(value: string): string {
  return value.normalize('NFKC').replace(/\(\s*주\s*\)/gu, '(주)').trim();
}

// Korean names have no spaces; OCR adds them between syllables.
function personNameOf(value: string): string {
  return /^[가-힣\s*]+$/u.test(value) ? value.replace(/\s+/gu, '') : value;
}

function fieldReading(name: FieldName, raw: string, line: TextLine, source: TextSource):
FieldReading | null {
  const value = cleanValue(raw, source);
  const confidence = line.confidence;
  switch (name) {
    case 'businessRegistrationNumber':
      return numberReading(value, 10, isValidBusinessRegistrationNumber, confidence);
    case 'corporateRegistrationNumber':
      return numberReading(value, 13, isValidCorporateRegistrationNumber, confidence);
    case 'openedOn':
    case 'issuedOn': {
      const date = dateOf(value);
      return date === null ? null : { value: date, confidence };
    }
    case 'organizationName':
      return value === '' ? null : { value: organizationNameOf(value), confidence };
    case 'representativeName':
      return value === '' ? null : { value: personNameOf(value), confidence };
    default:
      return value === '' ? null : { value, confidence };
  }
}

function keep(fields: CertificateReading['fields'], name: FieldName, reading: FieldReading | null) {
  const known = fields[name];
  if (reading !== null && (known === undefined || reading.confidence > known.confidence)) {
    fields[name] = reading;
  }
}

function readKind(compact: string, line: TextLine, fields: CertificateReading['fields']) {
  if (CORPORATE_KIND.test(compact) && compact.includes('법인사업자')) {
    keep(fields, 'kind', { value: 'corporate', confidence: line.confidence });
  } else if (INDIVIDUAL_KIND.test(compact)) {
    keep(fields, 'kind', { value: 'individual', confidence: line.confidence });
  }
}

// The reading with its kind told by its numbers when no kind was printed.
export function withInferredKind(reading: CertificateReading): CertificateReading {
  const fields = { ...reading.fields };
  inferKind(fields);
  return { ...reading, fields };
}

// Without a printed kind, the number tells: digits 4–5 of 81 to 88 are corporations.
function inferKind(fields: CertificateReading['fields']) {
  if (fields.kind !== undefined) return;
  const number = fields.businessRegistrationNumber;
  if (fields.corporateRegistrationNumber !== undefined) {
    fields.kind = { value: 'corporate', confidence: fields.corporateRegistrationNumber.confidence };
  } else if (number !== undefined) {
    const corporate = isCorporationNumber(number.value);
    fields.kind = { value: corporate ? 'corporate' : 'individual', confidence: number.confidence };
  }
}

export function readCertificate(lines: TextLine[], source: TextSource): CertificateReading {
  const fields: CertificateReading['fields'] = {};
  let titled = false;
  let lastDateLine: FieldReading | null = null;
  for (const line of lines) {
    const { compact, origin } = compactOf(line.text);
    if (compact === '') continue;
    if (TITLE.test(compact)) titled = true;
    readKind(compact, line, fields);
    if (DATE_ONLY_LINE.test(withoutDateSpecks(compact))) {
      const date = dateOf(compact);
      if (date !== null) lastDateLine = { value: date, confidence: line.confidence };
    }
    const hits = labelsOn(compact);
    hits.forEach((hit, index) => {
      if (hit.name === 'ignored') return;
      const next = hits[index + 1];
      const from = hit.end < origin.length ? origin[hit.end]! : line.text.length;
      const to = next === undefined ? line.text.length : origin[next.start]!;
      keep(fields, hit.name, fieldReading(hit.name, line.text.slice(from, to), line, source));
    });
  }
  // The issue date is printed on a line of its own above the tax office's name.
  if (fields.issuedOn === undefined && lastDateLine !== null) fields.issuedOn = lastDateLine;
  inferKind(fields);
  return { titled, fields };
}

// What the tax authority needs before it is asked: a number with a valid checksum, an opening
// date and a representative.
export function hasRequiredFields(reading: CertificateReading): boolean {
  const { businessRegistrationNumber, openedOn, representativeName } = reading.fields;
  return businessRegistrationNumber !== undefined && openedOn !== undefined
    && representativeName !== undefined;
}
