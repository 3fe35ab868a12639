import type { RecordEvent } from '../../platform/events.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import { registerCertificatePageRoutes } from './page-routes.ts';
import { registerIssuerRoutes } from './routes.ts';
import { resealIssuerSecrets } from './sealed-columns.ts';
import { createIssuersService, type IssuersService } from './service.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Issuers',
    description: 'Businesses that issue tax invoices under a key, and their joint certificates.',
    guides: [
      { path: 'docs/issuers.md', title: 'Issuers and joint certificates' },
    ],
  },
];

// Issuers and their joint certificates (docs/issuers.md): the businesses that issue tax
// invoices under an API key, the certificate registration by API and on the hosted page, and
// the signing keys tax-invoice work uses (resolveSupplierKey, requireIssuerCertificate).
//
//   routes.ts, schemas.ts, service.ts   the API; page-routes.ts the hosted certificate page
//   registration.ts, registration-links.ts, certificate-check.ts   registering a certificate
//   signing.ts, sealed-columns.ts   signing keys, sealed at rest with the encryption key
//   store.ts, tables.ts

// The service other areas reach issuers through: an issuer by id, the active issuer of a
// business number (findActiveIssuer), supplier keys and the certificates that sign.
export type { IssuersService };
// The API's own body schemas, so the dashboard's issuer forms refuse what the API refuses.
export { CreateIssuerBody, UpdateIssuerBody } from './schemas.ts';
// What tax-invoice work reads of an issuer, and signs with.

export type IssuersModule = AreaModule & { service: IssuersService };

// Certificate keys are sealed with the encryption key (src/platform/encryption-key.ts), which
// app.ts loads once for every area that seals. The outcome of every registration attempt is also
// a webhook event (CERTIFICATE_REGISTRATION_SUCCESS or _FAILURE), recorded in the transaction
// that appends the history record; a deregistration, which the client asked for itself, is not
// an event.
export async function createIssuersModule(
  platform: AreaPlatform,
  deps: { recordEvent: RecordEvent; sealing: SealingKey },
): Promise<IssuersModule> {
  const { config, database, log } = platform;
  const service = createIssuersService({
    db: database.db,
    stage: platform.jobs.stage,
    sealing: deps.sealing,
    cursors: platform.cursors,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    log,
    now: platform.outside.now,
    async onRegistrationRecorded(tx, scope, record) {
      if (record.code === 'DEREGISTERED') return;
      await deps.recordEvent(tx, scope, {
        type: record.code === 'REGISTERED'
          ? 'CERTIFICATE_REGISTRATION_SUCCESS'
          : 'CERTIFICATE_REGISTRATION_FAILURE',
        data: record,
      });
    },
  });
  return {
    name: 'issuers',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerIssuerRoutes, { issuers: service }),
    // The hosted certificate registration page: outside /v1, its one-time token is the
    // credential.
    pages: async (app) => app.register(registerCertificatePageRoutes, { issuers: service }),
    jobs: service.jobDefinitions() as AreaModule['jobs'],
    resealSecrets: () => resealIssuerSecrets(database.db, deps.sealing),
    service,
  };
}
