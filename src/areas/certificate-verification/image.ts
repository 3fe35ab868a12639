import type Sharp from 'sharp';
import { IMAGE_PIXELS_MAX, IMAGE_SIDE_RATIO_MAX } from './file-type.ts';

// Prepares a PNG or JPEG for OCR with sharp (libvips): refuses what cannot be decoded or is
// larger than the pixel limit before decoding it, turns the page upright by its EXIF orientation,
// makes it grey, brings its width to what Tesseract reads best (a phone photo shrinks, a small
// scan grows) and, unless asked not to, stretches its contrast. The page stays grey: Tesseract's
// LSTM recognizer reads grey levels, and it separates ink from paper for its layout analysis
// itself (Otsu). A fixed threshold of our own made the small strokes of a photo's Hangul bolder
// or broke them (음 read as 옴, 른 as 론), and a blur before it softened what the recognizer reads.

export class ImageRefused extends Error {}

// sharp (libvips, some 20 MB resident) loads with the first image, not at every start.
let sharpModule: Promise<typeof Sharp> | null = null;
function loadSharp(): Promise<typeof Sharp> {
  sharpModule ??= import('sharp').then((module) => module.default).catch((error: unknown) => {
    sharpModule = null;
    throw error;
  });
  return sharpModule;
}

// Body text of an A4 certificate at this width is about 30 px high, Tesseract's sweet spot; a
// wider page was read less well and cost more.
const TARGET_WIDTH = 1_800;

export type Preparation = {
  // Whether the contrast is stretched: the darkest percent of the page becomes black and the
  // lightest white. Where ink covers less than that percent, the darkest grain of the paper is
  // what becomes black: the strokes grow bolder, which Tesseract reads best, unless the photo is
  // so noisy that its grain becomes specks that break the layout.
  stretch: boolean;
};

// Throws ImageRefused for an image whose header says it is too large or not shaped like a page,
// read from the header alone: nothing is decoded, so a refusal is immediate. A strip of one
// pixel by forty million is within the pixel limit, but brought to the OCR width it would be
// billions of pixels.
export async function checkImageHeader(image: Buffer): Promise<void> {
  const sharp = await loadSharp();
  let metadata;
  try {
    metadata = await sharp(image, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRefused('The image could not be decoded.');
  }
  const { width = 0, height = 0 } = metadata;
  if (width < 1 || height < 1) throw new ImageRefused('The image could not be decoded.');
  if (width * height > IMAGE_PIXELS_MAX) {
    throw new ImageRefused(`The image has more than ${IMAGE_PIXELS_MAX} pixels.`);
  }
  if (Math.max(width, height) > IMAGE_SIDE_RATIO_MAX * Math.min(width, height)) {
    throw new ImageRefused(`The image is ${width} × ${height} pixels: one side is more than ` +
      `${IMAGE_SIDE_RATIO_MAX} times the other, which no page is.`);
  }
}

export async function prepareForOcr(image: Buffer, options: Preparation = { stretch: true }):
Promise<Buffer> {
  await checkImageHeader(image);
  const sharp = await loadSharp();
  try {
    const upright = sharp(image, { limitInputPixels: IMAGE_PIXELS_MAX, failOn: 'truncated' })
      .rotate();
    const grey = upright.grayscale().resize({ width: TARGET_WIDTH, kernel: 'lanczos3' });
    return await (options.stretch ? grey.normalise() : grey)
      // The blank margins and the empty lower half of the page cost OCR time and give nothing.
      .trim({ threshold: 50 })
      .png({ compressionLevel: 1 })
      .toBuffer();
  } catch {
    throw new ImageRefused('The image could not be decoded.');
  }
}

// The page turned by a quarter or half turn, for a photo taken sideways or upside down.
export async function turned(png: Buffer, degrees: 90 | 180 | 270): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(png).rotate(degrees).png({ compressionLevel: 1 }).toBuffer();
}

// Margin of white kept around a number's words: Tesseract reads a line best with some paper
// around it, and a word's box can clip a digit's edge.
const REGION_MARGIN = 12;

// The region of the page holding the given word boxes, with a white margin, as a PNG; null when
// there are no boxes.
export async function numberRegion(png: Buffer, boxes: { x0: number; y0: number; x1: number;
  y1: number }[]): Promise<Buffer | null> {
  if (boxes.length === 0) return null;
  const sharp = await loadSharp();
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const left = Math.max(0, Math.min(...boxes.map((box) => box.x0)) - REGION_MARGIN);
  const top = Math.max(0, Math.min(...boxes.map((box) => box.y0)) - REGION_MARGIN);
  const right = Math.min(width, Math.max(...boxes.map((box) => box.x1)) + REGION_MARGIN);
  const bottom = Math.min(height, Math.max(...boxes.map((box) => box.y1)) + REGION_MARGIN);
  if (right - left < 2 || bottom - top < 2) return null;
  return sharp(png)
    .extract({ left, top, width: right - left, height: bottom - top })
    .extend({ top: REGION_MARGIN, bottom: REGION_MARGIN, left: REGION_MARGIN,
      right: REGION_MARGIN, background: '#ffffff' })
    .png({ compressionLevel: 1 })
    .toBuffer();
}
