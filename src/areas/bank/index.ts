import type { AreaModule } from '../../platform/module.ts';
import { liveServiceConfigured } from '../../platform/live-services.ts';
import type { Platform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createLiveBanks } from '../../upstream/banks/live.ts';
import { createSandboxBanks } from '../../upstream/banks/sandbox.ts';
import { registerBankRoutes } from './routes.ts';
import { createBankService, type BankService } from './service.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Bank account holders',
    description: 'Holder names of bank accounts.',
    guides: [
      { path: 'docs/bank-account-holders.md', title: 'Bank account holders' },
    ],
  },
];

// Bank account holder lookup (docs/bank-account-holders.md): one account or up to 100 at once,
// 50 points per holder found.

export type { BankService };
// The API's body of the bulk holder lookup, so the dashboard refuses what the API refuses.
export { HolderLookupBody } from './schemas.ts';

export type BankModule = AreaModule & { service: BankService };

// Test keys always reach the sandbox and live keys the gateway; both adapters are built once.
export function createBankModule(platform: Platform): BankModule {
  const { config } = platform;
  const sandbox = createSandboxBanks({ latencyMs: config.BANK_SANDBOX_LATENCY_MS });
  const live = createLiveBanks({
    gatewayUrl: config.BANK_GATEWAY_URL,
    timeoutMs: config.BANK_LOOKUP_TIMEOUT_MS,
  });
  const service = createBankService({
    charge: platform.charge,
    banksFor: (environment) => (environment === 'live' ? live : sandbox),
    banksConfigured: (environment) => environment === 'test' ||
      liveServiceConfigured(config, 'BANK_HOLDER_LOOKUP'),
    concurrency: config.BANK_LOOKUP_CONCURRENCY,
    timeoutMs: config.BANK_LOOKUP_TIMEOUT_MS,
  });
  return {
    name: 'bank',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerBankRoutes, { bank: service }),
    service,
  };
}
