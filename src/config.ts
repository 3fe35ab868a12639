import path from 'node:path';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import { SANDBOX_NTS_SYSTEM_CODE } from './domain/approval-number.ts';
import { ACCOUNTS_PER_REQUEST_MAX } from './domain/bank-codes.ts';

// 32 bytes in base64.
const SEALING_KEY_BASE64 = '[A-Za-z0-9+/]{43}=';

// Environment variables we read, with their defaults in one place. Units are in the names.
// Everything is validated once at start; the result is frozen.
const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) =>
      Type.Literal(level),
    ),
    { default: 'info' },
  ),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  // Which proxies' X-Forwarded-For and X-Forwarded-Proto headers to believe (Fastify's
  // trustProxy; docs/operations.md): `true` for any, a number of hops, or a comma-separated list
  // of addresses and CIDR ranges. Unset: none, so a client's address is the socket's (the
  // per-address limits count it) and the dashboard's cookie is Secure only when etax itself
  // serves HTTPS (docs/dashboard.md § Sessions).
  TRUST_PROXY: Type.Optional(Type.String(
    { pattern: '^(true|[0-9]{1,2}|[0-9A-Fa-f.:/]+( *, *[0-9A-Fa-f.:/]+)*)$' })),
  // The address under which the repository's files are read, ending in '/' so a guide's path
  // resolves under it rather than beside its last segment; the API reference links its guides
  // there. Unset: it names their paths, since a guess would be a link to nowhere.
  GUIDES_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+/$' })),
  // API-only processes set this to false; they still stage jobs, they just never run them.
  WORKERS_ENABLED: Type.Boolean({ default: true }),
  // Whether the MCP endpoint /mcp serves live keys (docs/mcp.md): off, so an agent acts on
  // live data only where an operator chose it.
  MCP_ALLOW_LIVE: Type.Boolean({ default: false }),
  // A revoked key keeps working in other processes for at most this long (docs/auth.md).
  AUTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 5_000 }),
  // Must outlive the slowest upstream call with its retries, so a reservation is never expired
  // while its request is still working (asserted in test/config.test.ts).
  RESERVATION_TTL_MS: Type.Integer({ minimum: 60_000, maximum: 86_400_000, default: 300_000 }),
  // 1 MiB: the largest request any operation needs (100 bank accounts is ~10 KiB).
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1_024, maximum: 16_777_216, default: 1_048_576 }),
  // How long a client has to send a whole request, headers and body (a 10 MiB upload at 1 Mbit/s
  // takes 84 s); then it is answered 408 and its connection closed (docs/operations.md § Time
  // limits).
  REQUEST_RECEIVE_TIMEOUT_MS: Type.Integer({ minimum: 1_000, maximum: 600_000,
    default: 120_000 }),
  // How long a shutdown lets requests in flight finish before it closes their connections.
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, maximum: 20_000, default: 10_000 }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
  // How long a start waits for its database: PostgreSQL to accept connections (a machine or a
  // compose file that starts both at once), or another etax process that holds the embedded
  // DATA_DIR to finish starting or exit. Then the start fails (exit status 2). 0 tries once.
  DATABASE_CONNECT_TIMEOUT_SECONDS: Type.Integer({ minimum: 0, maximum: 3_600, default: 30 }),
  // Points every new account receives in its test environment (docs/points.md).
  TEST_SIGNUP_POINTS: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 1_000_000 }),
  // JSON objects that override rows of the price and rate-limit tables (docs/points.md, limits.md).
  PRICE_OVERRIDES: Type.String({ default: '{}' }),
  RATE_LIMIT_OVERRIDES: Type.String({ default: '{}' }),
  // Bank account holder lookup (docs/bank-account-holders.md). Unset gateway: live lookups are
  // unavailable (503 LOOKUP_UNAVAILABLE); test keys always use the sandbox.
  BANK_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  // Bank calls one bulk request runs at once: 100 accounts take 5 round trips at 20, while one
  // request never opens 100 connections to the gateway.
  BANK_LOOKUP_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  // One bank call may take this long before its account is BANK_UNAVAILABLE. Banks answer in
  // well under a second; 3 s rides out a slow moment without holding a bulk request for long.
  BANK_LOOKUP_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 30_000, default: 3_000 }),
  // Simulated round trip of every sandbox bank call; 0 answers at once (tests), the benchmark
  // sets 100 to look like a real bank.
  BANK_SANDBOX_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 0 }),
  // Registration status (docs/registration-status.md): the tax authority's public
  // business-status API. Unset service key: live checks are unavailable (503
  // LOOKUP_UNAVAILABLE); test keys always use the sandbox.
  TAX_AUTHORITY_BASE_URL: Type.String({
    pattern: '^https?://',
    default: 'https://api.odcloud.kr/api/nts-businessman/v1',
  }),
  TAX_AUTHORITY_SERVICE_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // One call answers up to 100 numbers; it may take this long before the request is 503.
  TAX_AUTHORITY_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 30_000, default: 5_000 }),
  // Simulated round trip of every sandbox tax-authority call; 0 answers at once.
  TAX_AUTHORITY_SANDBOX_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 0 }),
  // Certificate verification (docs/certificate-verification.md): OCR worker threads, and how
  // many images may wait for one before a request is 503 SERVICE_UNAVAILABLE.
  CERTIFICATE_OCR_WORKERS: Type.Integer({ minimum: 1, maximum: 8, default: 1 }),
  CERTIFICATE_OCR_QUEUE_MAX: Type.Integer({ minimum: 0, maximum: 100, default: 4 }),
  // PDF reader threads, and how many PDFs may wait for one (the same 503 past it).
  CERTIFICATE_PDF_READERS: Type.Integer({ minimum: 1, maximum: 8, default: 1 }),
  CERTIFICATE_PDF_QUEUE_MAX: Type.Integer({ minimum: 0, maximum: 100, default: 4 }),
  // Tax invoices (docs/tax-invoices.md). Live keys transmit through an operator-run gateway;
  // unset, live issuance is refused with 503 SERVICE_UNAVAILABLE. Test keys always use the
  // sandbox, which answers after TAX_INVOICE_SANDBOX_LATENCY_MS.
  TAX_INVOICE_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TAX_INVOICE_GATEWAY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000,
    default: 10_000 }),
  TAX_INVOICE_SANDBOX_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 0 }),
  // The eight-digit code the tax authority registered for this issuing system: the middle of
  // every approval number etax gives (docs/tax-invoice-xml.md § The approval number). The
  // default is for the sandbox only; live transmission (TAX_INVOICE_GATEWAY_URL) requires it.
  TAX_INVOICE_NTS_SYSTEM_CODE: Type.String({ pattern: '^[0-9]{8}$',
    default: SANDBOX_NTS_SYSTEM_CODE }),
  // Connections and the revenue and expense books (docs/connections.md,
  // docs/revenue-expense.md). Live keys reach the tax portal and banks through operator-run
  // gateways; unset, live connections and collections are refused with 503 SERVICE_UNAVAILABLE.
  TAX_PORTAL_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  BANK_ACCOUNT_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  CONNECTION_GATEWAY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000,
    default: 30_000 }),
  // Bank transactions (docs/bank-transactions.md): every CONNECTED bank account is synced again
  // once this many minutes passed since its last sync was requested; 0 (the default) turns the
  // schedule off, and accounts sync only on request.
  BANK_ACCOUNT_SYNC_INTERVAL_MINUTES: Type.Integer({ minimum: 0, maximum: 10_080, default: 0 }),
  // Document issuance (docs/documents.md). Live keys reach the tax authority's civil-document
  // service and the court registry through operator-run gateways; unset, live requests of that
  // kind are refused with 503 SERVICE_UNAVAILABLE. Test keys always use the sandboxes, where
  // fact certificates wait DOCUMENTS_SANDBOX_OFFICER_CHECK_SECONDS for an officer's check.
  DOCUMENTS_CIVIL_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DOCUMENTS_REGISTRY_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DOCUMENTS_GATEWAY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000,
    default: 30_000 }),
  DOCUMENTS_SANDBOX_OFFICER_CHECK_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400,
    default: 60 }),
  // Simulated time of every sandbox document call; 0 answers at once.
  DOCUMENTS_SANDBOX_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 0 }),
  // An issued invoice waits this long before transmission: the window in which the supplier
  // can still cancel it (POST /v1/taxInvoices/{issuanceKey}/cancel).
  TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400,
    default: 10 }),
  // Supplier eligibility (docs/tax-invoices.md § Supplier eligibility): the supplier's
  // registration status, asked of the tax authority before a document is accepted, is kept this
  // long per number; the authority itself refreshes about every 30 minutes.
  TAX_INVOICE_SUPPLIER_STATUS_CACHE_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400,
    default: 600 }),
  // When the status cannot be learned: `allow` accepts the document and logs a warning (the
  // authority's outage must not stop invoicing), `refuse` answers 503 LOOKUP_UNAVAILABLE.
  TAX_INVOICE_SUPPLIER_STATUS_UNAVAILABLE: Type.Union(
    [Type.Literal('allow'), Type.Literal('refuse')], { default: 'allow' }),
  // Cash receipts (docs/cash-receipts.md). Live keys reach the tax authority through an
  // operator-run gateway; unset, live issuance and cancellation are refused with 503
  // SERVICE_UNAVAILABLE. Test keys use the sandbox, which approves after
  // CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS and transmits
  // CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS after approval (the next day in production).
  CASH_RECEIPT_GATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  CASH_RECEIPT_GATEWAY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000,
    default: 10_000 }),
  CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: Type.Integer({ minimum: 0, maximum: 60_000,
    default: 0 }),
  CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400,
    default: 10 }),
  // Webhooks (docs/webhooks.md). A receiver must answer 2xx within this time; 10 s is generous
  // for a receiver that queues the event and answers at once, as it should.
  WEBHOOK_DELIVERY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 30_000, default: 10_000 }),
  // Self-hosted setups whose receivers live on the same machine or private network set this to
  // true: endpoints of any key, test or live, may then target loopback and private addresses.
  // Unset, no key may (a test key is one sign-up away). Link-local, metadata and IPv4-embedding
  // IPv6 addresses stay refused either way.
  WEBHOOK_PRIVATE_TARGETS_ALLOWED: Type.Boolean({ default: false }),
  // 32 bytes, base64: the AES-256-GCM key that seals every secret at rest: joint certificate
  // private keys, pending uploads, webhook signing secrets, connection credentials and the
  // personal numbers of cash receipts (docs/issuers.md § Keys at rest). Unset: one is generated
  // into DATA_DIR on first start and reused; every process of a multi-process deployment must
  // set the same value. Also read as CERTIFICATE_ENCRYPTION_KEY, its former name.
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: `^${SEALING_KEY_BASE64}$` })),
  // The keys ENCRYPTION_KEY replaced, comma-separated: they open what they sealed
  // until `etax reseal` has sealed it again with the current key (docs/operations.md § Rotating
  // the encryption key).
  ENCRYPTION_PREVIOUS_KEYS: Type.Optional(Type.String({
    pattern: `^${SEALING_KEY_BASE64}(,${SEALING_KEY_BASE64})*$`,
  })),
  // Mail (docs/operations.md § Mail), e.g. the approval request of a reverse issuance. The SMTP
  // server as a URL: smtp://user:pass@host:587 (STARTTLS when the server offers it) or
  // smtps://user:pass@host:465 (TLS from the start); percent-encode special characters of the
  // user and password. Unset: nothing is sent, every mail is kept in the outbox (status KEPT)
  // and read with `etax mail outbox`. The URL holds a password: it is never logged.
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  // The From of every mail, an address or `Name <address>`; required when SMTP_URL is set, so a
  // missing sender stops the start instead of every send.
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\r\\n]+$' })),
  // GET /metrics (docs/operations.md § Metrics) answers a scraper that sends
  // `Authorization: Bearer <METRICS_TOKEN>`. Unset: /metrics is not served (404). At least 16
  // characters, so it is not guessed.
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, maxLength: 200,
    pattern: '^[\\x21-\\x7e]+$' })),
  // Named prepared statements for the hot statements (src/platform/db/prepared.ts). Set false
  // behind a pooler in transaction mode that does not track them (PgBouncer before 1.21):
  // a statement prepared on one server connection is not on the next (docs/operations.md § Behind
  // a load balancer and PgBouncer).
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  // PostgreSQL itself, when DATABASE_URL is a pooler in transaction mode: the migrations and the
  // job queues' setup take session-level advisory locks, which only a direct connection holds.
  // Unset: DATABASE_URL.
  DATABASE_DIRECT_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
});

type RawConfig = Static<typeof ConfigSchema>;

export type Config = Readonly<
  Omit<RawConfig, 'PUBLIC_BASE_URL' | 'DATA_DIR'> & { PUBLIC_BASE_URL: string; DATA_DIR: string }
>;

export class ConfigError extends Error {}

const KNOWN_KEYS = Object.keys(ConfigSchema.properties);

// Variables read under an older name too: the key seals more than certificates now. The current
// name wins; both set to different values is a mistake the start refuses.
const FORMER_NAMES: Readonly<Record<string, string>> = {
  ENCRYPTION_KEY: 'CERTIFICATE_ENCRYPTION_KEY',
  ENCRYPTION_PREVIOUS_KEYS: 'CERTIFICATE_ENCRYPTION_PREVIOUS_KEYS',
};

function valueOf(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const given = (name: string | undefined) =>
    name === undefined || env[name] === '' ? undefined : env[name];
  const current = given(key);
  const former = given(FORMER_NAMES[key]);
  if (current !== undefined && former !== undefined && current !== former) {
    throw new ConfigError(`Invalid configuration:\n  ${key}: set to another value than its ` +
      `former name ${FORMER_NAMES[key]}; set only ${key}`);
  }
  return current ?? former;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    const value = valueOf(env, key);
    if (value !== undefined) picked[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, picked));
  const errors = [...Value.Errors(ConfigSchema, converted)];
  if (errors.length > 0) {
    const lines = errors.map(
      (error) => `${error.instancePath.slice(1) || '(root)'}: ${error.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const config = converted as RawConfig;
  checkBankLookupFitsReservation(config);
  checkMailSender(config);
  checkIssuingSystemCode(env, config);
  return Object.freeze({
    ...config,
    DATA_DIR: path.resolve(config.DATA_DIR),
    PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`,
  });
}

// The slowest bulk holder lookup (every bank call timing out, in ⌈100 / concurrency⌉ rounds) must
// end before its points reservation can expire, or the expiry job would release points the
// request is about to capture.
export function bulkLookupDurationMaxMs(config: {
  BANK_LOOKUP_CONCURRENCY: number;
  BANK_LOOKUP_TIMEOUT_MS: number;
}): number {
  const roundCount = Math.ceil(ACCOUNTS_PER_REQUEST_MAX / config.BANK_LOOKUP_CONCURRENCY);
  return roundCount * config.BANK_LOOKUP_TIMEOUT_MS;
}

function checkBankLookupFitsReservation(config: RawConfig): void {
  const durationMs = bulkLookupDurationMaxMs(config);
  if (durationMs >= config.RESERVATION_TTL_MS) {
    throw new ConfigError(
      `Invalid configuration:\n  BANK_LOOKUP_TIMEOUT_MS: a bulk lookup may take ${durationMs} ms ` +
      `(BANK_LOOKUP_TIMEOUT_MS × ⌈${ACCOUNTS_PER_REQUEST_MAX} / BANK_LOOKUP_CONCURRENCY⌉), ` +
      `which must be less than RESERVATION_TTL_MS (${config.RESERVATION_TTL_MS})`,
    );
  }
}

function checkMailSender(config: RawConfig): void {
  if (config.SMTP_URL !== undefined && config.MAIL_FROM === undefined) {
    throw new ConfigError('Invalid configuration:\n  MAIL_FROM: required when SMTP_URL is set ' +
      '(the From address of every mail, e.g. "etax <no-reply@example.com>")');
  }
}

// Live approval numbers carry the code the tax authority registered for this system; numbers made
// with the sandbox default would be refused by it, so live transmission needs the code set.
function checkIssuingSystemCode(env: NodeJS.ProcessEnv, config: RawConfig): void {
  const code = env.TAX_INVOICE_NTS_SYSTEM_CODE;
  if (config.TAX_INVOICE_GATEWAY_URL !== undefined && (code === undefined || code === '')) {
    throw new ConfigError('Invalid configuration:\n  TAX_INVOICE_NTS_SYSTEM_CODE: required when ' +
      'TAX_INVOICE_GATEWAY_URL is set (the eight-digit code the tax authority registered for ' +
      'this issuing system, the middle of every approval number)');
  }
}

// Parses one of the JSON override variables into a record of the given value check.
export function parseOverrides<T>(
  name: string,
  json: string,
  isValue: (value: unknown) => value is T,
): Record<string, T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ConfigError(`${name} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${name} must be a JSON object`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!isValue(value)) throw new ConfigError(`${name}: invalid value for "${key}"`);
  }
  return parsed as Record<string, T>;
}

// TRUST_PROXY as Fastify's trustProxy option takes it: true, the nearest hops, or the list.
export function trustProxySetting(value: string | undefined):
  boolean | string | ((address: string, hop: number) => boolean) {
  if (value === undefined) return false;
  if (value === 'true') return true;
  if (!/^[0-9]+$/.test(value)) return value;
  const hops = Number(value);
  return (_address, hop) => hop < hops;
}
