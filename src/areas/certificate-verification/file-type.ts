// The kinds of file a certificate may come as, told by their first bytes (a declared content type
// is only a hint: browsers and phones send `application/octet-stream` often enough), and the
// limits every upload is held to (docs/certificate-verification.md § Files).

export type FileKind = 'PDF' | 'PNG' | 'JPEG';

// A Hometax PDF is under 200 KB and a phone photo a few MB.
export const CERTIFICATE_FILE_BYTES_MAX = 10 * 1024 * 1024;
// Decoded pixels of an image; 40 megapixels holds a 7000 × 5700 photo.
export const IMAGE_PIXELS_MAX = 40_000_000;
// How much longer one side of an image may be than the other: an A4 page is 1.41, a photo of
// one taken from an angle a little more.
export const IMAGE_SIDE_RATIO_MAX = 4;
// What a PDF's streams may inflate to in total: a certificate's are well under 5 MB.
export const PDF_INFLATED_BYTES_MAX = 32 * 1024 * 1024;
// A certificate is one page, two with an attachment; later pages are not read.
export const PDF_PAGES_READ = 2;
// A certificate's text layer is read in well under a second.
export const PDF_READ_DEADLINE_MS = 10_000;
// What the process's memory may grow by while a PDF is read: a certificate needs some 50 MB.
export const PDF_READ_MEMORY_MAX_BYTES = 256 * 1024 * 1024;

const SIGNATURES: ReadonlyArray<[FileKind, number[]]> = [
  ['PDF', [0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  ['PNG', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['JPEG', [0xff, 0xd8, 0xff]],
];

export function fileKindOf(bytes: Buffer): FileKind | null {
  for (const [kind, signature] of SIGNATURES) {
    if (signature.every((byte, index) => bytes[index] === byte)) return kind;
  }
  return null;
}
