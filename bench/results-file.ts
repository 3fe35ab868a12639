import { existsSync, readFileSync, writeFileSync } from 'node:fs';

// bench/RESULTS.md is made of marked sections, `<!-- name -->` … `<!-- /name -->`, each written
// by one benchmark (or by hand, the history). A benchmark replaces its own section and leaves
// every other one as it is.

export type MarkedSection = { name: string; text: string };

// The marked sections of a results file, in order.
export function markedSections(contents: string): MarkedSection[] {
  return [...contents.matchAll(/<!-- ([a-z:-]+) -->[\s\S]*?<!-- \/\1 -->/g)]
    .map((match) => ({ name: match[1]!, text: match[0] }));
}

export const marked = (name: string, lines: readonly string[]) =>
  [`<!-- ${name} -->`, ...lines, `<!-- /${name} -->`].join('\n');

// Replaces the section `name` of the file with `text` (its markers included), or appends it.
export function writeResultsSection(file: string | URL, name: string, text: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const own = markedSections(previous).find((section) => section.name === name);
  writeFileSync(file, own === undefined ? `${previous.trimEnd()}\n\n${text}\n`
    : previous.replace(own.text, () => text));
}
