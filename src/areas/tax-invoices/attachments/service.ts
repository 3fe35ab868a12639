import { createHash } from 'node:crypto';
import { newId } from '../../../domain/ids.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { MailAttachment } from '../../../platform/mail/transport.ts';
import type { Scope } from '../../../platform/scope.ts';
import type { TaxInvoiceStatus } from '../schemas.ts';
import { findInvoice, lockInvoice } from '../store.ts';
import {
  ATTACHMENT_EXTENSIONS,
  ATTACHMENT_KINDS,
  ATTACHMENTS_PER_INVOICE_MAX,
  attachmentKindOf,
  keptFileName,
  nameOfKind,
} from './files.ts';
import * as store from './store.ts';

// The files a tax invoice carries to its recipient (docs/tax-invoices.md § Attachments). They
// are added and removed while the document is on its way to issuance (a reverse issuance
// request, a document accepted or issued but not yet transmitting): from transmission on they
// are what the recipient's mail carries, so they no longer change. They are never part of the
// signed XML.

const ATTACHMENTS_OPEN_STATUSES: readonly TaxInvoiceStatus[] =
  ['REQUESTED', 'APPROVED', 'PENDING', 'ISSUED'];

export type UploadedFile = { fileName: string; content: Buffer };

export type AttachmentView = {
  attachmentId: string;
  issuanceKey: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  createdAt: string;
};

const viewOf = (row: store.AttachmentInfo): AttachmentView => ({
  attachmentId: row.id, issuanceKey: row.issuanceKey, fileName: row.fileName,
  contentType: row.contentType, size: row.sizeBytes, sha256: row.sha256,
  createdAt: row.createdAt.toISOString(),
});

// Each file's kind by its content and the name it is kept under; the first file that is not one
// of the kinds, or whose name claims another kind, refuses the request.
function checkedFiles(files: readonly UploadedFile[]) {
  return files.map((file) => {
    const kind = attachmentKindOf(file.content);
    const shown = JSON.stringify(file.fileName.slice(0, 60));
    if (kind === null) {
      throw new ApiError('ATTACHMENT_TYPE_NOT_ALLOWED', `The file ${shown} is not a PDF, PNG, ` +
        'JPEG, XLSX or DOCX file by its content.');
    }
    const fileName = nameOfKind(keptFileName(file.fileName, kind), kind);
    if (fileName === null) {
      throw new ApiError('ATTACHMENT_TYPE_NOT_ALLOWED', `The file ${shown} is a ${kind} file by ` +
        `its content; its name must end with ${ATTACHMENT_KINDS[kind].extensions
          .map((extension) => `.${extension}`).join(' or ')} (accepted: ${
          ATTACHMENT_EXTENSIONS.join(', ')}).`);
    }
    return { fileName, contentType: ATTACHMENT_KINDS[kind].contentType, content: file.content };
  });
}

const notFound = () => new ApiError('NOT_FOUND', 'No tax invoice has this issuance key.');

function checkOpen(status: TaxInvoiceStatus) {
  if (!ATTACHMENTS_OPEN_STATUSES.includes(status)) {
    throw new ApiError('TAX_INVOICE_ATTACHMENTS_LOCKED', `The tax invoice is ${status}: its ` +
      `attachments change only while it is ${ATTACHMENTS_OPEN_STATUSES.join(', ')}.`);
  }
}

export function createAttachmentService(deps: { db: Db; now: () => Date }) {
  async function add(input: { scope: Scope; issuanceKey: string;
    files: readonly UploadedFile[] }): Promise<AttachmentView[]> {
    const files = checkedFiles(input.files);
    const createdAt = deps.now();
    const added = await deps.db.transaction(async (tx) => {
      // The document's row is locked, so that additions take turns with each other and with the
      // step that moves it on to transmission.
      const invoice = await lockInvoice(tx, input.scope, input.issuanceKey);
      if (invoice === null) throw notFound();
      checkOpen(invoice.status);
      const held = await store.countAttachments(tx, input.scope, input.issuanceKey);
      if (held + files.length > ATTACHMENTS_PER_INVOICE_MAX) {
        throw new ApiError('TAX_INVOICE_ATTACHMENT_LIMIT', `The tax invoice has ${held} ` +
          `attachment(s); ${files.length} more would exceed ${ATTACHMENTS_PER_INVOICE_MAX}.`);
      }
      return store.insertAttachments(tx, files.map((file) => ({
        id: newId('taxInvoiceAttachment'), issuanceKey: input.issuanceKey,
        accountId: input.scope.accountId, environment: input.scope.environment,
        fileName: file.fileName, contentType: file.contentType,
        sizeBytes: file.content.length,
        sha256: createHash('sha256').update(file.content).digest('hex'),
        content: file.content, createdAt })));
    });
    return added.map(viewOf);
  }

  async function list(input: { scope: Scope; issuanceKey: string }):
    Promise<AttachmentView[]> {
    const invoice = await findInvoice(deps.db, input.scope, input.issuanceKey);
    if (invoice === null) throw notFound();
    return (await store.listAttachments(deps.db, input.scope, input.issuanceKey)).map(viewOf);
  }

  async function download(input: { scope: Scope; issuanceKey: string; attachmentId: string }):
    Promise<{ fileName: string; contentType: string; content: Buffer }> {
    const row = await store.findAttachment(deps.db, input.scope, input.issuanceKey,
      input.attachmentId);
    if (row === null) {
      throw new ApiError('NOT_FOUND', 'The tax invoice has no attachment with this id.');
    }
    return { fileName: row.fileName, contentType: row.contentType, content: row.content };
  }

  async function remove(input: { scope: Scope; issuanceKey: string; attachmentId: string }):
    Promise<void> {
    await deps.db.transaction(async (tx) => {
      const invoice = await lockInvoice(tx, input.scope, input.issuanceKey);
      if (invoice === null) throw notFound();
      const found = await store.findAttachment(tx, input.scope, input.issuanceKey,
        input.attachmentId);
      if (found === null) {
        throw new ApiError('NOT_FOUND', 'The tax invoice has no attachment with this id.');
      }
      checkOpen(invoice.status);
      await store.deleteAttachment(tx, input.scope, input.issuanceKey, input.attachmentId);
    });
  }

  // What the recipient's mail carries after the PDF: every attachment, as it was at
  // transmission.
  async function forMail(issuanceKey: string): Promise<MailAttachment[]> {
    return (await store.attachmentsForMail(deps.db, issuanceKey)).map((row) => ({
      filename: row.fileName, contentType: row.contentType, content: row.content }));
  }

  return { add, list, download, remove, forMail };
}

export type AttachmentService = ReturnType<typeof createAttachmentService>;
