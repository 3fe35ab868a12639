// One account's keys never reach another account's data, and a key of one environment never
// reaches the other environment's data of its own account: for every
// resource type with ids, each of four keys (accounts A and B, test and live) owns one, and the
// three others get 404 NOT_FOUND (not 403) for every read, change and delete, never see it in
// their lists, and leave it unchanged. Balances are read by each key as its own alone. Every
// operation that names a resource already gets another account's key refused with 404 in the
// operation contract suite (operation-contract.test.ts, from the OpenAPI document), so a new area
// is covered without an entry here; an entry of RESOURCE_TYPES (test/helpers/isolation.ts) adds
// the lists and the state left unchanged for a resource type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { invoiceBody, registerSupplier } from './tax-invoices/helpers.ts';
import {
  authorized,
  expectIsolated,
  type Principal,
  type ResourceType,
} from '../helpers/isolation.ts';

// Live keys need https; private targets let every key use a local address (no DNS needed).
const ENDPOINT_URL = 'https://127.0.0.1:9/hooks';
const EVENT = {
  type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
  data: { issuanceKey: 'iss_1', taxInvoiceUrl: 'https://example.com/invoices/iss_1' },
} as const;

let app: TestApp;
const principals: Principal[] = [];
// Each principal's own endpoint, for the attempts that go through one.
const endpointOf = new Map<string, string>();
const endpointOfDelivery = new Map<string, string>();

async function call(request: InjectOptions, key: string) {
  const response = await app.server.inject(authorized(request, key));
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
}

async function createEndpoint(owner: Principal): Promise<string> {
  const body = await call({ method: 'POST', url: '/v1/webhookEndpoints',
    payload: { url: ENDPOINT_URL, events: [EVENT.type] } }, owner.key);
  return (body as { id: string }).id;
}

async function recordEvent(owner: Principal): Promise<string> {
  const scope = { accountId: owner.accountId, environment: owner.environment };
  return (await app.webhooks.recordEvent(app.platform.database.db, scope, EVENT)).id;
}

const resultIds = (body: unknown) => (body as { results: { id: string }[] }).results
  .map((result) => result.id);

const webhookEndpoints: ResourceType = {
  name: 'webhook endpoint',
  create: (_app, owner) => createEndpoint(owner),
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/webhookEndpoints/${id}` }, owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/webhookEndpoints/${id}` },
    { method: 'PATCH', url: `/v1/webhookEndpoints/${id}`, payload: { description: 'taken' } },
    { method: 'PATCH', url: `/v1/webhookEndpoints/${id}`, payload: { enabled: false } },
    { method: 'DELETE', url: `/v1/webhookEndpoints/${id}` },
    { method: 'POST', url: `/v1/webhookEndpoints/${id}:rotateSecret`,
      payload: { overlapSeconds: 0 } },
    { method: 'GET', url: `/v1/webhookEndpoints/${id}/deliveries` },
    { method: 'POST', url: `/v1/webhookEndpoints/${id}/deliveries:resend`,
      payload: { eventId: 'evt_none' } },
  ],
  listings: () => [{ url: '/v1/webhookEndpoints', ids: resultIds }],
};

const webhookEvents: ResourceType = {
  name: 'webhook event',
  create: (_app, owner) => recordEvent(owner),
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/webhookEvents/${id}` }, owner.key),
  attempts: (id, stranger) => [
    { method: 'GET', url: `/v1/webhookEvents/${id}` },
    // Resending it to the stranger's own endpoint.
    { method: 'POST',
      url: `/v1/webhookEndpoints/${endpointOf.get(stranger.name)}/deliveries:resend`,
      payload: { eventId: id } },
  ],
  listings: () => [
    { url: '/v1/webhookEvents', ids: resultIds },
    { url: `/v1/webhookEvents?type=${EVENT.type}&limit=100`, ids: resultIds },
  ],
};

// A delivery has no route of its own: it is reached through its endpoint's delivery log.
const webhookDeliveries: ResourceType = {
  name: 'webhook delivery',
  async create(_app, owner) {
    const endpointId = endpointOf.get(owner.name)!;
    await recordEvent(owner);
    const url = `/v1/webhookEndpoints/${endpointId}/deliveries`;
    const page = await call({ method: 'GET', url }, owner.key);
    const id = resultIds(page)[0]!;
    endpointOfDelivery.set(id, endpointId);
    return id;
  },
  read: (_app, owner, id) => call({ method: 'GET',
    url: `/v1/webhookEndpoints/${endpointOfDelivery.get(id)}/deliveries` }, owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/webhookEndpoints/${endpointOfDelivery.get(id)}/deliveries` },
    { method: 'GET',
      url: `/v1/webhookEndpoints/${endpointOfDelivery.get(id)}/deliveries?status=pending` },
  ],
  listings: (stranger) => [
    { url: `/v1/webhookEndpoints/${endpointOf.get(stranger.name)}/deliveries`, ids: resultIds },
  ],
};

const ISSUER = {
  identificationNumber: '1234567891',
  organizationName: '주식회사 격리',
  representativeName: '홍길동',
};
// Well-formed, so a stranger's upload is refused for the issuer, not for its shape.
const UPLOAD = {
  signCert: Buffer.from('not a certificate').toString('base64'),
  signPri: Buffer.from('not a key').toString('base64'),
  password: 'irrelevant',
};

const issuers: ResourceType = {
  name: 'issuer and its certificate',
  create: async (_app, owner) => {
    const body = await call({ method: 'POST', url: '/v1/issuers', payload: ISSUER }, owner.key);
    return (body as { issuerId: string }).issuerId;
  },
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/issuers/${id}` }, owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/issuers/${id}` },
    { method: 'PATCH', url: `/v1/issuers/${id}`, payload: { organizationName: 'taken' } },
    { method: 'DELETE', url: `/v1/issuers/${id}` },
    { method: 'POST', url: `/v1/issuers/${id}/certificates`, payload: UPLOAD },
    { method: 'GET', url: `/v1/issuers/${id}/certificates` },
    { method: 'DELETE', url: `/v1/issuers/${id}/certificates` },
    { method: 'GET', url: `/v1/issuers/${id}/certificates/url` },
    { method: 'GET', url: `/v1/issuers/${id}/certificates/latestHistory` },
  ],
  listings: () => [{
    url: '/v1/issuers',
    ids: (body) => (body as { issuers: { issuerId: string }[] }).issuers
      .map((issuer) => issuer.issuerId),
  }],
};

const INVOICE_SUPPLIER_NUMBER = '1048123454';
const INVOICE = { ...invoiceBody(), supplier: { ...invoiceBody().supplier,
  identificationNumber: INVOICE_SUPPLIER_NUMBER } };

// Each principal's supplier with a certificate, made once, and points to pay for invoices.
const supplierKeyOf = new Map<string, string>();

async function supplierKeyFor(owner: Principal): Promise<string> {
  const known = supplierKeyOf.get(owner.name);
  if (known !== undefined) return known;
  // Another number than the issuers entry's, which registers its own issuer.
  const supplier = await registerSupplier(app, owner.key,
    { identificationNumber: INVOICE_SUPPLIER_NUMBER });
  await app.platform.points.grant({ accountId: owner.accountId, environment: owner.environment,
    points: 10_000 });
  supplierKeyOf.set(owner.name, supplier.supplierKey);
  return supplier.supplierKey;
}

const taxInvoices: ResourceType = {
  name: 'tax invoice',
  create: async (_app, owner) => {
    const supplierKey = await supplierKeyFor(owner);
    const accepted = await app.server.inject({ method: 'POST', url: '/v1/taxInvoices/issue',
      payload: INVOICE, headers: { ...authorized({ method: 'POST', url: '/',
        payload: {} }, owner.key).headers, 'supplier-key': supplierKey } });
    expect(accepted.statusCode, accepted.body).toBe(200);
    return (accepted.json() as { issuanceKey: string }).issuanceKey;
  },
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/taxInvoices/${id}` }, owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/taxInvoices/${id}` },
    { method: 'GET', url: `/v1/taxInvoices/${id}/pdf` },
    { method: 'POST', url: `/v1/taxInvoices/${id}/cancel` },
  ],
  listings: () => [{
    url: '/v1/taxInvoices',
    ids: (body) => (body as { taxInvoices: { issuanceKey: string }[] }).taxInvoices
      .map((invoice) => invoice.issuanceKey),
  }],
};

const counterparties: ResourceType = {
  name: 'counterparty',
  create: async (_app, owner) => (await call({ method: 'POST', url: '/v1/counterparties',
    payload: { businessRegistrationNumber: '2208162517', organizationName: '주식회사 받는곳',
      representativeName: '이영희', managers: [{ email: 'account@example.com' }] } },
  owner.key) as { id: string }).id,
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/counterparties/${id}` }, owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/counterparties/${id}` },
    { method: 'PATCH', url: `/v1/counterparties/${id}`, payload: { memo: 'taken' } },
    { method: 'DELETE', url: `/v1/counterparties/${id}` },
    { method: 'POST', url: `/v1/counterparties/${id}:refreshStatus` },
  ],
  listings: () => [{ url: '/v1/counterparties', ids: (body: unknown) =>
    (body as { counterparties: { id: string }[] }).counterparties.map((item) => item.id) }],
};

const IMPORT_BOUNDARY = 'isolationBoundary';
const counterpartyImports: ResourceType = {
  name: 'counterparty import',
  create: async (_app, owner) => {
    const response = await app.server.inject({ method: 'POST', url: '/v1/counterpartyImports',
      headers: { ...authorized({ method: 'POST', url: '/' }, owner.key).headers,
        'content-type': `multipart/form-data; boundary=${IMPORT_BOUNDARY}` },
      payload: `--${IMPORT_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
        'filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n' +
        'businessRegistrationNumber,organizationName,representativeName\r\n' +
        `1234567891,Co,Kim\r\n--${IMPORT_BOUNDARY}--\r\n` });
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { id: string }).id;
  },
  read: (_app, owner, id) => call({ method: 'GET', url: `/v1/counterpartyImports/${id}` },
    owner.key),
  attempts: (id) => [
    { method: 'GET', url: `/v1/counterpartyImports/${id}` },
    { method: 'POST', url: `/v1/counterpartyImports/${id}:commit` },
  ],
  listings: () => [],
};

const RESOURCE_TYPES: ResourceType[] = [
  webhookEndpoints, webhookEvents, webhookDeliveries, issuers, taxInvoices, counterparties,
  counterpartyImports,
];

beforeAll(async () => {
  app = await createTestApp({
    jobs: true, env: { WORKERS_ENABLED: 'false', WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
      // Live invoices are accepted; without workers nothing is ever sent to it.
      TAX_INVOICE_GATEWAY_URL: 'http://127.0.0.1:9', TAX_INVOICE_NTS_SYSTEM_CODE: '41000008' },
  });
  for (const accountName of ['A', 'B']) {
    const { accountId, keys } = await app.createAccount({ name: accountName });
    for (const environment of ['test', 'live'] as const) {
      principals.push({ name: `${accountName} ${environment}`, key: keys[environment], accountId,
        environment });
    }
  }
  for (const principal of principals) {
    endpointOf.set(principal.name, await createEndpoint(principal));
  }
});
afterAll(async () => {
  await app?.close();
});

describe('isolating accounts and environments', () => {
  for (const type of RESOURCE_TYPES) {
    it(`returns 404 NOT_FOUND to every other key for a ${type.name} and leaves it unchanged`,
      async () => {
        for (const owner of principals) await expectIsolated(app, type, owner, principals);
      });
  }

  it('shows each key its own balance alone', async () => {
    // Distinct amounts, so a key reading another's balance cannot go unnoticed.
    for (const [index, principal] of principals.entries()) {
      await app.platform.points.grant({ accountId: principal.accountId,
        environment: principal.environment, points: 1_000 + index });
    }
    for (const principal of principals) {
      const expected = await app.platform.points.getBalance({ accountId: principal.accountId,
        environment: principal.environment });
      expect(await call({ method: 'GET', url: '/v1/points' }, principal.key)).toEqual(expected);
    }
    const seen = await Promise.all(principals.map((principal) =>
      call({ method: 'GET', url: '/v1/points' }, principal.key)));
    expect(new Set(seen.map((balance) => JSON.stringify(balance))).size).toBe(principals.length);
  });
});
