// The kind digits of a corporate registration number (digits 5–6) against the registry's table
// of kind numbers (docs/documents.md § Supported corporations): each number of the table is
// given the API's kind it belongs to, and numbers outside the table (foreign companies, unused
// numbers) are refused.
import { describe, expect, it } from 'vitest';
import { corporationKindOf } from '../../src/domain/corporation-kinds.ts';

const withKind = (kind: string) => `1101${kind}0000000`;

describe('corporationKindOf', () => {
  it.each([
    ['11', 'STOCK_COMPANY'],
    ['12', 'GENERAL_PARTNERSHIP_COMPANY'],
    ['13', 'LIMITED_PARTNERSHIP_COMPANY'],
    ['14', 'LIMITED_COMPANY'],
    ['15', 'LIMITED_LIABILITY_COMPANY'],
    ['21', 'INCORPORATED_ASSOCIATION'],
    ['22', 'INCORPORATED_FOUNDATION'],
    ['31', 'OTHER_CORPORATE_ENTITY'], // 학교법인
    ['32', 'OTHER_CORPORATE_ENTITY'], // 사회복지법인, not a medical corporation
    ['33', 'MEDICAL_CORPORATION'], // 의료법인, not a cooperative
    ['34', 'OTHER_CORPORATE_ENTITY'], // 회계법인
    ['36', 'COOPERATIVE'], // 농업협동조합
    ['38', 'COOPERATIVE'], // 수산업협동조합
    ['39', 'COOPERATIVE'], // 산림조합
    ['41', 'COOPERATIVE'], // 신용협동조합
    ['44', 'OTHER_CORPORATE_ENTITY'], // 새마을금고
    ['46', 'OTHER_CORPORATE_ENTITY'], // 법무법인
    ['47', 'OTHER_CORPORATE_ENTITY'], // 상공회의소
    ['50', 'COOPERATIVE'], // 공업협동조합
    ['53', 'OTHER_CORPORATE_ENTITY'],
    ['71', 'OTHER_CORPORATE_ENTITY'], // 분류할 수 없는 법인
  ])('gives kind number %s the kind %s', (digits, kind) => {
    expect(corporationKindOf(withKind(digits))).toBe(kind);
  });

  it('accepts every number from 31 to 53, the corporations of special acts', () => {
    for (let number = 31; number <= 53; number += 1) {
      expect(corporationKindOf(withKind(String(number)))).not.toBeNull();
    }
  });

  it.each(['00', '10', '16', '20', '23', '30', '54', '70', '72', '81', '84', '86', '99'])(
    'refuses kind number %s, which names no domestic kind of the table', (digits) => {
      expect(corporationKindOf(withKind(digits))).toBeNull();
    });

  it('reads no inherited property as a kind', () => {
    expect(corporationKindOf('1101__0000000')).toBeNull();
    expect(corporationKindOf(withKind('to'))).toBeNull();
  });
});
