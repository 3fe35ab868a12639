// Personal numbers at rest and in the logs: after cash receipts are issued with a resident
// registration number and a mobile number, one of them canceled, and a bank account is connected
// on the hosted page and synced, a dump of every row of every table (each row as text, every
// column of it) holds neither the identity numbers nor the account number in clear, nor does any
// log line at trace level; the API and the PDF show them masked. A failing insert that carries
// an identity number is logged with its statement and constraint but without the number. Rows
// written before sealing are sealed by the modules' data migrations, and `etax reseal` seals the
// new columns again after a key rotation.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openIdentityNumber,
  resealIdentityNumbers,
  sealPlaintextIdentityNumbers,
} from '../../src/areas/cash-receipts/identity-numbers.ts';
import { cashReceipts } from '../../src/areas/cash-receipts/tables.ts';
import { sealCredentials } from '../../src/areas/connections/credentials.ts';
import { digestBankAccountSubjects } from '../../src/areas/connections/subjects-at-rest.ts';
import { connections } from '../../src/areas/connections/tables.ts';
import { createSealingKey, createSealingKeyring } from '../../src/domain/sealed-box.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  connectBankAccount,
  listBankAccounts,
  requestSync,
} from './bank-transactions/helpers.ts';
import {
  accepted,
  cancelReceipt,
  createMerchantAccount,
  getReceipt,
  issueReceipt,
  receiptBody,
  waitForStatus,
  type MerchantAccount,
} from './cash-receipts/helpers.ts';
import { request } from './tax-invoices/helpers.ts';

// A resident registration number (birth date, then the rest), a mobile number and a bank
// account number, each in the forms a client may send.
const RESIDENT_NUMBER = '900101-1234567';
const MOBILE_NUMBER = '010-9876-5432';
const ACCOUNT_NUMBER = '110-987-654321';
const digitsOf = (text: string) => text.replaceAll('-', '');
const SECRETS = [RESIDENT_NUMBER, MOBILE_NUMBER, ACCOUNT_NUMBER].flatMap((text) =>
  [text, digitsOf(text)]);

// The app's encryption key, so that the test can rotate it.
const CURRENT_KEY = randomBytes(32);
let app: TestApp;
let merchant: MerchantAccount;
const logLines: string[] = [];

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { LOG_LEVEL: 'trace',
    CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0', AUTH_CACHE_TTL_MS: '0',
    ENCRYPTION_KEY: CURRENT_KEY.toString('base64') },
  logDestination: new Writable({ write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  } }) });
  merchant = await createMerchantAccount(app);
  // Bank accounts are a STANDARD operation.
  await app.platform.accounts.changePlan(merchant.accountId, 'STANDARD');
});
afterAll(async () => {
  await app?.close();
});

// Every row of every table of the database, each as PostgreSQL's text of the whole row.
async function dumpDatabase(): Promise<string[]> {
  const tables = await app.platform.database.pool.query(`select table_schema, table_name
    from information_schema.tables where table_type = 'BASE TABLE'
    and table_schema not in ('pg_catalog', 'information_schema')`);
  const rows: string[] = [];
  for (const { table_schema: schema, table_name: name } of tables.rows as
    Array<{ table_schema: string; table_name: string }>) {
    const result = await app.platform.database.pool.query(
      `select t::text as row from "${schema}"."${name}" t`);
    rows.push(...result.rows.map((row: { row: string }) => `${schema}.${name} ${row.row}`));
  }
  return rows;
}

const holding = (texts: readonly string[]) => texts.filter((text) =>
  SECRETS.some((secret) => text.includes(secret)));

async function issued(identityNumber: string) {
  const issuanceKey = await accepted(await issueReceipt(app, merchant.key, merchant.supplierKey,
    receiptBody({ identityNumber })));
  expect((await waitForStatus(app, merchant.key, issuanceKey, ['TRANSMITTED', 'FAILED'])).status)
    .toBe('TRANSMITTED');
  return issuanceKey;
}

describe('identity and account numbers at rest', () => {
  it('are in no table and no log line, and show masked', async () => {
    const resident = await issued(RESIDENT_NUMBER);
    await issued(MOBILE_NUMBER);
    const cancellation = await accepted(await cancelReceipt(app, merchant.key, resident, {
      reason: 'TRANSACTION_CANCELED' }));
    expect((await waitForStatus(app, merchant.key, cancellation, ['TRANSMITTED', 'FAILED']))
      .status).toBe('TRANSMITTED');
    const account = await connectBankAccount(app, merchant.key, '004', ACCOUNT_NUMBER);
    await requestSync(app, merchant.key, account.bankAccountId);

    expect((await getReceipt(app, merchant.key, resident)).identityNumber).toBe('900******4567');
    expect((await getReceipt(app, merchant.key, cancellation)).identityNumber)
      .toBe('900******4567');
    expect(account.accountNumber).toBe('********4321');
    const listed = await app.server.inject(request(merchant.key, 'GET', '/v1/connections'));
    expect(listed.json().items[0]).toMatchObject({ bankCode: '004',
      accountNumber: '********4321' });

    const dump = await dumpDatabase();
    // The dump reads the tables this test wrote to, so an empty one proves nothing.
    expect(dump.some((row) => row.startsWith('public.cash_receipts '))).toBe(true);
    expect(dump.some((row) => row.startsWith('public.connections '))).toBe(true);
    expect(holding(dump)).toEqual([]);
    expect(holding(logLines)).toEqual([]);
  });

  it('keep the whole number for the authority, sealed for the receipt', async () => {
    const issuanceKey = await issued(RESIDENT_NUMBER);
    const [row] = await app.platform.database.db.select().from(cashReceipts)
      .where(eq(cashReceipts.issuanceKey, issuanceKey));
    expect(row!.plaintextIdentityNumber).toBeNull();
    expect(openIdentityNumber(app.sealing, row!)).toBe(digitsOf(RESIDENT_NUMBER));
    // Sealed for its own receipt: the box does not open as another's.
    expect(() => openIdentityNumber(app.sealing, { ...row!, issuanceKey: 'crc_other' }))
      .toThrow();
  });
});

describe('a failing insert', () => {
  it('is logged with its statement and constraint, without the values', async () => {
    const issuanceKey = await issued(RESIDENT_NUMBER);
    const [row] = await app.platform.database.db.select().from(cashReceipts)
      .where(eq(cashReceipts.issuanceKey, issuanceKey));
    let failure: unknown;
    try {
      // The legacy column in clear and a total that breaks the table's check.
      await app.platform.database.db.insert(cashReceipts).values({ ...row!,
        issuanceKey: `${issuanceKey}x`, clientReferenceId: 'fails', sequence: undefined,
        plaintextIdentityNumber: digitsOf(RESIDENT_NUMBER), totalAmount: 1 });
    } catch (error) {
      failure = error;
    }
    // What the error itself carries, and what the log keeps of it.
    expect(JSON.stringify(failure, Object.getOwnPropertyNames(failure))).toContain(
      digitsOf(RESIDENT_NUMBER));
    const before = logLines.length;
    app.platform.log.error({ err: failure }, 'request failed');
    const lines = logLines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('insert into \\"cash_receipts\\"');
    expect(lines[0]).toContain('cash_receipts_total');
    expect(lines[0]).toContain('params: [not logged]');
    expect(holding(lines)).toEqual([]);
  });
});

describe('rows written before sealing', () => {
  it('are sealed by the data migrations, and reseal after a key rotation', async () => {
    const db = app.platform.database.db;
    const issuanceKey = await issued(MOBILE_NUMBER);
    // As a release before sealing wrote it.
    await db.update(cashReceipts).set({ plaintextIdentityNumber: digitsOf(MOBILE_NUMBER),
      sealedIdentityNumber: null, maskedIdentityNumber: null })
      .where(eq(cashReceipts.issuanceKey, issuanceKey));
    const [connected] = await listBankAccounts(app, merchant.key);
    const [connection] = await db.select().from(connections)
      .where(eq(connections.id, connected!.connectionId));
    await db.update(connections).set({ subject: `004:${digitsOf(ACCOUNT_NUMBER)}`,
      maskedAccountNumber: null }).where(eq(connections.id, connection!.id));

    expect(await sealPlaintextIdentityNumbers(db, app.sealing)).toBe(1);
    expect((await digestBankAccountSubjects(db, app.sealing)).resealed).toBe(1);
    expect(holding(await dumpDatabase())).toEqual([]);
    expect((await getReceipt(app, merchant.key, issuanceKey)).identityNumber)
      .toBe('010****5432');
    const [migrated] = await db.select().from(connections)
      .where(eq(connections.id, connection!.id));
    expect(migrated).toMatchObject({ subject: connection!.subject,
      maskedAccountNumber: '********4321' });

    // A rotation: the current key becomes a previous one; reseal makes every box and digest
    // the new key's, so the new key alone opens and finds them.
    const newKey = randomBytes(32);
    const rotated = createSealingKeyring(newKey, [CURRENT_KEY]);
    const [identities] = await resealIdentityNumbers(db, rotated);
    expect(identities).toMatchObject({ column: 'cash_receipts.sealed_identity_number',
      unreadable: 0 });
    expect(identities!.resealed).toBeGreaterThan(0);
    await db.update(connections).set({ sealedCredentials: sealCredentials(rotated,
      connection!.id, { kind: 'BANK_ACCOUNT', bank: { bankCode: '004',
        accountNumber: digitsOf(ACCOUNT_NUMBER), userId: 'user', password: 'pw' } }) })
      .where(eq(connections.id, connection!.id));
    expect((await digestBankAccountSubjects(db, rotated)).resealed).toBeGreaterThan(0);
    const only = createSealingKey(newKey);
    const [resealed] = await db.select().from(cashReceipts)
      .where(eq(cashReceipts.issuanceKey, issuanceKey));
    expect(openIdentityNumber(only, resealed!)).toBe(digitsOf(MOBILE_NUMBER));
    const [redigested] = await db.select().from(connections)
      .where(eq(connections.id, connection!.id));
    expect(redigested!.subject).toBe(`004:${only.digest(digitsOf(ACCOUNT_NUMBER),
      'bank-account-number')}`);
  });
});
