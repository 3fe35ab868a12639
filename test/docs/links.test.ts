// The guides point only at files of this repository: every relative link of the READMEs, the
// SDK's README and docs/ names a file or folder that exists, and none names a document kept
// outside the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');
// docs/ and its translations (docs/ko/).
const GUIDES = ['README.md', 'README.ko.md', 'sdk/README.md',
  ...readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const LINK = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g;

describe('the guides', () => {
  it.each(GUIDES)('%s links only to files that exist here', (guide) => {
    const text = readFileSync(path.join(ROOT, guide), 'utf8');
    const missing = [...text.matchAll(LINK)].map((match) => match[1]!)
      .filter((link) => !/^[a-z]+:/.test(link))
      .filter((link) => !existsSync(path.join(ROOT, path.dirname(guide), link)));
    expect(missing).toEqual([]);
    expect(text).not.toMatch(/\.\.\/shared|spec §|domain facts|DESIGN\.md|STYLE\.md|prior.art/i);
  });
});
