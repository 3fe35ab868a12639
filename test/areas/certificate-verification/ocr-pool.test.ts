// The OCR pool (src/areas/certificate-verification/ocr-pool.ts): its trained data is on disk in
// node_modules, so nothing is downloaded, and a full pool refuses at once instead of queueing.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createOcrPool,
  LANGUAGE_PATHS,
} from '../../../src/areas/certificate-verification/ocr-pool.ts';
import { ReadersBusy } from '../../../src/areas/certificate-verification/worker-pool.ts';

describe('trained data', () => {
  it('is read from the npm packages in node_modules, never from the network', () => {
    for (const [language, directory] of Object.entries(LANGUAGE_PATHS)) {
      expect(path.isAbsolute(directory)).toBe(true);
      expect(directory).toContain(`${path.sep}node_modules${path.sep}@tesseract.js-data`);
      const file = path.join(directory, `${language}.traineddata.gz`);
      expect(existsSync(file), file).toBe(true);
      expect(statSync(file).size).toBeGreaterThan(1_000_000);
    }
  });
});

describe('the queue bound', () => {
  it('refuses work beyond the workers and the queue at once, and takes it again after',
    async () => {
    const pool = createOcrPool({ workers: 1, queueMax: 1 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const first = pool.run(() => held);
      const second = pool.run(async () => 'second');
      await expect(pool.run(async () => 'third')).rejects.toBeInstanceOf(ReadersBusy);
      expect(pool.inFlight()).toBe(2);
      release();
      await first;
      expect(await second).toBe('second');
      expect(await pool.run(async () => 'again')).toBe('again');
      expect(pool.inFlight()).toBe(0);
    } finally {
      await pool.close();
    }
    await expect(pool.run(async () => 'closed')).rejects.toBeInstanceOf(ReadersBusy);
  }, 60_000);
});
