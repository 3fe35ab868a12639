import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import { unconfiguredLiveServices } from '../platform/live-services.ts';
import type { Platform } from '../platform/platform.ts';
import { markPhase, takeStartupPhases } from '../platform/startup-phases.ts';

// Everything serve needs is loaded once this module runs.
markPhase('imports');

// Seconds a shutdown may take before the process exits anyway; in-flight requests are allowed
// this long to finish.
const SHUTDOWN_TIMEOUT_MS = 25_000;

export async function serve(config: Config): Promise<void> {
  const app = await createApp(config);
  markPhase('wired');
  const { platform, server } = app;
  await app.start();
  // This process made the database files. Until they were migrated it held DATA_DIR alone, so
  // nothing else can have used them: the first start. A CLI command may have made an account
  // since; the sandbox account is made and shown all the same.
  const firstStart = platform.database.created;
  await server.listen({ port: config.PORT, host: config.HOST });
  // From the moment the server answers, a stop signal shuts it down gracefully: an orchestrator
  // that sees it ready may stop it at once, before the start's last steps (the sandbox account's
  // announcement on a first start) are done.
  let closing = false;
  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    platform.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      platform.log.error('shutdown timed out');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (error) {
      platform.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  markPhase('listening');
  platform.log.info(takeStartupPhases(), 'started');
  logUnconfiguredLiveServices(platform, config);
  // A stop that comes first cuts the announcement short; that is no failure of the start.
  if (firstStart) {
    await announceSandboxAccount(platform, config).catch((error: unknown) => {
      if (!closing) throw error;
    });
  }
}

// One line naming every live service this server cannot reach, so that an operator learns it
// at start rather than from a customer's 503.
function logUnconfiguredLiveServices(platform: Platform, config: Config): void {
  const unconfigured = unconfiguredLiveServices(config);
  if (unconfigured.length === 0) return;
  const settings = unconfigured.map(({ setting, serves }) => `${setting} (${serves})`);
  platform.log.warn({ liveServicesNotConfigured: unconfigured.map(({ service }) => service) },
    `live keys cannot reach these services until their settings are set: ${settings.join('; ')}`);
}

// The sandbox account's owner, with a generated password. The dashboard's users module is
// imported here only, so a start that is not the first never loads it.
async function createSandboxOwner(platform: Platform, accountId: string) {
  const { createUsersService } = await import('../dashboard/users/service.ts');
  const users = createUsersService({ db: platform.database.db, accounts: platform.accounts });
  const { user, password } = await users.createUser({ accountId, email: SANDBOX_OWNER_EMAIL,
    role: 'owner' });
  return { email: user.email, password };
}

// The sandbox owner's sign-in: a name only this server uses (the .test top-level domain is
// reserved, RFC 2606), so it never reaches anyone's mailbox.
const SANDBOX_OWNER_EMAIL = 'owner@sandbox.etax.test';

// Only on the very first start of a new embedded database: create a sandbox account and show
// its test key and its owner's dashboard sign-in once, with a request to paste. Keys and
// passwords are never printed in any other case.
async function announceSandboxAccount(platform: Platform, config: Config): Promise<void> {
  const account = await platform.accounts.createAccount({ name: 'Sandbox', plan: 'FREE' });
  const credentials = Buffer.from(`${account.keys.test}:`).toString('base64');
  const owner = await createSandboxOwner(platform, account.accountId);
  const lines = [
    '',
    'etax is running with a new embedded database. A sandbox account was created:',
    `  account id: ${account.accountId}`,
    `  test key:   ${account.keys.test}`,
    'The key is shown this once. Try it:',
    `  curl -H "Authorization: Basic ${credentials}" ${config.PUBLIC_BASE_URL}/v1/points`,
    `Sign in to the dashboard at ${config.PUBLIC_BASE_URL}/dashboard as its owner:`,
    `  email:    ${owner.email}`,
    `  password: ${owner.password}`,
    'The password is shown this once; change it under Settings.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
