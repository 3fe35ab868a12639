import {
  cursorInteger,
  cursorString,
  type CursorList,
  type PageCursors,
} from '../../../platform/cursor.ts';
import type { Scope } from '../../../platform/scope.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { BusinessProfile } from '../../../upstream/business-profiles/index.ts';
import {
  SANDBOX_CORPORATION,
  SANDBOX_NEVER_CHECKED,
  SANDBOX_SOLE_PROPRIETOR,
} from '../../../upstream/business-profiles/sandbox.ts';
import type { SearchProfileRowsOptions, SearchRankKey } from './store.ts';

// Profile search (docs/business-profiles.md § Search profiles): query parsing, the opaque cursor,
// and the two search sources — the profile store for live keys and the sandbox profiles for test
// keys. Both rank the same way (store.ts § SearchRankKey): the exact number, then number prefixes,
// then exact names, then other name matches by trigram similarity, ties by number.

const SEARCH_QUERY_LENGTH_MAX = 100;
const NUMBER_DIGITS = 10;
const SCORE_MAX = 1_000_000;
const TIER_EXACT_NAME = 2;
const TIER_NAME = 3;
// The C0 controls end here; DEL is the only other ASCII control.
const C0_CONTROL_END = 0x1f;
const DELETE = 0x7f;

type RankedProfile = { profile: BusinessProfile; rank: SearchRankKey };
export type ProfileSearch = (options: SearchProfileRowsOptions) => Promise<RankedProfile[]>;

// The trimmed query and, for a query of digits and hyphens only with 1 to 10 digits, its
// digits (a full or partial number). A query empty or too long once trimmed, or with a control
// character, is 400 INVALID_REQUEST.
export function parseSearchQuery(query: string): { text: string; digits: string | null } {
  const text = query.trim();
  if (text.length < 1 || text.length > SEARCH_QUERY_LENGTH_MAX) {
    throw new ApiError('INVALID_REQUEST',
      `query.query must have 1 to ${SEARCH_QUERY_LENGTH_MAX} characters once trimmed.`);
  }
  if (hasControlCharacter(text)) {
    throw new ApiError('INVALID_REQUEST', 'query.query must not contain control characters.');
  }
  const digits = text.replace(/-/g, '');
  const isNumber = /^[0-9-]+$/.test(text) && digits.length >= 1 && digits.length <= NUMBER_DIGITS;
  return { text, digits: isNumber ? digits : null };
}

// Names and numbers never hold control characters, and PostgreSQL text cannot hold NUL at all:
// a query with one could match nothing and must not reach the store, where NUL fails the query.
function hasControlCharacter(text: string): boolean {
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code <= C0_CONTROL_END || code === DELETE) return true;
  }
  return false;
}

const searchList = (scope: Scope): CursorList => ({ list: 'businesses.profiles.search', scope });

export function encodeSearchCursor(cursors: PageCursors, scope: Scope,
  rank: SearchRankKey): string {
  return cursors.encode(searchList(scope),
    [rank.tier, rank.score, rank.businessRegistrationNumber]);
}

// The rank key of a cursor (platform/cursor.ts).
export function decodeSearchCursor(cursors: PageCursors, scope: Scope,
  cursor: string): SearchRankKey {
  const [tier, score, number] = cursors.decode<[number, number, string]>(searchList(scope),
    cursor, [cursorInteger(0, TIER_NAME), cursorInteger(0, SCORE_MAX),
      cursorString(/^[0-9]{10}$/u)]);
  return { tier, score, businessRegistrationNumber: number };
}

// -1 when a ranks before b, 1 after, 0 for the same key.
function compareRank(a: SearchRankKey, b: SearchRankKey): number {
  if (a.tier !== b.tier) return a.tier < b.tier ? -1 : 1;
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.businessRegistrationNumber === b.businessRegistrationNumber) return 0;
  return a.businessRegistrationNumber < b.businessRegistrationNumber ? -1 : 1;
}

// pg_trgm's trigrams: each word (letters and digits) lower-cased, padded with two spaces before
// and one after. Hangul syllables are letters, so Korean names get trigrams like any other.
function trigrams(text: string): Set<string> {
  const result = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const characters = [' ', ' ', ...word, ' '];
    for (let index = 0; index + 3 <= characters.length; index += 1) {
      result.add(characters.slice(index, index + 3).join(''));
    }
  }
  return result;
}

// pg_trgm's similarity(): shared trigrams over the trigrams of both.
function similarity(a: string, b: string): number {
  const left = trigrams(a);
  const right = trigrams(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const trigram of left) if (right.has(trigram)) shared += 1;
  return shared / (left.size + right.size - shared);
}

const SANDBOX_SEARCHABLE: readonly BusinessProfile[] = [
  SANDBOX_CORPORATION,
  SANDBOX_SOLE_PROPRIETOR,
  SANDBOX_NEVER_CHECKED,
];

// The sandbox search of test keys: the sandbox profiles that retrieve with 200, filtered and
// ranked in memory by the store's rules (the score uses similarity() only).
export function createSandboxProfileSearch(): ProfileSearch {
  return async ({ text, digits, after, limit }) => {
    const needle = text.toLowerCase();
    const ranked: RankedProfile[] = [];
    for (const profile of SANDBOX_SEARCHABLE) {
      const number = profile.businessRegistrationNumber;
      const names = [profile.organizationName ?? '', profile.representativeName ?? ''];
      const numberTier = digits === null ? TIER_NAME
        : number === digits ? 0
          : number.startsWith(digits) ? 1 : TIER_NAME;
      const nameMatch = names.some((name) => name.toLowerCase().includes(needle));
      if (numberTier === TIER_NAME && !nameMatch) continue;
      const tier = numberTier < TIER_NAME ? numberTier
        : names.some((name) => name.toLowerCase() === needle) ? TIER_EXACT_NAME : TIER_NAME;
      const score = tier < TIER_NAME
        ? 0
        : Math.round(Math.max(...names.map((name) => similarity(name, text))) * SCORE_MAX);
      const rank = { tier, score, businessRegistrationNumber: number };
      ranked.push({ profile, rank });
    }
    return ranked
      .filter((entry) => after === null || compareRank(entry.rank, after) > 0)
      .sort((a, b) => compareRank(a.rank, b.rank))
      .slice(0, limit);
  };
}
