import { describe, expect, it } from 'vitest';
import { DICTIONARIES, LOCALES, translator } from '../../src/dashboard/i18n/index.ts';
import { formatDateTime, formatDateWithWeekday, formatPoints, formatWon } from
  '../../src/dashboard/format.ts';
import { PERMISSIONS, ROLES, roleMay } from '../../src/dashboard/roles.ts';

// The dictionaries have the same keys and the same placeholders in every language; formats
// and the role table say what docs/dashboard.md says.

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('dashboard dictionaries', () => {
  it('have the same keys in every language', () => {
    const korean = Object.keys(DICTIONARIES.ko).sort();
    for (const locale of LOCALES) expect(Object.keys(DICTIONARIES[locale]).sort()).toEqual(korean);
  });

  it('have the same placeholders in every language, and no empty text', () => {
    for (const [key, text] of Object.entries(DICTIONARIES.ko)) {
      for (const locale of LOCALES) {
        const other = DICTIONARIES[locale][key as keyof typeof DICTIONARIES.ko];
        expect(other.trim().length, `${locale} ${key}`).toBeGreaterThan(0);
        expect(placeholders(other), `${locale} ${key}`).toEqual(placeholders(text));
      }
    }
  });

  it('puts values into their placeholders', () => {
    expect(translator('en')('signIn.limited', { minutes: 15 })).toBe(
      'Too many sign-in attempts. Try again in 15 minutes.');
  });
});

describe('dashboard formats', () => {
  it('groups amounts and points the Korean way', () => {
    expect(formatWon(1_234_000)).toBe('1,234,000원');
    expect(formatPoints(0)).toBe('0 P');
  });

  it('writes times in Seoul whatever the server\'s zone', () => {
    expect(formatDateTime(new Date('2026-11-27T15:30:00Z'))).toBe('2026-11-28 00:30');
    expect(formatDateWithWeekday('2026-12-10', 'ko')).toBe('2026-12-10 (목)');
  });
});

describe('dashboard roles', () => {
  it('lets a viewer read only, and gives ownership to the owner alone', () => {
    const granted = (permission: keyof typeof PERMISSIONS) =>
      ROLES.filter((role) => roleMay(role, permission));
    expect(Object.keys(PERMISSIONS).filter((p) => roleMay('viewer', p as never)))
      .toEqual(['account.read']);
    expect(granted('keys.manage')).toEqual(['owner', 'admin', 'developer']);
    expect(granted('documents.issue')).toEqual(['owner', 'admin', 'issuer']);
    expect(granted('team.manage')).toEqual(['owner', 'admin']);
    expect(granted('account.own')).toEqual(['owner']);
    // Admin: everything but ownership.
    for (const permission of Object.keys(PERMISSIONS) as Array<keyof typeof PERMISSIONS>) {
      expect(roleMay('admin', permission)).toBe(permission !== 'account.own');
    }
  });
});
