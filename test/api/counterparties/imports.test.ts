// Counterparty imports (docs/counterparties.md § Import): a CSV or xlsx file is read, every row
// checked with its errors by column, and committed once. Bad forms and files get their 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { basicAuth, jsonRequest } from '../../helpers/http.ts';
import { validNumbers } from '../../helpers/business-numbers.ts';
import { BOUNDARY, csv, form, upload, workbookOf } from './helpers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});


type ImportView = { id: string; status: string; validRows: number; invalidRows: number;
  createdCount: number | null; rows: Array<{ row: number; values: Record<string, string>;
    errors: Array<{ column: string | null; message: string }> }> };

const HEADER = ['사업자등록번호', '상호', '대표자명', '담당자 이메일', '메모'];

async function preview(key: string, file: Buffer | string, fileName?: string) {
  const response = await app.server.inject(upload(key, file, fileName));
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ImportView;
}

const commit = (key: string, id: string) => app.server.inject({ method: 'POST',
  url: `/v1/counterpartyImports/${id}:commit`, headers: { authorization: basicAuth(key) } });

async function bookSize(key: string) {
  const response = await app.server.inject(jsonRequest(key, 'GET', '/v1/counterparties?limit=100',
    undefined));
  return (response.json() as { counterparties: unknown[] }).counterparties.length;
}

describe('a CSV file', () => {
  it('is previewed row by row with errors by column, then committed once', async () => {
    const { keys } = await app.createAccount();
    const [one, two] = validNumbers(2, '5150');
    const file = csv([HEADER,
      [one!, '주식회사 하나', '김하나', 'one@example.com', '<b>memo</b>'],
      ['123-45-67890', '주식회사 둘', '박둘', 'not-an-email', ''],
      [two!, '', '이셋', '', ''],
      [one!, '주식회사 하나 again', '김하나', '', '']]);
    const imported = await preview(keys.test, file);
    expect(imported).toMatchObject({ status: 'PREVIEWED', validRows: 1, invalidRows: 3,
      createdCount: null });
    expect(imported.rows.map((row) => row.row)).toEqual([2, 3, 4, 5]);
    expect(imported.rows[0]!.errors).toEqual([]);
    expect(imported.rows[0]!.values.memo).toBe('<b>memo</b>');
    const columns = (index: number) => imported.rows[index]!.errors.map((error) => error.column);
    expect(columns(1).sort()).toEqual(['businessRegistrationNumber', 'managerEmail'].sort());
    expect(columns(2)).toEqual(['organizationName']);
    expect(imported.rows[3]!.errors).toEqual([{ column: 'businessRegistrationNumber',
      message: 'repeats row 2' }]);
    expect(await bookSize(keys.test)).toBe(0);

    // Retried, and sent twice at once: one commit adds the row.
    const [first, second] = await Promise.all([commit(keys.test, imported.id),
      commit(keys.test, imported.id)]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'COMMITTED', createdCount: 1 });
    expect(second.json()).toEqual(first.json());
    const again = await commit(keys.test, imported.id);
    expect(again.json()).toEqual(first.json());
    expect(await bookSize(keys.test)).toBe(1);

    // The same file again: its row is now in the book.
    const repeated = await preview(keys.test, file);
    expect(repeated.validRows).toBe(0);
    expect(repeated.rows[0]!.errors).toEqual([{ column: 'businessRegistrationNumber',
      message: 'is already in the counterparty book' }]);
    expectError(await commit(keys.test, repeated.id), 409, 'COUNTERPARTY_IMPORT_EMPTY');
    const read = await app.server.inject({ method: 'GET',
      url: `/v1/counterpartyImports/${imported.id}`,
      headers: { authorization: basicAuth(keys.test) } });
    expect(read.json()).toEqual(first.json());
  });

  it('is read in EUC-KR when it is not UTF-8, with English keys as headers too', async () => {
    const { keys } = await app.createAccount();
    const [number] = validNumbers(1, '5151');
    const text = csv([['businessRegistrationNumber', 'organizationName', 'representativeName'],
      [number!, '주식회사 한글', '홍길동']]);
    const eucKr = Buffer.from(new TextEncoderEucKr().encode(text));
    const imported = await preview(keys.test, eucKr);
    expect(imported.rows[0]!.values.organizationName).toBe('주식회사 한글');
    expect(imported.validRows).toBe(1);
  });
});

// Node has no EUC-KR encoder; the few characters of the test are mapped by hand from the
// decoder, which is the part under test.
class TextEncoderEucKr {
  encode(text: string): Uint8Array {
    const decoder = new TextDecoder('euc-kr');
    const bytes: number[] = [];
    for (const character of text) {
      if (character.charCodeAt(0) < 0x80) {
        bytes.push(character.charCodeAt(0));
        continue;
      }
      let found = false;
      for (let lead = 0xb0; lead <= 0xc8 && !found; lead += 1) {
        for (let trail = 0xa1; trail <= 0xfe; trail += 1) {
          if (decoder.decode(new Uint8Array([lead, trail])) === character) {
            bytes.push(lead, trail);
            found = true;
            break;
          }
        }
      }
      if (!found) throw new Error(`no EUC-KR code for ${character}`);
    }
    return new Uint8Array(bytes);
  }
}

describe('an xlsx file', () => {
  it('is read by exceljs with numbers, dates and bad cells named', async () => {
    const { keys } = await app.createAccount();
    const [one, two] = validNumbers(2, '5152');
    const file = await workbookOf([HEADER,
      [Number(one), '주식회사 엑셀', '김엑셀', 'xl@example.com', new Date('2026-11-20')],
      [two, '주식회사 둘', '=1+1', 'bad email', '']]);
    const imported = await preview(keys.test, file, 'book.xlsx');
    expect(imported.rows[0]).toMatchObject({ row: 2, errors: [],
      values: { businessRegistrationNumber: one, memo: '2026-11-20' } });
    expect(imported.rows[1]!.errors.map((error) => error.column)).toEqual(['managerEmail']);
    const committed = await commit(keys.test, imported.id);
    expect(committed.json()).toMatchObject({ createdCount: 1 });
  });

  it('is refused when it is no workbook, declares a huge unpacked size or lacks columns',
    async () => {
      const { keys } = await app.createAccount();
      const broken = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]);
      expectError(await app.server.inject(upload(keys.test, broken, 'x.xlsx')), 400,
        'INVALID_FILE');
      const real = await workbookOf([HEADER, ['1234567891', 'a', 'b', '', '']]);
      // Its central directory now declares a first entry of 4 GiB - 2 bytes.
      const tampered = Buffer.from(real);
      const directory = tampered.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]),
        tampered.length);
      const first = tampered.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
      expect(directory).toBeGreaterThan(0);
      tampered.writeUInt32LE(0xfffffffe, first + 24);
      expectError(await app.server.inject(upload(keys.test, tampered, 'x.xlsx')), 400,
        'INVALID_FILE', /unpacks/);
      const noColumns = await workbookOf([['이름', '주소'], ['a', 'b']]);
      expectError(await app.server.inject(upload(keys.test, noColumns, 'x.xlsx')), 400,
        'INVALID_FILE', /사업자등록번호/);
    });
});

describe('bad forms and files', () => {
  it('answers each with its 4xx and keeps nothing', async () => {
    const { keys } = await app.createAccount();
    const auth = { authorization: basicAuth(keys.test) };
    // Not a form.
    expectError(await app.server.inject({ method: 'POST', url: '/v1/counterpartyImports',
      headers: { ...auth, 'content-type': 'application/json' }, payload: '{}' }), 415,
    'UNSUPPORTED_MEDIA_TYPE');
    // A form cut off, without its closing boundary.
    expectError(await app.server.inject({ method: 'POST', url: '/v1/counterpartyImports',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
        'filename="a.csv"\r\n\r\nabc' }), 400, 'INVALID_REQUEST');
    // A form without a boundary.
    expectError(await app.server.inject({ method: 'POST', url: '/v1/counterpartyImports',
      headers: { ...auth, 'content-type': 'multipart/form-data' }, payload: 'x' }), 400,
    'INVALID_REQUEST');
    // A field instead of a file, two files, an empty file.
    const post = (payload: Buffer) => app.server.inject({ method: 'POST',
      url: '/v1/counterpartyImports', headers: { ...auth,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload });
    expectError(await post(form([{ name: 'other', fileName: 'a.csv', content: 'a,b' }])), 400,
      'INVALID_REQUEST');
    expectError(await post(form([{ name: 'file', fileName: 'a.csv', content: 'a,b\n1,2' },
      { name: 'file', fileName: 'b.csv', content: 'a,b\n1,2' }])), 400, 'INVALID_REQUEST');
    expectError(await post(form([{ name: 'file', fileName: 'a.csv', content: '' }])), 400,
      'INVALID_REQUEST');
    // Over 1 MiB.
    expectError(await app.server.inject(upload(keys.test,
      Buffer.alloc(1024 * 1024 + 10, 0x61))), 413, 'PAYLOAD_TOO_LARGE');
    // More than 1,000 rows, bad quoting, only a header.
    const many = csv([HEADER, ...Array.from({ length: 1_001 }, () =>
      ['1234567891', 'a', 'b', '', ''])]);
    expectError(await app.server.inject(upload(keys.test, many)), 400, 'INVALID_FILE', /1000/);
    expectError(await app.server.inject(upload(keys.test,
      '사업자등록번호,상호,대표자명\n"1234567891,a,b\n')), 400, 'INVALID_FILE');
    expectError(await app.server.inject(upload(keys.test, '사업자등록번호,상호,대표자명\n')), 400,
      'INVALID_FILE');
    // Binary noise.
    expectError(await app.server.inject(upload(keys.test, Buffer.from([0, 1, 2, 255, 254]))), 400,
      'INVALID_FILE');
    expectError(await commit(keys.test, 'cpi_none'), 404, 'NOT_FOUND');
    expectError(await app.server.inject({ method: 'POST',
      url: '/v1/counterpartyImports/cpi_none:commit',
      headers: { ...auth, 'content-type': 'application/json' }, payload: '{"x":1}' }), 400,
    'INVALID_REQUEST');
  });

  it('keeps hostile cells as text in the preview', async () => {
    const { keys } = await app.createAccount();
    const hostile = '<img src=x onerror=alert(1)>';
    const imported = await preview(keys.test, csv([HEADER,
      ['1234567891', hostile, '=cmd|\' /C calc\'!A0', '', '\u202Eevil'],
      ['1234567891', 'x\u0000y', 'b', '', '']]));
    expect(imported.rows[0]!.values.organizationName).toBe(hostile);
    expect(imported.rows[0]!.errors.map((error) => error.column)).toEqual(['memo']);
    expect(imported.rows[1]!.errors.map((error) => error.column)).toContain('organizationName');
  });
});
