import { Command } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import * as admin from './cli/admin.ts';
import { printOutbox } from './cli/mail.ts';
import { CliError } from './cli/output.ts';
import * as profiles from './cli/profiles.ts';
import { writeOpenApiDocument } from './cli/openapi.ts';
import { serve } from './cli/serve.ts';

// The `etax` command. Configuration comes from the environment (src/config.ts), exactly as for
// the server, so the CLI reaches the same database.

function config(overrides: NodeJS.ProcessEnv = {}) {
  return loadConfig({ ...process.env, ...overrides });
}

const program = new Command()
  .name('etax')
  .description('etax e-tax-invoice API platform')
  .showHelpAfterError();

program.command('serve')
  .description('start the API server (runs migrations first)')
  .option('--no-workers', 'serve the API only; run no background jobs')
  .action((options: { workers: boolean }) =>
    serve(config(options.workers ? {} : { WORKERS_ENABLED: 'false' })));

program.command('migrate')
  .description('apply database migrations')
  .action(() => admin.migrate(config()));

program.command('openapi')
  .description('write openapi/openapi.json from the route schemas')
  .option('--check', 'fail when the committed document is stale')
  .action((options: { check?: boolean }) => writeOpenApiDocument(Boolean(options.check)));

const account = program.command('account').description('manage accounts');
account.command('create')
  .requiredOption('--name <name>', 'account name')
  .option('--plan <plan>', 'FREE, STANDARD or PREMIUM', 'FREE')
  .option('--json', 'print JSON')
  .action((options) => admin.createAccount(config(), options));

const key = program.command('key').description('manage API keys');
key.command('create')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--json', 'print JSON')
  .action((options) => admin.createKey(config(), options));
key.command('revoke')
  .requiredOption('--key <key>', 'the API key to revoke')
  .option('--json', 'print JSON')
  .action((options) => admin.revokeKey(config(), options));

const points = program.command('points').description('manage point balances');
points.command('grant')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .requiredOption('--amount <n>', 'points to add')
  .option('--json', 'print JSON')
  .action((options) => admin.grantPoints(config(), options));
points.command('show')
  .requiredOption('--account <id>', 'account id')
  .requiredOption('--env <env>', 'test or live')
  .option('--json', 'print JSON')
  .action((options) => admin.showPoints(config(), options));

program.command('mail')
  .description('read the mail outbox')
  .command('outbox')
  .description('print the newest mails, kept (no SMTP_URL) and sent, with their text')
  .option('--limit <n>', 'most mails to print, newest first (at most 1000)', '20')
  .option('--status <status>', 'only mails in this status: PENDING, SENT, KEPT or FAILED')
  .option('--json', 'print JSON')
  .action((options) => printOutbox(config(), options));

program.command('import')
  .description('load data from a file')
  .command('profiles <file>')
  .description('import business profiles from CSV or JSON Lines (docs/business-profiles.md)')
  .option('--format <format>', 'csv or jsonl (default: from the file extension)')
  .option('--rejects <file>', 'write every rejected row as JSON Lines to this file')
  .option('--json', 'print the summary as JSON')
  .action((file: string, options) => profiles.importProfiles(config(), file, options));

program.command('generate')
  .description('write synthetic data')
  .command('profiles')
  .description('write a deterministic synthetic business profile data set')
  .requiredOption('--count <n>', 'number of profiles (at most 10,000,000)')
  .requiredOption('--seed <seed>', 'any text; the same seed gives the same output')
  .option('--format <format>', 'csv or jsonl (default: from --out, else csv)')
  .option('--out <file>', 'write to this file instead of stdout')
  .action((options) => profiles.generate(options));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError || error instanceof ConfigError) {
    process.stderr.write(`etax: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
