// The test projects of vitest.config.ts are lists of paths and patterns: a test that moves or is
// renamed would silently leave its list and run in the default project instead (the database
// one, in both modes). Every entry must name at least one test file that exists.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTEGRATION, UNIT } from '../../vitest.config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

const TEST_FILES = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .map((name) => `test/${name.split(path.sep).join('/')}`)
  .filter((name) => name.endsWith('.test.ts'));

// The patterns the lists use: `**/` for any folders, `*` for any part of one name.
function matcher(pattern: string): RegExp {
  const source = pattern.split('**/').map((part) => part.split('*')
    .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('(?:.*/)?');
  return new RegExp(`^${source}$`);
}

describe('the test projects of vitest.config.ts', () => {
  it('finds the test files', () => {
    expect(TEST_FILES).toContain('test/architecture/vitest-projects.test.ts');
  });

  it.each([...UNIT, ...INTEGRATION])('names a test file that exists: %s', (entry) => {
    const pattern = matcher(entry);
    expect(TEST_FILES.filter((file) => pattern.test(file)).length).toBeGreaterThan(0);
  });

  it('reads its patterns as the lists mean them', () => {
    expect(matcher('test/domain/**/*.test.ts').test('test/domain/ids.test.ts')).toBe(true);
    expect(matcher('test/domain/**/*.test.ts').test('test/domain/a/b.test.ts')).toBe(true);
    expect(matcher('test/areas/tax-invoices/pdf*.test.ts')
      .test('test/areas/tax-invoices/pdf-format.test.ts')).toBe(true);
    expect(matcher('test/config.test.ts').test('test/configs.test.ts')).toBe(false);
  });
});
