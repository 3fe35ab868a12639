import { Command } from 'commander';
import type { Config } from './config.ts';
import { CliError } from './cli/output.ts';

// The `etax` command. Configuration comes from the environment (src/config.ts), exactly as for
// the server, so the CLI reaches the same database.
//
// Each command imports its module when it runs: a start loads only what its command uses, so
// `etax account create` never loads the HTTP server, and `etax serve` never loads the CSV
// parser (docs/operations.md § Start-up).

async function config(overrides: NodeJS.ProcessEnv = {}): Promise<Config> {
  const { loadConfig } = await import('./config.ts');
  return loadConfig({ ...process.env, ...overrides });
}

const admin = () => import('./cli/admin.ts');
const profiles = () => import('./cli/profiles.ts');

const program = new Command()
  .name('etax')
  .description('etax e-tax-invoice API platform')
  .showHelpAfterError();

program.command('serve')
  .description('start the API server (runs migrations first)')
  .option('--no-workers', 'serve the API only; run no background jobs')
  .action(async (options: { workers: boolean }) => {
    const settings = await config(options.workers ? {} : { WORKERS_ENABLED: 'false' });
    if (settings.DATABASE_URL === undefined) {
      const { openEmbeddedDatabaseEarly } = await import('./platform/db/embedded.ts');
      openEmbeddedDatabaseEarly(settings.DATA_DIR, {
        holder: 'server',
        waitMs: settings.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
      });
    }
    const { serve } = await import('./cli/serve.ts');
    await serve(settings);
  });

program.command('mcp')
  .description('serve the MCP tools over stdio for a desktop agent, with the key of ' +
    'ETAX_API_KEY against ETAX_BASE_URL (docs/mcp.md)')
  .option('--allow-live', 'serve a live_ key too; refused without it')
  .action(async (options: { allowLive?: boolean }) => {
    const { serveMcpOverStdio, McpStartError } = await import('./mcp/stdio.ts');
    try {
      await serveMcpOverStdio({ allowLive: options.allowLive === true });
    } catch (error) {
      if (error instanceof McpStartError) throw new CliError(error.message);
      throw error;
    }
  });

program.command('migrate')
  .description('apply database migrations')
  .action(async () => (await admin()).migrate(await config()));

const backupCli = () => import('./cli/backup.ts');
program.command('backup')
  .description('write the embedded database of DATA_DIR, and its generated key, to one file ' +
    '(the server must be stopped)')
  .requiredOption('--out <file>', 'the backup file to write; never replaces one')
  .option('--json', 'print JSON')
  .action(async (options: { out: string; json?: boolean }) =>
    (await backupCli()).backup(await config(), options));

program.command('restore <file>')
  .description('restore a backup file into an empty DATA_DIR, after checking all of it')
  .option('--json', 'print JSON')
  .action(async (file: string, options: { json?: boolean }) =>
    (await backupCli()).restore(await config(), file, options));

program.command('reseal')
  .description('seal every secret at rest again with ENCRYPTION_KEY (after a rotation)')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const { reseal } = await import('./cli/reseal.ts');
    await reseal(await config(), options);
  });

program.command('openapi')
  .description('write openapi/openapi.json from the route schemas')
  .option('--check', 'fail when the committed document is stale')
  .action(async (options: { check?: boolean }) => {
    const { writeOpenApiDocument } = await import('./cli/openapi.ts');
    await writeOpenApiDocument(Boolean(options.check));
  });

const account = program.command('account').description('manage accounts');
account.command('create')
  .requiredOption('--name <name>', 'account name')
  .option('--plan <plan>', 'FREE, STANDARD or PREMIUM', 'FREE')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).createAccount(await config(), options));
account.command('list')
  .description('list accounts, newest first, with their plan')
  .option('--limit <n>', 'most accounts listed, 1 to 1000', '100')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).listAccounts(await config(), options));
account.command('plan')
  .description('change the plan of an account (docs/plans.md)')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--plan <plan>', 'FREE, STANDARD or PREMIUM')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).changePlan(await config(), options));
account.command('approval')
  .description('show or set whether drafts need an approver before they are issued ' +
    '(docs/drafts.md)')
  .requiredOption('--account <id>', 'account id')
  .option('--require', 'require approval')
  .option('--no-require', 'issue drafts without approval')
  .option('--json', 'print JSON')
  .action(async (options) => (await import('./cli/approval.ts')).approval(await config(),
    options));

const key = program.command('key').description('manage API keys');
key.command('create')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--label <label>', 'what the account calls the key, shown in the dashboard')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).createKey(await config(), options));
key.command('revoke')
  .requiredOption('--key <key>', 'the API key to revoke')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).revokeKey(await config(), options));

const userCli = () => import('./cli/users.ts');
const user = program.command('user').description('people who sign in to the dashboard');
user.command('create')
  .description('create a user of an account; prints a generated password once')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--email <email>', 'the email they sign in with')
  .requiredOption('--role <role>', 'owner, admin, developer, issuer or viewer')
  .option('--operator', 'may also use the operator\'s pages')
  .option('--password-stdin', 'read the password from the first line of standard input')
  .option('--json', 'print JSON')
  .action(async (options) => (await userCli()).createUser(await config(), options));
user.command('list')
  .option('--account <id>', 'only the users of this account')
  .option('--json', 'print JSON')
  .action(async (options) => (await userCli()).listUsers(await config(), options));
user.command('reset-password')
  .description('set a new password (generated unless --password-stdin) and end their sessions')
  .requiredOption('--email <email>', 'the user\'s email')
  .option('--password-stdin', 'read the password from the first line of standard input')
  .option('--clear-second-factor', 'also turn off their second factor and recovery codes')
  .option('--json', 'print JSON')
  .action(async (options) => (await userCli()).resetPassword(await config(), options));

const points = program.command('points').description('manage point balances');
points.command('grant')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .requiredOption('--amount <n>', 'points to add')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).grantPoints(await config(), options));
points.command('show')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--json', 'print JSON')
  .action(async (options) => (await admin()).showPoints(await config(), options));

const connectionCli = () => import('./cli/connections.ts');
const connection = program.command('connection')
  .description('connect outside systems: the tax portal, bank accounts (docs/connections.md)');
connection.command('add')
  .description('log in and store a connection; a user id and password are read from stdin, ' +
    'one per line')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .requiredOption('--kind <kind>', 'HOMETAX or BANK_ACCOUNT')
  .option('--business-number <number>', 'HOMETAX: the business registration number')
  .option('--issuer <id>', 'HOMETAX: log in with the joint certificate of this issuer')
  .option('--bank-code <code>', 'BANK_ACCOUNT: the bank code')
  .option('--account-number <number>', 'BANK_ACCOUNT: the account number')
  .option('--json', 'print JSON')
  .action(async (options) => (await connectionCli()).addConnection(await config(), options));
connection.command('list')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--json', 'print JSON')
  .action(async (options) => (await connectionCli()).listConnections(await config(), options));
const accountBusiness = () => import('./cli/account-business.ts');
const ownerBusiness = program.command('account-business')
  .description('the owner business of an account\'s environment, for its documents');
ownerBusiness.command('get')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--json', 'print JSON')
  .action(async (options) => (await accountBusiness()).get(await config(), options));
ownerBusiness.command('set')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .requiredOption('--business-number <number>', 'business registration number, 10 digits')
  .requiredOption('--name <name>', 'business name as registered')
  .requiredOption('--representative <name>', 'representative name as registered')
  .option('--json', 'print JSON')
  .action(async (options) => (await accountBusiness()).set(await config(), options));

const holidays = () => import('./cli/holidays.ts');
const holiday = program.command('holidays')
  .description('days besides the built-in holiday table that move issue deadlines');
holiday.command('add <date>')
  .description('add an announced holiday, YYYY-MM-DD (renames it when already added)')
  .requiredOption('--name <name>', 'its name, e.g. 임시공휴일')
  .option('--json', 'print JSON')
  .action(async (date: string, options) => (await holidays()).add(await config(), date, options));
holiday.command('list')
  .description('print the added holidays, oldest first')
  .option('--json', 'print JSON')
  .action(async (options) => (await holidays()).list(await config(), options));
holiday.command('remove <date>')
  .description('remove an added holiday')
  .option('--json', 'print JSON')
  .action(async (date: string, options) =>
    (await holidays()).remove(await config(), date, options));

program.command('mail')
  .description('read the mail outbox')
  .command('outbox')
  .description('print the newest mails, kept (no SMTP_URL) and sent, with their text')
  .option('--limit <n>', 'most mails to print, newest first (at most 1000)', '20')
  .option('--status <status>', 'only mails in this status: PENDING, SENT, KEPT or FAILED')
  .option('--json', 'print JSON')
  .action(async (options) => {
    const { printOutbox } = await import('./cli/mail.ts');
    await printOutbox(await config(), options);
  });

program.command('import')
  .description('load data from a file')
  .command('profiles <file>')
  .description('import business profiles from CSV or JSON Lines (docs/business-profiles.md)')
  .option('--format <format>', 'csv or jsonl (default: from the file extension)')
  .option('--rejects <file>', 'write every rejected row as JSON Lines to this file')
  .option('--json', 'print the summary as JSON')
  .action(async (file: string, options) =>
    (await profiles()).importProfiles(await config(), file, options));

program.command('generate')
  .description('write synthetic data')
  .command('profiles')
  .description('write a deterministic synthetic business profile data set')
  .requiredOption('--count <n>', 'number of profiles (at most 10,000,000)')
  .requiredOption('--seed <seed>', 'any text; the same seed gives the same output')
  .option('--format <format>', 'csv or jsonl (default: from --out, else csv)')
  .option('--out <file>', 'write to this file instead of stdout')
  .action(async (options) => (await profiles()).generate(options));

program.command('sandbox')
  .description('make test material for test keys (docs/sandbox.md)')
  .command('certificate')
  .description('write a joint certificate from the etax Sandbox CA: signCert.der and ' +
    'signPri.key, for registering an issuer with a test key; needs no database')
  .requiredOption('--business-number <number>', 'the business registration number it names')
  .requiredOption('--out <folder>', 'the folder to write the two files to (made if missing)')
  .option('--password <password>', 'the key file password (default: a random one, printed)')
  .option('--name <organization>', 'the organization name in the subject', 'etax Sandbox')
  .option('--json', 'print JSON')
  .action(async (options) => {
    const { writeSandboxCertificate } = await import('./cli/sandbox.ts');
    await writeSandboxCertificate(options);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A configuration error comes from config.ts, which is loaded by then; a database that cannot
  // be opened (DATA_DIR held by another server, PostgreSQL unreachable) is the operator's to fix.
  const { ConfigError } = await import('./config.ts');
  const { DatabaseOpenError } = await import('./platform/db/open-error.ts');
  if (error instanceof CliError || error instanceof ConfigError ||
    error instanceof DatabaseOpenError) {
    process.stderr.write(`etax: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
