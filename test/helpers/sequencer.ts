import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The order in which the test files start: longest first, whatever their project, so that the
// files that spawn `etax` processes (tens of seconds each) do not start last and run alone at
// the end. Vitest's own order runs the projects one after another. A file's duration comes
// from the previous run on this checkout; without one (a fresh clone, as in CI) the files
// below are taken to be the long ones, and the rest follow, larger files first.

const LONG_FILES = [/^test\/cli\//, /^test\/integration\//, /^test\/api\/operation-contract\./];
// Sorts above any measured duration.
const LONG_MS = Number.MAX_SAFE_INTEGER;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const facts = new Map(files.map((spec) => {
      const file = relative(config.root, spec.moduleId);
      const results = cache.getFileTestResults(`${spec.project.name}:${file}`);
      const size = cache.getFileStats(`${spec.project.name}:${file}`)?.size ?? 0;
      const durationMs = results?.duration
        ?? (LONG_FILES.some((pattern) => pattern.test(file)) ? LONG_MS : 0);
      return [spec, { failed: results?.failed ?? false, durationMs, size }];
    }));
    return [...files].sort((a, b) => {
      const first = facts.get(a)!;
      const second = facts.get(b)!;
      if (first.failed !== second.failed) return first.failed ? -1 : 1;
      return second.durationMs - first.durationMs || second.size - first.size;
    });
  }
}
