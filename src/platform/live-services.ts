import type { Config } from '../config.ts';

// The outside services that live keys reach, each with the settings that connect it. Test keys
// always use the sandboxes, so a fresh install has none of these set, and a live key calling
// one of them is refused with the 503 its operation documents. Without this table that refusal
// looks like an outage: `etax serve` names every service that is not configured in one line at
// start-up, `/readyz` lists them, and the refusals say which setting is missing.

export type LiveServiceName =
  | 'TAX_AUTHORITY'
  | 'BANK_HOLDER_LOOKUP'
  | 'TAX_INVOICE_TRANSMISSION'
  | 'TAX_PORTAL'
  | 'BANK_ACCOUNTS'
  | 'CIVIL_DOCUMENTS'
  | 'REGISTRY_DOCUMENTS'
  | 'CASH_RECEIPTS';

type LiveService = {
  // The setting that connects it; unset, live keys cannot use what `serves` names.
  setting: keyof Config;
  serves: string;
};

const LIVE_SERVICES: Readonly<Record<LiveServiceName, LiveService>> = Object.freeze({
  TAX_AUTHORITY: { setting: 'TAX_AUTHORITY_SERVICE_KEY',
    serves: 'registration status, supplier eligibility and certificate verification' },
  BANK_HOLDER_LOOKUP: { setting: 'BANK_GATEWAY_URL', serves: 'bank account holder lookups' },
  TAX_INVOICE_TRANSMISSION: { setting: 'TAX_INVOICE_GATEWAY_URL',
    serves: 'tax invoice issuance and transmission' },
  TAX_PORTAL: { setting: 'TAX_PORTAL_GATEWAY_URL',
    serves: 'tax portal connections and revenue/expense collection' },
  BANK_ACCOUNTS: { setting: 'BANK_ACCOUNT_GATEWAY_URL',
    serves: 'bank account connections and transactions' },
  CIVIL_DOCUMENTS: { setting: 'DOCUMENTS_CIVIL_GATEWAY_URL',
    serves: 'tax-authority certificates (documents)' },
  REGISTRY_DOCUMENTS: { setting: 'DOCUMENTS_REGISTRY_GATEWAY_URL',
    serves: 'corporate registry copies (documents)' },
  CASH_RECEIPTS: { setting: 'CASH_RECEIPT_GATEWAY_URL',
    serves: 'cash receipt issuance and cancellation' },
});

export type UnconfiguredLiveService = { service: LiveServiceName; setting: string;
  serves: string };

// The live services this configuration leaves unconnected, in the table's order.
export function unconfiguredLiveServices(config: Config): UnconfiguredLiveService[] {
  return (Object.entries(LIVE_SERVICES) as [LiveServiceName, LiveService][])
    .filter(([, { setting }]) => config[setting] === undefined)
    .map(([service, { setting, serves }]) => ({ service, setting, serves }));
}

// The message of a live request refused because its service is not configured; the code stays
// the one the operation documents for an unavailable service.
export function notConfiguredMessage(service: LiveServiceName): string {
  const { setting, serves } = LIVE_SERVICES[service];
  return `This server is not configured for live ${serves} (${setting} is not set). ` +
    'Test keys use the sandbox.';
}

// Whether live keys can reach `service` with this configuration.
export function liveServiceConfigured(config: Config, service: LiveServiceName): boolean {
  return config[LIVE_SERVICES[service].setting] !== undefined;
}
