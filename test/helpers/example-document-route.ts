import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Platform } from '../../src/platform/platform.ts';
import type { AuthenticatedKey } from '../../src/platform/accounts/service.ts';
import { requireAuth } from '../../src/platform/auth.ts';
import type { Tx } from '../../src/platform/db/connect.ts';
import {
  BODY_ERRORS,
  errorResponses,
  PLATFORM_ERRORS,
} from '../../src/platform/error-responses.ts';
import {
  requestFingerprint,
  runIdempotent,
} from '../../src/platform/idempotency/claims.ts';
import { referenceIdHeaders } from '../../src/platform/idempotency/reference-id-header.ts';

// A document-issuance-like route built the way an area builds one: the reference id is claimed
// in the transaction of the work it guards (docs/idempotency.md). No current operation takes
// Service-Client-Reference-Id yet, so the tests of the mechanism mount this one with
// createApp's extraModules.

export const EXAMPLE_DOCUMENT_URL = '/v1/examples/documents';

export type DocumentWork = (tx: Tx, key: AuthenticatedKey) => Promise<number>;

export function exampleDocumentRoute(
  platform: () => Platform,
  work: DocumentWork,
): FastifyPluginAsyncTypebox {
  return async (v1) => {
    v1.post('/examples/documents', {
      // The boot refuses operation names outside the operation table; this one is borrowed.
      config: { operation: 'taxInvoices.issue' },
      schema: {
        headers: referenceIdHeaders({ required: true }),
        body: Type.Object({ kind: Type.String({ maxLength: 20 }) }),
        response: {
          200: Type.Object({ documentNumber: Type.Integer() },
            { title: 'ExampleDocument', description: 'The document made.' }),
          ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS, 'IDEMPOTENCY_CONFLICT'),
        },
      },
    }, async (request, reply) => {
      const key = requireAuth(request);
      const referenceId = request.headers['service-client-reference-id'];
      const fingerprint = requestFingerprint({
        method: request.method,
        route: request.routeOptions.url ?? '',
        body: request.body,
      });
      const claim = { apiKeyId: key.keyId, namespace: 'document' as const, referenceId,
        fingerprint };
      const result = await platform().database.db.transaction((tx) =>
        runIdempotent(tx, claim, async () => {
          const documentNumber = await work(tx, key);
          return { status: 200, body: { documentNumber } };
        }));
      return reply.code(result.status as 200).send(result.body as { documentNumber: number });
    });
  };
}
