// Every reference to a heading of a guide resolves: a `docs/x.md § Heading` in the code's
// comments and strings or in the guides, and a markdown link's `#anchor` (to its own page or to
// another), in src/, docs/ and the READMEs. A heading renamed without its references fails here.
// Method: read each guide's headings outside code blocks and the anchors GitHub makes of them;
// in code, read comments that wrap over lines and strings split with `+` as one text.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');

function filesUnder(folder: string, pattern: RegExp): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => pattern.test(name)).map((name) => path.join(folder, name));
}

const SOURCES = [...filesUnder('src', /\.tsx?$/), ...filesUnder('docs', /\.md$/), 'README.md',
  'README.ko.md'];

type Headings = { texts: string[]; anchors: Set<string> };

// A heading as it reads: no backticks, links as their text, single spaces.
function plainHeading(raw: string): string {
  return raw.replace(/\s+#+\s*$/, '').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ').trim();
}

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; a repeated
// heading gets -1, -2, … .
function anchorOf(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

const headingsByFile = new Map<string, Headings>();

function headingsOf(file: string): Headings {
  let headings = headingsByFile.get(file);
  if (headings === undefined) {
    const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    const texts = [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => plainHeading(match[1]!));
    const anchors = new Set<string>();
    const seen = new Map<string, number>();
    for (const heading of texts) {
      const anchor = anchorOf(heading);
      const count = seen.get(anchor) ?? 0;
      anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
      seen.set(anchor, count + 1);
    }
    headings = { texts, anchors };
    headingsByFile.set(file, headings);
  }
  return headings;
}

// The guide a reference names: from the repository's root, or beside the file that names it.
function guideOf(source: string, target: string): string | null {
  const candidates = [path.normalize(target), path.join(path.dirname(source), target)];
  return candidates.find((candidate) => existsSync(path.join(ROOT, candidate))) ?? null;
}

// The text of a source file with its comments' line breaks and its split strings joined, so a
// reference reads as one line.
function joined(file: string): string {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  if (file.endsWith('.md')) return text.replace(/\s*\n\s*/g, ' ');
  return text.replace(/'\s*\+\s*'/g, '').replace(/\s*\n\s*(?:\/\/|\*)?\s*/g, ' ');
}

// Whether `rest` (the text after `§ `) begins with a heading of the guide: the heading whole,
// or without its parenthesised gloss (`Late issuance` for `Late issuance (지연발급)`), ending
// where the sentence or the parenthesis does.
function namesHeading(rest: string, headings: Headings): boolean {
  const text = rest.replace(/`/g, '');
  return headings.texts.some((heading) => [heading, heading.replace(/\s*\([^)]*\)$/, '')]
    .some((name) => text.startsWith(name) &&
      /^($|[\s).,;:'"\]—])/.test(text.slice(name.length))));
}

type Problem = string;

function sectionProblems(file: string): { checked: number; problems: Problem[] } {
  const text = joined(file);
  const problems: Problem[] = [];
  let checked = 0;
  for (const match of text.matchAll(/([\w./-]+\.md)\s*§\s*/g)) {
    checked += 1;
    const rest = text.slice(match.index + match[0].length, match.index + match[0].length + 120);
    const guide = guideOf(file, match[1]!);
    if (guide === null) {
      problems.push(`${file}: ${match[1]} does not exist`);
    } else if (!namesHeading(rest, headingsOf(guide))) {
      problems.push(`${file}: ${match[1]} has no heading "${rest.slice(0, 60)}…"`);
    }
  }
  return { checked, problems };
}

function anchorProblems(file: string): { checked: number; problems: Problem[] } {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const links = file.endsWith('.md')
    ? [...text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)]
    : [...text.matchAll(/([\w./-]+\.md)#([\p{L}\p{N}_-]+)/gu)];
  const problems: Problem[] = [];
  for (const [, target, anchor] of links) {
    if (/^[a-z]+:/.test(target!)) continue;
    const guide = target === '' ? file : guideOf(file, target!);
    if (guide === null) {
      problems.push(`${file}: ${target} does not exist`);
    } else if (!headingsOf(guide).anchors.has(decodeURIComponent(anchor!))) {
      problems.push(`${file}: ${guide} has no heading #${anchor}`);
    }
  }
  return { checked: links.length, problems };
}

describe('references to headings', () => {
  const sections = SOURCES.map(sectionProblems);
  const anchors = SOURCES.map(anchorProblems);

  it('finds the references it checks', () => {
    expect(sections.reduce((sum, { checked }) => sum + checked, 0)).toBeGreaterThan(100);
    expect(anchors.reduce((sum, { checked }) => sum + checked, 0)).toBeGreaterThan(20);
  });

  it('resolves every `§ Heading` to a heading of the guide it names', () => {
    expect(sections.flatMap(({ problems }) => problems)).toEqual([]);
  });

  it('resolves every markdown anchor to a heading of its page', () => {
    expect(anchors.flatMap(({ problems }) => problems)).toEqual([]);
  });

  it.each([
    ['Order of checks)', true],
    ['Order)', false],
    ['Late issuance (지연발급))', true],
    ['Late issuance).', true],
    ['Late issue).', false],
  ])('reads "§ %s" as naming a heading: %s', (rest, names) => {
    const headings = { texts: ['Order of checks', 'Late issuance (지연발급)'],
      anchors: new Set<string>() };
    expect(namesHeading(rest, headings)).toBe(names);
  });

  it('makes the anchors GitHub makes', () => {
    expect(anchorOf('Trustee issuance (위수탁)')).toBe('trustee-issuance-위수탁');
    expect(anchorOf('Behind a load balancer and PgBouncer')).toBe(
      'behind-a-load-balancer-and-pgbouncer');
    expect(anchorOf('Price, order of checks, limits')).toBe('price-order-of-checks-limits');
  });
});
