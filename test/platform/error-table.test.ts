// An error code comes into existence only in src/platform/errors.ts. This test
// keeps that table, docs/errors.md and openapi/openapi.json in step, in both directions where a
// list is complete: every code is documented, and neither the docs nor the OpenAPI document
// names a code the table lacks or gives a code another status. docs/errors.md holds a Markdown
// table whose first two columns are the HTTP status and the code in backticks:
//   | 400 | `INVALID_REQUEST` | … |
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UNAUTHENTICATED } from '../../src/platform/error-responses.ts';
import { ApiError, ERRORS, type ErrorCode } from '../../src/platform/errors.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS_FILE = path.join(ROOT, 'docs/errors.md');
const OPENAPI_FILE = path.join(ROOT, 'openapi/openapi.json');

// A row of the status table: `| 409 | `IDEMPOTENCY_CONFLICT` | …` (or `| 409 Conflict | …`).
const STATUS_ROW_PATTERN = /^\|\s*(\d{3})\b[^|]*\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/;
// An error code in backticks inside an OpenAPI response description.
const DESCRIBED_CODE_PATTERN = /`([A-Z][A-Z0-9_]{2,})`/g;

const CODES = Object.keys(ERRORS) as ErrorCode[];

type DocumentedCode = { status: number; code: string; line: string };

async function readDocs(): Promise<string> {
  try {
    return await readFile(DOCS_FILE, 'utf8');
  } catch {
    throw new Error('docs/errors.md is missing: it must list every code of src/platform/errors.ts');
  }
}

async function documentedCodes(): Promise<DocumentedCode[]> {
  const rows: DocumentedCode[] = [];
  for (const line of (await readDocs()).split('\n')) {
    const match = STATUS_ROW_PATTERN.exec(line.trim());
    if (match) rows.push({ status: Number(match[1]), code: match[2]!, line: line.trim() });
  }
  return rows;
}

// The 401 has no body and so no row in ERRORS; the docs may still name it.
function isKnownCode(code: string, status: number): boolean {
  if (code === UNAUTHENTICATED) return status === 401;
  return code in ERRORS && ERRORS[code as ErrorCode].status === status;
}

type OpenApiResponse = {
  description?: string;
  content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }>;
};
type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
};

type DescribedResponse = { where: string; status: string; description: string;
  codes: string[] };

async function openApiResponses(): Promise<DescribedResponse[]> {
  const document = JSON.parse(await readFile(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  const responses: DescribedResponse[] = [];
  for (const [route, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const where = `${method.toUpperCase()} ${route} ${status}`;
        const codes = response.content?.['application/json']?.schema?.properties?.code?.enum;
        responses.push({ where, status, description: response.description ?? '',
          codes: codes ?? [] });
      }
    }
  }
  return responses;
}

describe('the ERRORS table', () => {
  it('gives every code a status between 400 and 599', () => {
    for (const code of CODES) {
      expect(ERRORS[code].status, code).toBeGreaterThanOrEqual(400);
      expect(ERRORS[code].status, code).toBeLessThanOrEqual(599);
    }
  });

  it('names every code in UPPER_SNAKE case with a sentence as its default message', () => {
    for (const code of CODES) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(ERRORS[code].message, code).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('has no row for 401, which is answered without a body', () => {
    expect(CODES.map((code) => ERRORS[code].status)).not.toContain(401);
    expect(CODES).not.toContain(UNAUTHENTICATED);
  });

  it('contains every code with its status', () => {
    const spec: Record<string, number> = {
      INVALID_REQUEST: 400,
      INVALID_BUSINESS_REGISTRATION_NUMBER: 400,
      PAYMENT_REQUIRED: 402,
      NOT_FOUND: 404,
      AVAILABLE_POINTS_INSUFFICIENT: 409,
      IDEMPOTENCY_CONFLICT: 409,
      RATE_LIMITED: 429,
      INTERNAL_SERVER_ERROR: 500,
      LOOKUP_UNAVAILABLE: 503,
      SERVICE_UNAVAILABLE: 503,
    };
    for (const [code, status] of Object.entries(spec)) {
      expect(isKnownCode(code, status), `${code} ${status}`).toBe(true);
    }
  });

  it('makes an ApiError take its status from the table and its message by default', () => {
    for (const code of CODES) {
      const error = new ApiError(code);
      expect(error.status).toBe(ERRORS[code].status);
      expect(error.message).toBe(ERRORS[code].message);
    }
  });
});

describe('docs/errors.md', () => {
  it('mentions every code of ERRORS in backticks', async () => {
    const docs = await readDocs();
    const missing = CODES.filter((code) => !docs.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it('has a status table row for every code of ERRORS, with the same status', async () => {
    const rows = await documentedCodes();
    const missing = CODES.filter(
      (code) => !rows.some((row) => row.code === code && row.status === ERRORS[code].status),
    );
    expect(missing).toEqual([]);
  });

  it('lists no code in its status table that ERRORS lacks or gives another status', async () => {
    const rows = await documentedCodes();
    expect(rows.length).toBeGreaterThan(0);
    const unknown = rows.filter((row) => !isKnownCode(row.code, row.status));
    expect(unknown.map((row) => row.line)).toEqual([]);
  });
});

describe('openapi/openapi.json', () => {
  it('names only codes of ERRORS in response descriptions, each under its own status', async () => {
    const mismatches: string[] = [];
    let namedCount = 0;
    for (const { where, status, description } of await openApiResponses()) {
      for (const [, code] of description.matchAll(DESCRIBED_CODE_PATTERN)) {
        namedCount += 1;
        if (!isKnownCode(code!, Number(status))) mismatches.push(`${where}: ${code}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(namedCount).toBeGreaterThan(0);
  });

  it('lists in every error response\'s `code` the codes it describes, all of that status',
    async () => {
      const mismatches: string[] = [];
      for (const { where, status, description, codes } of await openApiResponses()) {
        if (Number(status) < 400 || status === '401') continue;
        const described = [...description.matchAll(DESCRIBED_CODE_PATTERN)].map(([, code]) => code);
        if (JSON.stringify(codes) !== JSON.stringify(described)) {
          mismatches.push(`${where}: code lists ${codes.join(', ')}`);
        }
        for (const code of codes) {
          if (!isKnownCode(code, Number(status))) mismatches.push(`${where}: ${code}`);
        }
      }
      expect(mismatches).toEqual([]);
    });

  it('names at least one code in every error response except 401', async () => {
    const namesNoCode = (description: string) =>
      [...description.matchAll(DESCRIBED_CODE_PATTERN)].length === 0;
    const silent = (await openApiResponses()).filter(
      ({ status, description }) =>
        Number(status) >= 400 && status !== '401' && namesNoCode(description),
    );
    expect(silent.map(({ where }) => where)).toEqual([]);
  });
});

describe('the messages of every code', () => {
  it('are written in English and in Korean', () => {
    for (const code of CODES) {
      const { message, messageKo } = ERRORS[code];
      expect(message, code).toMatch(/^[A-Z]/);
      expect(messageKo, code).toMatch(/[\uAC00-\uD7A3]/);
      expect(messageKo, code).not.toBe(message);
    }
  });
});
