import { afterAll, afterEach } from 'vitest';
import { takeResponseViolations } from './response-contract.ts';

// Fails the test during which a test app sent a response that breaks openapi/openapi.json
// (test/helpers/response-contract.ts), and the file when its setup or teardown did. A response
// a test provokes on purpose must be declared too: fix the document or the server, never this.
function failOnViolations(when: string) {
  const found = takeResponseViolations();
  if (found.length > 0) {
    throw new Error(`${when}, the server sent responses that break openapi/openapi.json:\n` +
      found.map((violation) => `- ${violation}`).join('\n'));
  }
}

afterEach(() => failOnViolations('During this test'));
afterAll(() => failOnViolations('While the file set up or tore down its tests'));
