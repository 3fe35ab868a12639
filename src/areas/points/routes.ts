import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, INPUT_CHECKED_AFTER_COUNTING, PLATFORM_ERRORS } from
  '../../platform/error-responses.ts';
import type { LedgerEntry as LedgerEntryRow, LedgerKind, ReservationStatus } from
  '../../platform/points/ledger-reads.ts';
import type { LedgerPages, PointsService } from '../../platform/points/service.ts';
import { requestScope } from '../../platform/scope.ts';
import {
  LedgerPage,
  LedgerQuery,
  PointBalance,
} from './schemas.ts';

type Options = { points: PointsService; ledger: LedgerPages };

export const registerPointsRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { points, ledger }) => {
  app.get('/points', {
    config: { operation: 'points.retrieve' },
    schema: {
      operationId: 'getPoints',
      tags: ['Points'],
      summary: 'Retrieve the point balance',
      description:
        'Returns the point balance of the calling key\'s environment: a test key sees the ' +
        'test balance, a live key the live balance. Free of charge.',
      response: {
        200: PointBalance,
        ...errorResponses(...PLATFORM_ERRORS),
      },
    },
  }, async (request) => {
    return points.getBalance(requestScope(request));
  });

  app.get('/points/ledger', {
    config: { operation: 'points.ledger.list' },
    schema: {
      operationId: 'listPointLedgerEntries',
      tags: ['Points'],
      summary: 'List the points ledger',
      description:
        'The movements of the calling key\'s balance, newest first: grants, captures of ' +
        'reservations, charges debited with their work and refunds, each with its price row, ' +
        'the request (`Trace-Id`) and document it belongs to and, for a capture, the ' +
        'reservation it settled. Filtered by kind, price row and Seoul dates, paged with an ' +
        'opaque cursor. A test key sees the test ledger, a live key the live one. Free of ' +
        'charge.',
      querystring: LedgerQuery,
      response: {
        200: LedgerPage,
        ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST', INPUT_CHECKED_AFTER_COUNTING),
      },
    },
  }, async (request): Promise<LedgerPage> => {
    const { kind, operation, createdDateFrom, createdDateTo, limit, cursor } = request.query;
    const page = await ledger.ledgerPage(requestScope(request), {
      kinds: kind === undefined ? undefined : [kind.toLowerCase() as LedgerKind],
      operations: operation === undefined ? undefined : [operation],
      from: createdDateFrom, to: createdDateTo, cursor, limit });
    return { ledgerEntries: page.entries.map(toLedgerEntry), hasMore: page.hasMore,
      nextCursor: page.nextCursor };
  });
};

const toLedgerEntry = (entry: LedgerEntryRow): LedgerPage['ledgerEntries'][number] => ({
  id: entry.id, kind: entry.kind.toUpperCase() as Uppercase<LedgerKind>,
  points: entry.amountPoints,
  balanceAfter: entry.balanceAfterPoints, operation: entry.operation,
  requestId: entry.requestId, documentId: entry.documentId,
  reservation: entry.reservation === null ? null : {
    id: entry.reservation.id,
    status: entry.reservation.status.toUpperCase() as Uppercase<ReservationStatus>,
    reserved: entry.reservation.reservedPoints, captured: entry.reservation.capturedPoints,
    createdAt: entry.reservation.createdAt.toISOString(),
    settledAt: entry.reservation.settledAt?.toISOString() ?? null },
  memo: entry.memo, createdAt: entry.createdAt.toISOString() });
