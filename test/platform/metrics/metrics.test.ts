// GET /metrics (docs/operations.md § Metrics): served only with METRICS_TOKEN and only to its
// Bearer token, in the Prometheus text format, with figures that move with the work done: a
// paid call moves the charged points of its price row by its price and the request count of
// its operation and status; a capture and its refund move the charged and refunded points of
// the reservation's price row; paths no route matches share one label value. A caller's
// traceparent is logged beside etax's own trace id.
import { Writable } from 'node:stream';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponses, PLATFORM_ERRORS } from '../../../src/platform/error-responses.ts';
import { SANDBOX_BUSINESS_NUMBERS } from '../../../src/upstream/business-profiles/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';

const TOKEN = 'metrics-token-0123456789';
const PROFILE_PRICE_POINTS = 90;

const logLines: Array<Record<string, unknown>> = [];
let app: TestApp;
let withoutToken: TestApp;

beforeAll(async () => {
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  app = await createTestApp({
    env: { METRICS_TOKEN: TOKEN, TEST_SIGNUP_POINTS: '1000', LOG_LEVEL: 'info' },
    logDestination,
    extraRoutes: async (v1) => {
      v1.get('/metrics-test/log', { config: { operation: 'points.retrieve' }, schema: {
        response: { 200: Type.Object({ ok: Type.Boolean() },
          { title: 'LoggedLine', description: 'The line was logged.' }),
          ...errorResponses(...PLATFORM_ERRORS) } } },
      async (request) => {
          request.log.info('a line of the request');
          return { ok: true };
        });
    },
  });
  withoutToken = await createTestApp();
});
afterAll(async () => {
  await app?.close();
  await withoutToken?.close();
});

async function scrape(): Promise<string> {
  const response = await app.server.inject({ method: 'GET', url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

// The value of one series, 0 when it has no sample yet.
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const requestCount = (operation: string, status: number) =>
  `etax_http_request_duration_seconds_count{operation="${operation}",status="${status}"}`;

describe('GET /metrics', () => {
  it('is not served without METRICS_TOKEN', async () => {
    const response = await withoutToken.server.inject({ method: 'GET', url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('etax_');
  });

  it.each([
    ['no Authorization', undefined],
    ['another token', 'Bearer metrics-token-0123456788'],
    ['the token with a suffix', `Bearer ${TOKEN}x`],
    ['Basic credentials', `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`],
    ['the bare token', TOKEN],
  ])('refuses %s with 401 and no figure', async (_what, authorization) => {
    const response = await app.server.inject({ method: 'GET', url: '/metrics',
      headers: authorization === undefined ? {} : { authorization } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(response.body).toBe('');
  });

  it('shows the process, pool, queue, outbox and limiter figures', async () => {
    const text = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds',
      'etax_mail_outbox_pending', 'etax_rate_limiter_in_memory']) {
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    }
    expect(valueOf(text, 'etax_rate_limiter_in_memory')).toBe(0);
    if (!app.platform.database.embedded) {
      expect(valueOf(text, 'etax_db_pool_connections')).toBeGreaterThan(0);
    }
  });

  it('moves the charged points by the price and the request count by one for a paid call',
    async () => {
      const { accountId, keys } = await app.createAccount();
      const before = await scrape();
      const response = await app.server.inject({ method: 'GET',
        url: `/v1/businessProfiles/${SANDBOX_BUSINESS_NUMBERS.corporation}`,
        headers: { authorization: basicAuth(keys.test) } });
      expect(response.statusCode).toBe(200);
      const notFound = await app.server.inject({ method: 'GET',
        url: `/v1/businessProfiles/${SANDBOX_BUSINESS_NUMBERS.notFound}`,
        headers: { authorization: basicAuth(keys.test) } });
      expect(notFound.statusCode).toBe(404);
      const after = await scrape();
      const charged = 'etax_points_charged_total{operation="businesses.profiles.retrieve"}';
      expect(valueOf(after, charged) - valueOf(before, charged)).toBe(PROFILE_PRICE_POINTS);
      for (const status of [200, 404]) {
        const series = requestCount('businesses.profiles.retrieve', status);
        expect(valueOf(after, series) - valueOf(before, series)).toBe(1);
      }
      await expectLedgerConsistent(app.platform, accountId, 'test');
    });

  it('counts a capture and its refund under the reservation\'s price row', async () => {
    const { accountId } = await app.createAccount();
    const scope = { accountId, environment: 'test' as const };
    const before = await scrape();
    const reservation = await app.platform.points.reserve({ ...scope,
      operation: 'taxInvoices.issue', points: 100 });
    await app.platform.points.capture({ reservation, chargePoints: 100 });
    await app.platform.database.db.transaction((tx) => app.platform.points.refundCapture({
      ...scope, reservationId: reservation.reservationId, points: 100,
      ledgerEntryId: `led_metrics_${accountId}`, memo: 'refund: metrics test' }, tx));
    const after = await scrape();
    const charged = 'etax_points_charged_total{operation="taxInvoices.issue"}';
    const refunded = 'etax_points_refunded_total{operation="taxInvoices.issue"}';
    expect(valueOf(after, charged) - valueOf(before, charged)).toBe(100);
    expect(valueOf(after, refunded) - valueOf(before, refunded)).toBe(100);
    await expectLedgerConsistent(app.platform, accountId, 'test');
  });

  it('names requests no route matched with one label value, whatever their path', async () => {
    const before = await scrape();
    for (const path of ['/nowhere/1', '/nowhere/2', '/v1/%E2%80%AE', '/v1/x?y=<script>']) {
      expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    }
    const after = await scrape();
    const series = requestCount('unmatched', 404);
    expect(valueOf(after, series) - valueOf(before, series)).toBe(4);
    expect(after).not.toContain('nowhere');
    expect(after).not.toContain('<script>');
    expect(after).not.toContain('%E2%80%AE');
  });

  it('names routes without an operation by their pattern', async () => {
    const before = await scrape();
    expect((await app.server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const series = requestCount('/healthz', 200);
    expect(valueOf(await scrape(), series) - valueOf(before, series)).toBe(1);
  });
});

describe('traceparent', () => {
  it('logs the caller\'s trace id beside etax\'s own and never uses it as the Trace-Id',
    async () => {
      const { keys } = await app.createAccount();
      const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const response = await app.server.inject({ method: 'GET', url: '/v1/metrics-test/log',
        headers: { authorization: basicAuth(keys.test),
          traceparent: `00-${callerTraceId}-00f067aa0ba902b7-01` } });
      expect(response.statusCode).toBe(200);
      const traceId = response.headers['trace-id'];
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(traceId).not.toBe(callerTraceId);
      const line = logLines.find((candidate) => candidate.traceId === traceId);
      expect(line).toMatchObject({ msg: 'a line of the request', callerTraceId });
    });

  it.each([
    ['malformed', 'not-a-traceparent'],
    ['the all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
  ])('ignores a %s header', async (_what, traceparent) => {
    const { keys } = await app.createAccount();
    const response = await app.server.inject({ method: 'GET', url: '/v1/metrics-test/log',
      headers: { authorization: basicAuth(keys.test), traceparent } });
    expect(response.statusCode).toBe(200);
    const traceId = response.headers['trace-id'];
    const line = logLines.find((candidate) => candidate.traceId === traceId);
    expect(line).toBeDefined();
    expect(line).not.toHaveProperty('callerTraceId');
  });
});
