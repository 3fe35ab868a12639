import type { Config } from '../../config.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { RecordEvent } from '../../platform/events.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createCivilDocumentsGateway } from '../../upstream/civil-documents/live.ts';
import { createSandboxCivilDocuments } from '../../upstream/civil-documents/sandbox.ts';
import { createCourtRegistryGateway } from '../../upstream/court-registry/live.ts';
import { createSandboxCourtRegistry } from '../../upstream/court-registry/sandbox.ts';
import type { RegistrationStatusOf } from '../tax-invoices/index.ts';
import type { IssuersService } from '../issuers/index.ts';
import {
  createDocumentAcceptance,
  createDocumentValidation,
  type AcceptDocument,
  type ValidateDocument,
} from './acceptance/accept.ts';
import { issuanceRoutes } from './issuance/routes.ts';
import { createOwnerBusinesses, type OwnerBusinesses } from './owner-business.ts';
import { processDocument, type Upstreams } from './processing/issuance-job.ts';
import { documentJobDefinitions } from './processing/steps.ts';
import { retrievalRoutes } from './retrieval/routes.ts';
import { createRetrievalService, type RetrievalService } from './retrieval/service.ts';
import { ownerBusinessRoutes } from './routes.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Documents',
    description: 'Tax-authority certificates and corporate registry copies.',
    guides: [
      { path: 'docs/documents.md', title: 'Documents' },
    ],
  },
];

// Document issuance (docs/documents.md): tax-authority certificates of the account's own
// business and certified copies of corporations' registers, issued by a job through two
// upstream services, with the original PDF kept as received.
//
// Laid out as every area that makes documents is (docs/architecture.md § Areas that make
// documents):
//
//   owner-business.ts   the business that owns the API keys, an issuer of the issuers area
//                       (whose certificate flow registers its joint certificate); its routes
//                       are routes.ts
//   acceptance/         reference id, validation (validation.ts), reservation, the request row
//                       (accept.ts)
//   issuance/           the request and its validation under /v1 (routes.ts)
//   retrieval/          list, get, the original PDF (routes.ts, service.ts)
//   processing/         the job (issuance-job.ts: upstream call, PDF stored) and its
//                       definition (steps.ts)
//   lifecycle.ts        issued or failed: capture or release, webhook event
//   schemas.ts, store.ts, tables.ts

export type { OwnerBusinesses };
// What an owner business may be set to, as PUT /v1/account/business checks it: the dashboard's
// form is checked with the same schema.
export { OwnerBusinessBody as OwnerBusinessInput } from './schemas.ts';
// What a document request may be, as POST /v1/documents/issue checks it, and what it costs: the
// dashboard's forms offer the same types and options and show the price row's points.
export {
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  IssueDocumentBody as DocumentRequestInput,
  REGISTRY_TYPES,
} from './schemas.ts';
// The kinds of 소득금액증명 (its 증명구분), as the tax portal offers them.
export {
  INCOME_CERTIFICATE_KINDS,
  TAX_PAYMENT_PURPOSES,
} from '../../upstream/civil-documents/index.ts';
export type { DocumentType, DocumentView } from './schemas.ts';
export { priceRowOf as documentPriceRow } from './acceptance/accept.ts';
export { documentOptionsOf } from './acceptance/validation.ts';
// What the routes call: a request (accepted or validated by acceptance/) and the reads.
export type DocumentsService = { issue: AcceptDocument; validate: ValidateDocument } &
  RetrievalService;

export type DocumentsModule = AreaModule & {
  service: DocumentsService;
  owners: OwnerBusinesses;
  // Runs one document's job now, for tests and tools without workers.
  process(issuanceKey: string): Promise<void>;
};

// Test keys use the sandboxes and live keys the configured gateways; without one, live requests
// of that kind are refused when they are made.
function createUpstreams(config: Config, now: () => Date): Upstreams {
  const timeoutMs = config.DOCUMENTS_GATEWAY_TIMEOUT_MS;
  const latencyMs = config.DOCUMENTS_SANDBOX_LATENCY_MS;
  const civilSandbox = createSandboxCivilDocuments({
    officerCheckSeconds: config.DOCUMENTS_SANDBOX_OFFICER_CHECK_SECONDS, latencyMs, now });
  const civilLive = config.DOCUMENTS_CIVIL_GATEWAY_URL === undefined ? null
    : createCivilDocumentsGateway({ gatewayUrl: config.DOCUMENTS_CIVIL_GATEWAY_URL, timeoutMs,
      now });
  const registrySandbox = createSandboxCourtRegistry({ latencyMs });
  const registryLive = config.DOCUMENTS_REGISTRY_GATEWAY_URL === undefined ? null
    : createCourtRegistryGateway({ gatewayUrl: config.DOCUMENTS_REGISTRY_GATEWAY_URL,
      timeoutMs, now });
  return {
    civil: (environment: Environment) => (environment === 'live' ? civilLive : civilSandbox),
    registry: (environment: Environment) =>
      (environment === 'live' ? registryLive : registrySandbox),
  };
}

export function createDocumentsModule(
  platform: AreaPlatform,
  deps: { issuers: IssuersService; recordEvent: RecordEvent;
    // The owner business's registration status, for the fact certificates.
    registrationStatusOf: RegistrationStatusOf },
): DocumentsModule {
  const { config, database: { db } } = platform;
  const now = platform.outside.now;
  const upstreams = createUpstreams(config, now);
  const owners = createOwnerBusinesses({ db, issuers: deps.issuers });
  const acceptanceDeps = {
    db,
    stage: platform.jobs.stage,
    points: platform.points,
    prices: platform.prices,
    issuers: deps.issuers,
    owners,
    registrationStatusOf: deps.registrationStatusOf,
    upstreamAvailable: (environment: 'test' | 'live',
      kind: 'registry' | 'taxAuthority') => (kind === 'registry'
      ? upstreams.registry(environment) : upstreams.civil(environment)) !== null,
    now,
  };
  const service: DocumentsService = {
    issue: createDocumentAcceptance(acceptanceDeps),
    validate: createDocumentValidation(acceptanceDeps),
    ...createRetrievalService({ db, cursors: platform.cursors }),
  };
  const processing = {
    db,
    stage: platform.jobs.stage,
    points: platform.points,
    recordEvent: deps.recordEvent,
    upstreams,
    timeoutMs: config.DOCUMENTS_GATEWAY_TIMEOUT_MS,
    documentUrl: (issuanceKey: string) =>
      `${config.PUBLIC_BASE_URL}/v1/documents/${issuanceKey}/pdf`,
    log: platform.log,
    now,
  };
  return {
    name: 'documents',
    reference: REFERENCE,
    // The order is the order of the OpenAPI document.
    async routes(v1) {
      await v1.register(ownerBusinessRoutes, { owners });
      await v1.register(issuanceRoutes, { documents: service });
      await v1.register(retrievalRoutes, { documents: service });
    },
    jobs: documentJobDefinitions(processing) as AreaModule['jobs'],
    service,
    owners,
    process: (issuanceKey) => processDocument(processing, issuanceKey),
  };
}
