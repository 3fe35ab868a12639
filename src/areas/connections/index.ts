import type { Config } from '../../config.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import { ApiError, isApiError } from '../../platform/errors.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createRateLimiter, type AttemptCounter } from '../../platform/ratelimit/limiter.ts';
import { resealColumn } from '../../platform/reseal.ts';
import type { Scope } from '../../platform/scope.ts';
import { createGatewayBankAccountPortal } from '../../upstream/bank-accounts/gateway.ts';
import type { BankAccountPortal } from '../../upstream/bank-accounts/index.ts';
import { createSandboxBankAccountPortal } from '../../upstream/bank-accounts/sandbox.ts';
import { createGatewayTaxPortal } from '../../upstream/tax-portal/gateway.ts';
import type { TaxPortal } from '../../upstream/tax-portal/index.ts';
import { createSandboxTaxPortal } from '../../upstream/tax-portal/sandbox.ts';
import type { IssuersService } from '../issuers/index.ts';
import { createConnectionLinks, type ConnectionLinks } from './links.ts';
import { createLoginLimits } from './login-limits.ts';
import { registerConnectionPageRoutes } from './page-routes.ts';
import { registerConnectionRoutes } from './routes.ts';
import { createConnectionsService, type ConnectionsService } from './service.ts';
import * as store from './store.ts';
import { digestBankAccountSubjects } from './subjects-at-rest.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Connections',
    description: 'The tax portal and bank accounts, connected for the books and transactions.',
    guides: [
      { path: 'docs/connections.md', title: 'Connections' },
    ],
  },
];

// Connections (docs/connections.md): the outside systems an account connects (the tax portal,
// bank accounts), with credentials sealed at rest. A shared capability: the revenue and expense
// books collect through the HOMETAX connection, and bank transactions sync through BANK_ACCOUNT
// ones, each through the service this module offers.
//
//   routes.ts, schemas.ts   list, disconnect, the one-time link
//   links.ts, page-routes.ts, page-html.ts   the hosted page where connections are made
//   login-limits.ts        the bounds on failed logins through the page
//   service.ts, credentials.ts   connecting (the adapter logs in), sealing, opening
//   subjects-at-rest.ts   bank account numbers as keyed digests, written again after a rotation
//   store.ts, tables.ts

export type { ConnectionsService, ConnectInput, ConnectionView } from './service.ts';
export type { ConnectionLinks } from './links.ts';
// The order every pull through a connection runs in (bank syncs, tax-portal collections).
export { pullJobDefinition, runPull, type Pull, type PullFailure } from './pull.ts';

export type ConnectionsModule = AreaModule & { service: ConnectionsService;
  links: ConnectionLinks; taxPortalFor(environment: Environment): TaxPortal | null;
  bankAccountsFor(environment: Environment): BankAccountPortal | null };

export type ConnectionsDeps = {
  sealing: SealingKey;
  // The issuers of the account: a HOMETAX connection by certificate uses the joint certificate
  // an issuer registered.
  // A test key connects the tax portal only for a business one of its issuers has.
  issuers: Pick<IssuersService, 'getIssuer' | 'getCertificate' | 'issuesFor'>;
  // Counters of failed logins on the hosted page; in memory when left out (commands that serve
  // no pages).
  attempts?: AttemptCounter;
};

// The registration number of an issuer of the scope with a registered joint certificate.
function certificateBusinessOf(issuers: ConnectionsDeps['issuers']) {
  return async (scope: Scope, issuerId: string) => {
    const issuer = await issuers.getIssuer({ scope, issuerId });
    try {
      await issuers.getCertificate({ scope, issuerId });
    } catch (error) {
      if (isApiError(error) && error.code === 'NOT_FOUND') {
        throw new ApiError('CERTIFICATE_NOT_REGISTERED');
      }
      throw error;
    }
    return issuer.identificationNumber;
  };
}

// Test keys reach the sandboxes; live keys the operator's gateways, or nothing when unset.
function createAdapters(config: Config, now: () => Date) {
  const timeoutMs = config.CONNECTION_GATEWAY_TIMEOUT_MS;
  const sandbox = { taxPortal: createSandboxTaxPortal(),
    bankAccounts: createSandboxBankAccountPortal({ now }) };
  const live = {
    taxPortal: config.TAX_PORTAL_GATEWAY_URL === undefined ? null
      : createGatewayTaxPortal({ gatewayUrl: config.TAX_PORTAL_GATEWAY_URL, timeoutMs }),
    bankAccounts: config.BANK_ACCOUNT_GATEWAY_URL === undefined ? null
      : createGatewayBankAccountPortal({ gatewayUrl: config.BANK_ACCOUNT_GATEWAY_URL,
        timeoutMs }),
  };
  return (environment: Environment) => (environment === 'live' ? live : sandbox);
}

export function createConnectionsModule(platform: AreaPlatform, deps: ConnectionsDeps):
  ConnectionsModule {
  const { config, database: { db } } = platform;
  const adapters = createAdapters(config, platform.outside.now);
  const service = createConnectionsService({ db, sealing: deps.sealing,
    cursors: platform.cursors, adapters,
    timeoutMs: config.CONNECTION_GATEWAY_TIMEOUT_MS, now: platform.outside.now,
    certificateBusiness: certificateBusinessOf(deps.issuers),
    issuesFor: (scope, number, executor) => deps.issuers.issuesFor(scope, number, executor) });
  const attempts = deps.attempts ?? createRateLimiter({ policies: {}, log: platform.log });
  const links = createConnectionLinks({ db, connections: service,
    publicBaseUrl: config.PUBLIC_BASE_URL, now: platform.outside.now,
    limits: createLoginLimits({ attempts, log: platform.log }),
    accountName: async (accountId) => (await platform.accounts.requireAccount(accountId)).name });
  return {
    name: 'connections',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerConnectionRoutes, { connections: service, links }),
    // The hosted connection page: outside /v1, its one-time token is the credential.
    pages: async (app) => app.register(registerConnectionPageRoutes, { links }),
    // Bank account connections made before account numbers were digested are digested at
    // every start.
    migrateData: async () => {
      const { resealed } = await digestBankAccountSubjects(db, deps.sealing);
      if (resealed > 0) {
        platform.log.info({ connections: resealed }, 'digested bank account numbers');
      }
    },
    resealSecrets: async () => [await resealColumn(deps.sealing, {
      name: 'connections.sealed_credentials',
      nextBatch: (after, limit) => store.listSealedCredentials(db, after, limit),
      replace: (id, box, resealed) => store.replaceSealedCredentials(db, id, box, resealed),
    }), await digestBankAccountSubjects(db, deps.sealing)],
    service,
    links,
    taxPortalFor: (environment) => adapters(environment).taxPortal,
    bankAccountsFor: (environment) => adapters(environment).bankAccounts,
  };
}
