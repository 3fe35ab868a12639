// `etax mail outbox`, tested black-box: `node bin/etax.js mail outbox` runs as an operator would,
// against the database of a running app (in embedded mode through its socket). Without
// SMTP_URL a reverse issuance request's approval mail is KEPT, and the command prints it with
// its text, so the operator can read the approval link; --json prints the same as one line,
// --status filters. Bad options exit 2 before any database is opened (arguments.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import {
  APPROVAL_URL_PATTERN,
  createReverseTestApp,
  linkIn,
  newRequest,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';
import { runEtax } from '../helpers/cli.ts';

let app: ReverseTestApp;
let issuanceKey: string;

// `etax <args>` on the app's database, with no other configuration.
const runCli = (args: string[]) => runEtax(app.database.env, args);

beforeAll(async () => {
  app = await createReverseTestApp();
  const account = await app.platform.accounts.createAccount({ name: 'Outbox', plan: 'FREE' });
  const supplier = await registerSupplier(app, account.keys.test);
  issuanceKey = await newRequest(app, account.keys.test, supplier.supplierKey);
});
afterAll(async () => {
  await app?.close();
});

type PrintedMail = { id: string; status: string; to: string; subject: string; text: string };

describe('happy', () => {
  it('--json prints the kept approval mail with its link as one line', async () => {
    const result = await runCli(['mail', 'outbox', '--json', '--limit', '5']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const { mails } = JSON.parse(result.stdout) as { mails: PrintedMail[] };
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ status: 'KEPT', to: 'supplier@example.co.kr',
      kind: 'TAX_INVOICE_APPROVAL_REQUEST', attemptCount: 0, sentAt: null, lastError: null });
    expect(mails[0]!.text).toContain(issuanceKey);
    expect(linkIn(mails[0]!.text)).toMatch(APPROVAL_URL_PATTERN);
  });

  it('prints the mail for people: status, recipient, subject and text', async () => {
    const result = await runCli(['mail', 'outbox']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^mail_\S+ KEPT TAX_INVOICE_APPROVAL_REQUEST \(created /);
    expect(result.stdout).toContain('To: supplier@example.co.kr');
    expect(result.stdout).toContain('Subject: [TEST] 세금계산서 역발행 요청');
    expect(linkIn(result.stdout)).toMatch(APPROVAL_URL_PATTERN);
  });

  it('--status SENT prints only sent mails: here none', async () => {
    const result = await runCli(['mail', 'outbox', '--status', 'SENT']);
    expect(result).toEqual({ code: 0, stdout: 'the outbox is empty\n', stderr: '' });
  });

  it('prints a mail\'s copies and what it is about', async () => {
    await app.platform.database.db.transaction((tx) => app.platform.queueMail(tx, {
      kind: 'TEST_COPIES', to: 'buyer@example.co.kr',
      cc: ['second@example.co.kr', 'supplier@example.co.kr'], subject: 'Copies',
      text: 'A mail with copies.', reference: 'txi_copies' }));
    const human = await runCli(['mail', 'outbox', '--limit', '1']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('To: buyer@example.co.kr\n' +
      'Cc: second@example.co.kr, supplier@example.co.kr\nAbout: txi_copies\nSubject: Copies');
    const json = await runCli(['mail', 'outbox', '--json', '--limit', '2']);
    const { mails } = JSON.parse(json.stdout) as { mails: Array<PrintedMail & {
      cc: string[]; reference: string | null }> };
    expect(mails.map(({ cc, reference }) => ({ cc, reference }))).toEqual([
      { cc: ['second@example.co.kr', 'supplier@example.co.kr'], reference: 'txi_copies' },
      { cc: [], reference: null }]);
  });
});
