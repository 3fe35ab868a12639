// Reading certificate fields from lines of text (src/areas/certificate-verification/fields.ts):
// labels spaced out or split by OCR, numbers with checksums and one-digit corrections, Korean
// dates, the kinds of business, and a document that is not a certificate.
import { describe, expect, it } from 'vitest';
import {
  correctNumber,
  dateOf,
  hasRequiredFields,
  joinSplitSyllables,
  organizationNameOf,
  numberLabelOf,
  readCertificate,
  rereadNumber,
  type TextLine,
} from '../../../src/areas/certificate-verification/fields.ts';
import {
  isValidBusinessRegistrationNumber,
} from '../../../src/domain/business-registration-number.ts';

const lines = (...texts: string[]): TextLine[] => texts.map((text) => ({ text, confidence: 0.9 }));

describe('readCertificate', () => {
  it('reads a corporation certificate laid out as printed', () => {
    const reading = readCertificate(lines(
      '사 업 자 등 록 증',
      '( 법인사업자 )',
      '등록번호 : 124-81-00998',
      '법 인 명 ( 단 체 명 ) : 주식회사 이택스샌드박스',
      '대    표    자 : 홍길동',
      '개 업 연 월 일 : 2015 년 04 월 01 일   법인등록번호 : 110111-1234569',
      '사업장 소재지 : 서울특별시 강남구 테헤란로 123, 4층',
      '사업의 종류 : 업태 정보통신업   종목 응용 소프트웨어 개발 및 공급',
      '2025 년 01 월 15 일',
      '강남세무서장',
    ), 'PDF_TEXT');
    expect(reading.titled).toBe(true);
    const values = Object.fromEntries(Object.entries(reading.fields).map(([k, v]) => [k, v.value]));
    expect(values).toEqual({
      kind: 'corporate',
      businessRegistrationNumber: '1248100998',
      organizationName: '주식회사 이택스샌드박스',
      representativeName: '홍길동',
      openedOn: '2015-04-01',
      corporateRegistrationNumber: '1101111234569',
      address: '서울특별시 강남구 테헤란로 123, 4층',
      businessType: '정보통신업',
      businessItem: '응용 소프트웨어 개발 및 공급',
      issuedOn: '2025-01-15',
    });
    expect(hasRequiredFields(reading)).toBe(true);
  });

  it('reads what OCR split and smudged', () => {
    const reading = readCertificate(lines(
      '사 업 자 등 록 증',
      '( 일 반 과 세 자 )',
      '1, . 등 록 번호 : 837-65-O1341 .',
      '상 호 :해 오 름 건설. .',
      '성 _ 명:김 영 희',
      '개업연월일;2002 년08월 10일',
      '사업장 소재지 : 부 산 광역시 수영구 테헤란로 40, 12 층',
    ), 'OCR');
    const values = Object.fromEntries(Object.entries(reading.fields).map(([k, v]) => [k, v.value]));
    expect(values).toMatchObject({
      kind: 'individual',
      businessRegistrationNumber: '8376501341',
      organizationName: '해오름건설',
      representativeName: '김영희',
      openedOn: '2002-08-10',
      address: '부산광역시 수영구 테헤란로 40, 12층',
    });
  });

  it('halves the confidence of a number read through one digit confusion', () => {
    // 124-81-00998 with a 0 read as 8: one confusion away from one valid number only.
    const reading = readCertificate(lines('등록번호 : 124-81-80998'), 'OCR');
    expect(reading.fields.businessRegistrationNumber)
      .toEqual({ value: '1248100998', confidence: 0.45 });
  });

  it('finds labels whose syllables OCR misread by one stroke', () => {
    const reading = readCertificate(lines('듬록번호 : 124-81-00998', '범 인 명 ( 단 체 명 ) : 새솔',
      '럽인등록번호 : ]10111-1234569'), 'OCR');
    const values = Object.fromEntries(Object.entries(reading.fields).map(([k, v]) => [k, v.value]));
    expect(values).toMatchObject({ businessRegistrationNumber: '1248100998',
      organizationName: '새솔', corporateRegistrationNumber: '1101111234569' });
    expect(readCertificate(lines('상 _ 후 : 미래로푸드'), 'OCR').fields.organizationName?.value)
      .toBe('미래로푸드');
    expect(numberLabelOf('법인등록번호 : 1')).toBe('corporateRegistrationNumber');
    expect(numberLabelOf('듬록번호 : 1')).toBe('businessRegistrationNumber');
    expect(numberLabelOf('사업자등록증')).toBeNull();
  });

  it('finds a misread label by the colon that follows it, and looks through specks', () => {
    const reading = readCertificate(lines('능록번호 : 124-81-00998', '낭 _ 호 : 미래로유통',
      '성 _ . 명: 임지우', '랄급사유: 신규', '림인등록번호 : 110111-1234569'), 'OCR');
    const values = Object.fromEntries(Object.entries(reading.fields).map(([k, v]) => [k, v.value]));
    expect(values).toMatchObject({ businessRegistrationNumber: '1248100998',
      organizationName: '미래로유통', representativeName: '임지우',
      corporateRegistrationNumber: '1101111234569' });
    expect(numberLabelOf('능록번호 : 1')).toBe('businessRegistrationNumber');
    // Without the colon, or two syllables away from every label, nothing is guessed.
    expect(readCertificate(lines('낭 호 미래로유통', '가나다 : 라마'), 'OCR').fields).toEqual({});
  });

  it('finds nothing required in a document that is not a certificate', () => {
    const reading = readCertificate(lines('전자세금계산서', '공급자 등록번호 124-81-00998',
      '합계금액 110,000'), 'PDF_TEXT');
    expect(reading.titled).toBe(false);
    expect(hasRequiredFields(reading)).toBe(false);
  });
});

describe('normalisation', () => {
  it('reads Korean and dotted dates, and refuses days that do not exist', () => {
    expect(dateOf('2015 년 04 월 01 일')).toBe('2015-04-01');
    expect(dateOf('2015.4.1')).toBe('2015-04-01');
    expect(dateOf('2023 년 02 월 29 일')).toBeNull();
    expect(dateOf('없음')).toBeNull();
    expect(dateOf('2025 년 01 월 19.일')).toBe('2025-01-19');
    expect(readCertificate(lines('2025 년 01, 월 19.일', '강남세무서장'), 'OCR')
      .fields.issuedOn?.value).toBe('2025-01-19');
  });

  it('keeps a number whose checksum holds and corrects only an unambiguous misread', () => {
    expect(correctNumber('1248100998', isValidBusinessRegistrationNumber))
      .toEqual({ digits: '1248100998', corrected: false });
    expect(correctNumber('1248180998', isValidBusinessRegistrationNumber))
      .toEqual({ digits: '1248100998', corrected: true });
    // Two readings one confusion away (0 → 8 and 0 → 6) are as good as none.
    expect(correctNumber('100', (digits) => digits === '180' || digits === '106')).toBeNull();
    expect(correctNumber('100', () => false)).toBeNull();
  });

  it('reads a number again from a digits-only second look at its region', () => {
    const reread = (text: string) => ({ text, confidence: 0.8 });
    // The second look's checksum holds: it is taken at its own confidence.
    expect(rereadNumber('businessRegistrationNumber', '등록번호 : 124-81-0O9 9 8 7',
      reread('124-81-00998'))).toEqual({ value: '1248100998', confidence: 0.8 });
    // Each look misread a different digit: the one combination whose checksum holds.
    expect(rereadNumber('businessRegistrationNumber', '등록번호 : 124-81-80998',
      reread('124-81-00993'))).toEqual({ value: '1248100998', confidence: 0.4 });
    expect(rereadNumber('corporateRegistrationNumber', '법인등록번호 : 13011! 1-7489635',
      reread('130111-7489635'))).toEqual({ value: '1301117489635', confidence: 0.8 });
    expect(rereadNumber('businessRegistrationNumber', '등록번호 :', reread('12-3'))).toBeNull();
  });

  it('reads a floor misread after its number', () => {
    expect(joinSplitSyllables('세종대로 77, 2증')).toBe('세종대로 77, 2층');
  });

  it('writes (주) plainly and joins runs of single syllables only', () => {
    expect(organizationNameOf('（주）이택스')).toBe('(주)이택스');
    expect(joinSplitSyllables('이 택 스 샌 드 박스')).toBe('이택스샌드박스');
    expect(joinSplitSyllables('도매 및 소매업')).toBe('도매 및 소매업');
  });
});
