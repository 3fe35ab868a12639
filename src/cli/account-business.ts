import { createAreaModules } from '../app.ts';
import type { Config } from '../config.ts';
import { ENVIRONMENTS } from '../platform/accounts/keys.ts';
import { isApiError } from '../platform/errors.ts';
import { withPlatform } from './admin.ts';
import { CliError, parseChoice, printResult } from './output.ts';

// `etax account-business get|set`: the owner business of an account's environment
// (docs/documents.md § The owner business), read and set by the operator through the same
// service as GET and PUT /v1/account/business. Its certificate is registered as every issuer's
// is: by API or on the hosted page.

// The issuers area's limits, which the API's schema states too.
const NAME_LENGTH_MAX = 100;
const REPRESENTATIVE_LENGTH_MAX = 50;

type Scoped = { account: string; env: string; json?: boolean };

function scopeOf(options: Scoped) {
  return { accountId: options.account, environment: parseChoice('--env', options.env,
    ENVIRONMENTS) };
}

function describe(business: { businessNumber: string; name: string; representativeName: string;
  issuerId: string; certificate: { expiresAt: string } | null }): string {
  return [
    `${business.name} (${business.businessNumber}), representative ${business.representativeName}`,
    `issuer ${business.issuerId}`,
    business.certificate === null ? 'no joint certificate registered'
      : `joint certificate valid until ${business.certificate.expiresAt}`,
  ].join('\n');
}

async function withOwners<T>(config: Config,
  work: (owners: Awaited<ReturnType<typeof createAreaModules>>['documents']['owners']) =>
    Promise<T>): Promise<T> {
  return withPlatform(config, async (platform) => {
    const { documents } = await createAreaModules(platform);
    try {
      return await work(documents.owners);
    } catch (error) {
      // The API's refusals (a bad number, no owner business) are the operator's to fix.
      if (isApiError(error)) throw new CliError(`${error.code}: ${error.message}`);
      throw error;
    }
  });
}

export async function get(config: Config, options: Scoped) {
  const scope = scopeOf(options);
  const business = await withOwners(config, (owners) => owners.get({ scope }));
  printResult(Boolean(options.json), business, describe(business));
}

export async function set(config: Config, options: Scoped & { businessNumber: string;
  name: string; representative: string }) {
  const scope = scopeOf(options);
  const name = options.name.trim();
  const representativeName = options.representative.trim();
  if (name.length === 0 || name.length > NAME_LENGTH_MAX) {
    throw new CliError(`--name must be 1 to ${NAME_LENGTH_MAX} characters`);
  }
  if (representativeName.length === 0 || representativeName.length > REPRESENTATIVE_LENGTH_MAX) {
    throw new CliError(`--representative must be 1 to ${REPRESENTATIVE_LENGTH_MAX} characters`);
  }
  const business = await withOwners(config, (owners) => owners.save({ scope, business: {
    businessNumber: options.businessNumber, name, representativeName } }));
  printResult(Boolean(options.json), business, describe(business));
}
