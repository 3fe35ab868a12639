// The files a dashboard form posts (counterparty and invoice files, invoice attachments): the
// limits mount.ts reads them with, and what a page is given (PageContext.files).

// The largest file of counterparties or of invoices to upload; the pages that read such a file
// refuse a larger one.
export const UPLOAD_BYTES_MAX = 1024 * 1024;
// The largest file any page takes (a tax invoice's attachment) and the most files of one form
// (an invoice's attachments); a larger file reaches the page cut short and marked `truncated`,
// so the page can say so.
export const FILE_BYTES_MAX = 5 * 1024 * 1024;
export const FILES_MAX = 5;

// A file of a multipart form, as the page reads it, in the order sent.
export type UploadedFile = { field: string; buffer: Buffer; truncated: boolean;
  fileName: string };

// The first file of the form's field, if any.
export const fileOf = (files: readonly UploadedFile[], field: string) =>
  files.find((file) => file.field === field);
