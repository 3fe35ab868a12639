import type { Config } from '../../config.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import { liveServiceConfigured } from '../../platform/live-services.ts';
import type { Outside } from '../../platform/outside.ts';
import type { CertificateValidator, TaxAuthority } from './index.ts';
import { createLiveTaxAuthority } from './live.ts';
import { createSandboxTaxAuthority } from './sandbox.ts';

// The tax authority's adapters, built once per process and shared by every area that asks it
// (registration status, supplier eligibility, certificate verification): test keys ask the
// sandbox, live keys the public API, or the authority the process was given instead
// (Outside.upstreams).
export type TaxAuthorities = {
  statusFor(environment: Environment): TaxAuthority;
  validatorFor(environment: Environment): CertificateValidator;
  // Whether live keys reach a real status service: a given one, or the configured API.
  liveStatusConfigured: boolean;
};

export function createTaxAuthorities(config: Config, outside: Pick<Outside, 'upstreams'>):
  TaxAuthorities {
  const sandbox = createSandboxTaxAuthority({ latencyMs: config.TAX_AUTHORITY_SANDBOX_LATENCY_MS });
  const configured = createLiveTaxAuthority({
    baseUrl: config.TAX_AUTHORITY_BASE_URL,
    serviceKey: config.TAX_AUTHORITY_SERVICE_KEY,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
  });
  const liveStatus = outside.upstreams?.taxAuthority ?? configured;
  const liveValidator = outside.upstreams?.certificateValidator ?? configured;
  return {
    statusFor: (environment) => (environment === 'live' ? liveStatus : sandbox),
    validatorFor: (environment) => (environment === 'live' ? liveValidator : sandbox),
    liveStatusConfigured: outside.upstreams?.taxAuthority !== undefined ||
      liveServiceConfigured(config, 'TAX_AUTHORITY'),
  };
}
