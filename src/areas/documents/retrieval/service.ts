import { sequenceCursors, type PageCursors } from '../../../platform/cursor.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Scope } from '../../../platform/scope.ts';
import { failureOfRow } from '../../../platform/stored-failure.ts';
import type {
  DocumentStatus,
  DocumentType,
  DocumentView,
} from '../schemas.ts';
import * as store from '../store.ts';

// Reading document requests and their PDFs (docs/documents.md § Status and download). A request
// of another account or environment does not exist for the caller: 404 NOT_FOUND.

const NO_SUCH_DOCUMENT = 'No document request has this issuanceKey.';

function toView(row: store.DocumentSummaryRow): DocumentView {
  return {
    issuanceKey: row.issuanceKey,
    clientReferenceId: row.clientReferenceId,
    type: row.type as DocumentType,
    status: row.status as DocumentStatus,
    options: row.options,
    corporationNumber: row.corporationNumber,
    issueNumber: row.issueNumber,
    pdfSha256: row.pdfSha256,
    points: row.reservedPoints,
    failure: failureOfRow(row),
    acceptedAt: row.acceptedAt.toISOString(),
    issuedAt: row.issuedAt?.toISOString() ?? null,
    failedAt: row.failedAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function createRetrievalService(deps: { db: Db; cursors: PageCursors }) {
  const { db } = deps;
  const listCursors = sequenceCursors(deps.cursors, 'documents.list');
  return {
    async get(input: { scope: Scope; issuanceKey: string }): Promise<DocumentView> {
      const row = await store.findDocument(db, input.scope, input.issuanceKey);
      if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_DOCUMENT);
      return toView(row);
    },

    async list(input: { scope: Scope; limit: number; cursor?: string | undefined;
      status?: DocumentStatus | undefined; type?: DocumentType | undefined }) {
      const rows = await store.listDocuments(db, input.scope, {
        beforeSequence: listCursors.decode(input.scope, input.cursor) ?? null,
        limit: input.limit + 1,
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.type === undefined ? {} : { type: input.type }),
      });
      const { page, nextCursor } = listCursors.pageOf(input.scope, rows, input.limit);
      return { documents: page.map(toView), nextCursor };
    },

    // The PDF exactly as the upstream service sent it.
    async pdf(input: { scope: Scope; issuanceKey: string }): Promise<Buffer> {
      const row = await store.findPdf(db, input.scope, input.issuanceKey);
      if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_DOCUMENT);
      if (row.status !== 'ISSUED' || row.pdf === null) {
        throw new ApiError('DOCUMENT_NOT_ISSUED', `The document is ${row.status}; its PDF ` +
          'exists once it is ISSUED.');
      }
      return row.pdf;
    },
  };
}

export type RetrievalService = ReturnType<typeof createRetrievalService>;
