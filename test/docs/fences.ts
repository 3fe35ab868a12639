// The fenced code blocks of the guides, and which of them are examples a reader runs: shell blocks
// (curl and the `etax` command) and TypeScript or JavaScript that imports @etax/sdk. An example a
// test does not run says so and why, in an HTML comment on the lines just above its fence, which
// renderers do not show:
//
//   <!-- not run: starts the server, which the test starts itself -->
//   ```sh
//   npm start
//   ```
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Fence = {
  language: string;
  code: string;
  // 1-based line of the opening fence, for messages.
  line: number;
  // The reason given by a `<!-- not run: … -->` comment above the fence, or null.
  notRun: string | null;
};

const OPENING = /^ *```([\w-]*)\s*$/;
const CLOSING = /^ *```\s*$/;
const NOT_RUN = /^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$/;
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const SCRIPT = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

export function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const found: Fence[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = OPENING.exec(lines[index]!);
    if (!opening) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !CLOSING.test(lines[index]!); index += 1) {
      body.push(lines[index]!);
    }
    let above = start - 1;
    while (above >= 0 && lines[above]!.trim() === '') above -= 1;
    const marker = above >= 0 ? NOT_RUN.exec(lines[above]!) : null;
    found.push({ language: opening[1]!, code: body.map((line) => `${line}\n`).join(''),
      line: start + 1, notRun: marker ? marker[1]! : null });
  }
  return found;
}

export const isShell = (fence: Fence) => SHELL.has(fence.language);
const callsCurl = (fence: Fence) => isShell(fence) && /(^|\s|\$\()curl /m.test(fence.code);
const usesSdk = (fence: Fence) => SCRIPT.has(fence.language) &&
  /from '@etax\/sdk'/.test(fence.code);

// A guide's examples: its shell blocks that call curl and its blocks that use the SDK. A guide
// with a curl example that runs runs all its shell blocks in order, since the others set up or
// follow the curl calls (`npx etax sandbox certificate` before its upload): they are examples
// too.
export function examples(markdown: string): Fence[] {
  const all = fences(markdown);
  const runsCurl = all.some((fence) => callsCurl(fence) && fence.notRun === null);
  return all.filter((fence) => (runsCurl ? isShell(fence) : callsCurl(fence)) ||
    usesSdk(fence));
}

// The guides a reader runs examples from: the READMEs and docs/ with its translations.
export function guides(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', 'README.ko.md', ...docs].sort();
}

export function readGuide(guide: string): string {
  return readFileSync(path.join(ROOT, guide), 'utf8');
}
