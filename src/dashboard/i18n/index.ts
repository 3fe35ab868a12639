import { en } from './en.ts';
import { ko } from './ko.ts';

// The dashboard's languages: Korean first, English as the switch. Every text a page shows is a
// key of these dictionaries; the English one must have exactly the Korean one's keys (its type
// says so, and test/dashboard/i18n.test.ts checks the placeholders too).

export const LOCALES = ['ko', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
export type MessageKey = keyof typeof ko;
export type Dictionary = { readonly [K in MessageKey]: string };

export const DICTIONARIES: Record<Locale, Dictionary> = { ko, en };

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const dictionary = DICTIONARIES[locale];
  return (key, values) => {
    const text = dictionary[key];
    if (values === undefined) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
      (name in values ? String(values[name]) : whole));
  };
}

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
