import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList, PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";
import sharp, { type Sharp } from "sharp";
import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import type { PageGraphics } from "./graphics.ts";
import { decodeImage, type JpegImage, jpegImage } from "./worker-patch.ts";

/**
 * Text inside the images of a digital page (a slide's banner, a title set in a picture, a full-page background
 * with words in it): a cheap raster test finds, per image, the rows of text-like ink that no text-layer word
 * covers, so that OCR reads only those rows and a photo costs no OCR.
 *
 * Each image is taken as drawn (its own pixels at its drawn size, low resolution, gray), ink is what stands out
 * from its neighbourhood (dark on light or light on dark), and ink connected components of type size that line
 * up several in a row, with similar heights on a common band and clearly apart from their ground, are a row of
 * text.
 */

/** Resolution of the test: 10 pt type is 14 px high, enough to see letters, and a Letter page is under 1 Mpx. */
const TEST_DPI = 100;
const MAX_TEST_PIXELS = 2_500_000;
/**
 * Images shorter than this (points, their longer side) hold no text worth reading; nor do images thinner than
 * MIN_IMAGE_THICKNESS, under a line of the smallest type read. A one-line label set as an image (a sidebar's
 * "Target price:", a word turned into an image mask by the producer) is as thin as its type.
 */
const MIN_IMAGE_SIDE = 24;
const MIN_IMAGE_THICKNESS = 6;
/** Half the side of the neighbourhood a pixel is compared with, and by how much it must differ to be ink. */
const NEIGHBOURHOOD = 12;
const CONTRAST = 40;
/** Heights of a letter's ink in pixels at TEST_DPI: 4.5 pt to about 80 pt type. */
const LETTER_HEIGHT = { min: 6, max: 110 };
/** How clearly a row's ink must stand apart from its ground (separation()). */
const MIN_SEPARATION = 1.45;
/** A row of text has at least this many letters. */
const LETTERS_PER_ROW = 4;

/** A connected component of ink, in pixels of the test raster. */
export interface InkBlob {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  pixels: number;
}

/**
 * The rows of text-like ink of a gray raster, in its pixels. `within` limits ink to those boxes (the images);
 * `covered` boxes (text-layer words, drawn over the image) are no ink.
 */
export function textRows(
  gray: Uint8Array,
  width: number,
  height: number,
  within: readonly Box[],
  covered: readonly Box[],
): Box[] {
  const mean = localMean(gray, width, height, NEIGHBOURHOOD);
  const allowed = new Uint8Array(width * height);
  paint(allowed, width, height, within, 1);
  paint(allowed, width, height, covered, 0);
  const rows: Box[] = [];
  // Dark ink on a light ground, then light ink on a dark ground (white titles on a coloured banner).
  const dark = new Uint8Array(width * height);
  const light = new Uint8Array(width * height);
  for (let i = 0; i < dark.length; i++) {
    if (!allowed[i]) continue;
    const contrast = gray[i] - mean[i];
    if (contrast < -CONTRAST) dark[i] = 1;
    else if (contrast > CONTRAST) light[i] = 1;
  }
  for (const ink of [dark, light]) {
    for (const row of letterRows(components(ink, width, height).filter(letterLike))) {
      const score = separation(gray, ink, allowed, width, row);
      if (score >= MIN_SEPARATION) rows.push(row);
    }
  }
  return mergedOverlapping(rows);
}

/**
 * Rows that overlap as one: the ground around light type on a dark ground is darker than its neighbourhood, so
 * the same line is found by both polarities.
 */
function mergedOverlapping(rows: readonly Box[]): Box[] {
  const merged: Box[] = [];
  for (const row of rows) {
    let b = row;
    for (let i = merged.length - 1; i >= 0; i--) {
      if (box.intersection(merged[i], b) > 0) {
        b = box.union([merged[i], b]);
        merged.splice(i, 1);
      }
    }
    merged.push(b);
  }
  return merged;
}

/**
 * How clearly a row's ink stands apart from its ground: the distance between their mean grays over the sum of
 * their spreads. Type is one colour on one ground (high); a photo's rows of windows or leaves are shades among
 * shades (low).
 */
function separation(gray: Uint8Array, ink: Uint8Array, allowed: Uint8Array, width: number, row: Box): number {
  const sums = [0, 0];
  const squares = [0, 0];
  const counts = [0, 0];
  for (let y = row.y1; y < row.y2; y++) {
    for (let x = row.x1; x < row.x2; x++) {
      const i = y * width + x;
      if (!allowed[i]) continue;
      const k = ink[i];
      sums[k] += gray[i];
      squares[k] += gray[i] * gray[i];
      counts[k]++;
    }
  }
  if (counts[0] === 0 || counts[1] === 0) return 0;
  const spread = (k: number) => Math.sqrt(Math.max(0, squares[k] / counts[k] - (sums[k] / counts[k]) ** 2));
  return Math.abs(sums[1] / counts[1] - sums[0] / counts[0]) / (spread(0) + spread(1) + 1);
}

/**
 * The mean gray of each pixel's (2r+1)² neighbourhood (cut by the raster's edges), from a summed-area table. Sums
 * fit 32 bits: a test raster has at most MAX_TEST_PIXELS of at most 255 each.
 */
function localMean(gray: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const stride = width + 1;
  const sums = new Int32Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    const above = y * stride + 1;
    const here = above + stride;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      row += gray[i];
      sums[here + x] = sums[above + x] + row;
    }
  }
  const mean = new Uint8Array(width * height);
  // Columns whose neighbourhood the left and right edges do not cut: [r, width - r - 1].
  const inner1 = Math.min(width, r);
  const inner2 = Math.max(inner1, width - r - 1);
  for (let y = 0; y < height; y++) {
    const top = Math.max(0, y - r) * stride;
    const bottom = Math.min(height, y + r + 1) * stride;
    const rows = (bottom - top) / stride;
    const out = y * width;
    const at = (x: number, left: number, right: number) => {
      const sum = sums[bottom + right] - sums[top + right] - sums[bottom + left] + sums[top + left];
      mean[out + x] = sum / (rows * (right - left));
    };
    for (let x = 0; x < inner1; x++) at(x, 0, Math.min(width, x + r + 1));
    const area = rows * (2 * r + 1);
    for (let x = inner1; x < inner2; x++) {
      const left = x - r;
      const right = x + r + 1;
      mean[out + x] =
        (sums[bottom + right] - sums[top + right] - sums[bottom + left] + sums[top + left]) / area;
    }
    for (let x = inner2; x < width; x++) at(x, Math.max(0, x - r), Math.min(width, x + r + 1));
  }
  return mean;
}

function paint(mask: Uint8Array, width: number, height: number, boxes: readonly Box[], value: number): void {
  for (const b of boxes) {
    const x1 = Math.max(0, Math.floor(b.x1));
    const x2 = Math.min(width, Math.ceil(b.x2));
    if (x2 <= x1) continue;
    for (let y = Math.max(0, Math.floor(b.y1)); y < Math.min(height, Math.ceil(b.y2)); y++) {
      mask.fill(value, y * width + x1, y * width + x2);
    }
  }
}

/**
 * 8-connected components of a binary mask, in the order their first pixel comes in raster order: each row's runs
 * of set pixels are joined (union-find) with the runs of the row above that touch them, diagonally too.
 */
export function components(mask: Uint8Array, width: number, height: number): InkBlob[] {
  // Runs as parallel arrays: row, first column, column past the end; `parent` for the union-find over runs.
  const runY: number[] = [];
  const runX1: number[] = [];
  const runX2: number[] = [];
  const parent: number[] = [];
  const find = (a: number): number => {
    let r = a;
    while (parent[r] !== r) r = parent[r];
    while (parent[a] !== r) {
      const next = parent[a];
      parent[a] = r;
      a = next;
    }
    return r;
  };
  let above = 0; // the first run of the row above
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const first = runY.length;
    let k = above;
    for (let x = 0; x < width; x++) {
      if (!mask[row + x]) continue;
      const x1 = x;
      while (x < width && mask[row + x]) x++;
      const run = runY.length;
      runY.push(y);
      runX1.push(x1);
      runX2.push(x);
      parent.push(run);
      // Runs above touching [x1 - 1, x]: they end after x1 - 1 and start before x + 1.
      while (k < first && runX2[k] < x1) k++;
      for (let j = k; j < first && runX1[j] <= x; j++) {
        const a = find(j);
        const b = find(run);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
    above = first;
  }
  const blobs: InkBlob[] = [];
  const slot = new Int32Array(parent.length).fill(-1);
  for (let run = 0; run < parent.length; run++) {
    const root = find(run);
    const y = runY[run];
    const x1 = runX1[run];
    const x2 = runX2[run];
    const k = slot[root];
    if (k < 0) {
      slot[root] = blobs.length;
      blobs.push({ x1, y1: y, x2, y2: y + 1, pixels: x2 - x1 });
      continue;
    }
    const blob = blobs[k];
    if (x1 < blob.x1) blob.x1 = x1;
    if (x2 > blob.x2) blob.x2 = x2;
    blob.y2 = y + 1;
    blob.pixels += x2 - x1;
  }
  return blobs;
}

/**
 * Ink the size and shape of a letter (or of a few touching letters): type height, not much wider than a
 * syllable, and strokes rather than a filled patch, unless narrow (an l, a 1).
 */
function letterLike(blob: InkBlob): boolean {
  const w = blob.x2 - blob.x1;
  const h = blob.y2 - blob.y1;
  if (h < LETTER_HEIGHT.min || h > LETTER_HEIGHT.max || w > h * 3) return false;
  const fill = blob.pixels / (w * h);
  return fill >= 0.08 && (fill <= 0.85 || w <= h * 0.45);
}

/**
 * Letters that follow each other along a line (overlapping vertically by most of the smaller one, gaps under
 * the taller one's height), with mostly one height and a common baseline band: rows of text, as boxes.
 */
function letterRows(letters: InkBlob[]): Box[] {
  const sorted = [...letters].sort((a, b) => a.x1 - b.x1);
  const rows: InkBlob[][] = [];
  for (const letter of sorted) {
    const h = letter.y2 - letter.y1;
    const row = rows.find((r) => {
      const last = r[r.length - 1];
      const lh = last.y2 - last.y1;
      const overlap = Math.min(last.y2, letter.y2) - Math.max(last.y1, letter.y1);
      return (
        overlap >= Math.min(h, lh) * 0.6 &&
        letter.x1 - last.x2 <= Math.max(h, lh) * 1.2 &&
        Math.max(h, lh) <= Math.min(h, lh) * 2
      );
    });
    if (row) row.push(letter);
    else rows.push([letter]);
  }
  return rows.filter(textRow).map((row) => box.union(row));
}

function textRow(row: InkBlob[]): boolean {
  if (row.length < LETTERS_PER_ROW) return false;
  const heights = row.map((b) => b.y2 - b.y1).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)];
  const even = heights.filter((h) => h >= median * 0.55 && h <= median * 1.6).length;
  const bottoms = row.map((b) => b.y2).sort((a, b) => a - b);
  const baseline = bottoms[Math.floor(bottoms.length / 2)];
  const onBaseline = bottoms.filter((y) => Math.abs(y - baseline) <= Math.max(2, median * 0.2)).length;
  return even >= row.length * 0.7 && onBaseline >= row.length * 0.6;
}

/**
 * On a page with this many text-layer characters or more, an image showing more rows of text than
 * MAX_ROWS_ON_TEXT_PAGE is a diagram or a screenshot of a program (labels of boxes, menus, tree views, a chart's
 * legend): it stays a figure, as reference parsers keep it, and costs no OCR, unless its text is set in lines
 * (readRows). Banners, titles and labels are a few rows. On a sparse page (a slide, a cover) every row is read.
 */
const SPARSE_PAGE_CHARS = 300;
const MAX_ROWS_ON_TEXT_PAGE = 6;
/**
 * A picture whose text is set in lines (a slide's screenshot, a scanned notice or letter pasted into a report)
 * shows at least LINES_TO_READ rows wider than LINE_WIDTH of it: its text is what the picture says, and is read
 * however many rows it has. A diagram's or a program window's labels are short, each a small part of its width.
 */
const LINES_TO_READ = 3;
const LINE_WIDTH = 1 / 3;

/** Whether a picture's rows of text are to be read: few, or set in lines across it. */
function readRows(rows: readonly Box[], picture: Box, maxRows: number): boolean {
  if (rows.length <= maxRows) return true;
  const lines = rows.filter((row) => box.width(row) >= box.width(picture) * LINE_WIDTH).length;
  return lines >= LINES_TO_READ;
}

/** How long to wait for pdf.js to hand over an image once asked to decode it (its decode is asynchronous). */
const IMAGE_WAIT_MS = 10_000;

/** An image's pixels as pdf.js decoded them: 1-bit gray (packed rows), RGB or RGBA. */
interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

export interface ImageTextOptions {
  /** False: every image decoded by pdf.js, JPEGs too (tests compare both ways). Default true. */
  nativeJpeg?: boolean;
}

/**
 * The regions of the page, in points, where its images show rows of text that no text-layer run covers. Reads
 * each image's own pixels as pdf.js decoded them for the operator list (no rendering), scaled to the size it is
 * drawn at; images drawn turned, repeated or as stencil masks are left out.
 *
 * @param runs the page's readable text-layer runs, in model coordinates.
 */
export async function imageTextRegions(
  page: PDFPageProxy,
  ops: PDFOperatorList,
  graphics: Pick<PageGraphics, "images" | "imageDraws">,
  runs: readonly TextRun[],
  size: { width: number; height: number },
  options: ImageTextOptions = {},
): Promise<Box[]> {
  const found = new Map<number, Box[]>();
  const chars = runs.reduce((n, run) => n + run.text.trim().length, 0);
  const maxRows = chars < SPARSE_PAGE_CHARS ? Number.POSITIVE_INFINITY : MAX_ROWS_ON_TEXT_PAGE;
  for (const [k, placement] of graphics.images.entries()) {
    const draw = graphics.imageDraws[k];
    const b = placement.box;
    const seen = {
      x1: Math.max(0, b.x1),
      y1: Math.max(0, b.y1),
      x2: Math.min(size.width, b.x2),
      y2: Math.min(size.height, b.y2),
    };
    const sides = [box.width(seen), box.height(seen)];
    if (!draw || Math.max(...sides) < MIN_IMAGE_SIDE || Math.min(...sides) < MIN_IMAGE_THICKNESS) continue;
    const [a, bm, c, d] = draw.transform;
    // Upright or mirrored only: the image's axes along the page's.
    if (Math.abs(bm) > 1e-3 * Math.abs(a) || Math.abs(c) > 1e-3 * Math.abs(d)) continue;
    const scale = TEST_DPI / 72;
    let widthPx = Math.max(1, Math.round(box.width(b) * scale));
    let heightPx = Math.max(1, Math.round(box.height(b) * scale));
    const shrink = Math.min(1, Math.sqrt(MAX_TEST_PIXELS / (widthPx * heightPx)));
    widthPx = Math.max(1, Math.round(widthPx * shrink));
    heightPx = Math.max(1, Math.round(heightPx * shrink));
    const flips = { flipX: a < 0, flipY: d > 0 };
    const gray = await imageGray(page, ops, draw.op, { width: widthPx, height: heightPx, ...flips }, options);
    if (!gray) continue;
    const sx = widthPx / box.width(b);
    const sy = heightPx / box.height(b);
    const toPx = (r: Box): Box => ({
      x1: (r.x1 - b.x1) * sx - 2,
      y1: (r.y1 - b.y1) * sy - 2,
      x2: (r.x2 - b.x1) * sx + 2,
      y2: (r.y2 - b.y1) * sy + 2,
    });
    const within = [toPx(seen)];
    const covered = runs.filter((run) => box.intersection(run.box, b) > 0).map((run) => toPx(run.box));
    const rows = textRows(gray, widthPx, heightPx, within, covered).map((row) => ({
      x1: b.x1 + row.x1 / sx,
      y1: b.y1 + row.y1 / sy,
      x2: b.x1 + row.x2 / sx,
      y2: b.y1 + row.y2 / sy,
    }));
    if (rows.length > 0) found.set(k, rows);
  }
  // Images that touch are one picture (producers cut large images into strips): its rows are counted together.
  const regions: Box[] = [];
  for (const picture of touchingGroups(graphics.images.map((image) => image.box))) {
    const rows = picture.flatMap((k) => found.get(k) ?? []);
    const pictureBox = box.union(picture.map((k) => graphics.images[k].box));
    if (readRows(rows, pictureBox, maxRows)) regions.push(...rows);
  }
  return regions;
}

/** Indexes of boxes grouped by touching (within a point), transitively. */
function touchingGroups(boxes: readonly Box[]): number[][] {
  const group = boxes.map((_, i) => i);
  const root = (i: number): number => {
    let r = i;
    while (group[r] !== r) r = group[r];
    return r;
  };
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.x1 <= b.x2 + 1 && b.x1 <= a.x2 + 1 && a.y1 <= b.y2 + 1 && b.y1 <= a.y2 + 1)
        group[root(j)] = root(i);
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < boxes.length; i++) groups.set(root(i), [...(groups.get(root(i)) ?? []), i]);
  return [...groups.values()];
}

/** The size and turn of an image as the test takes it (grayAtSize). */
interface TestSize {
  width: number;
  height: number;
  flipX: boolean;
  flipY: boolean;
}

/**
 * The image a paint operator draws, in gray at the test's size, null for other kinds. A JPEG that sharp reads as
 * pdf.js would (worker-patch.ts, jpegImage) is decoded by sharp from its own bytes, shrunk on load: at the test's
 * 100 dpi a JPEG is mostly drawn several times smaller than it is stored, and libjpeg then decodes only a half,
 * quarter or eighth of each block, in gray. Any other image, or a JPEG sharp refuses (damaged: pdf.js is more
 * lenient), is decoded by pdf.js.
 *
 * The two decoders' pixels differ slightly (libjpeg smooths subsampled colour where pdf.js repeats it: a mean
 * difference under one gray level, more at colour edges), and so do full-size and shrunk-on-load decodes; over the
 * evaluation PDFs one row of the test changed: a 7 pt chart legend label whose letters are at the test's smallest
 * letter height, found from pdf.js's pixels and not from libjpeg's, at any decode size.
 */
async function imageGray(
  page: PDFPageProxy,
  ops: PDFOperatorList,
  op: number,
  size: TestSize,
  options: ImageTextOptions,
): Promise<Uint8Array | null> {
  const arg = ops.argsArray[op]?.[0];
  if (options.nativeJpeg !== false && ops.fnArray[op] === OPS.paintImageXObject && typeof arg === "string") {
    const objs = arg.startsWith("g_") ? page.commonObjs : page.objs;
    const jpeg = objs.has(arg) ? null : await jpegImage(page, arg);
    const gray = jpeg ? await jpegGrayAtSize(jpeg, size) : null;
    if (gray) return gray;
  }
  const image = await decodedImage(page, ops, op);
  return image ? grayAtSize(image, size) : null;
}

/** A JPEG's bytes decoded by sharp in gray at the test's size; null when sharp cannot read it as pdf.js would. */
async function jpegGrayAtSize(jpeg: JpegImage, size: TestSize): Promise<Uint8Array | null> {
  try {
    // sharp's default failOn ("warning") refuses a damaged JPEG rather than guess at it.
    const input = sharp(jpeg.bytes);
    const { width, height, channels } = await input.metadata();
    if (width !== jpeg.width || height !== jpeg.height || channels !== jpeg.components) return null;
    return await testRaster(input, size);
  } catch {
    return null;
  }
}

/**
 * The decoded image a paint operator draws, null for other kinds. The operator list pass keeps images undecoded
 * (worker-patch.ts): this asks pdf.js to decode this one, then waits for its pixels.
 */
async function decodedImage(
  page: PDFPageProxy,
  ops: PDFOperatorList,
  op: number,
): Promise<DecodedImage | null> {
  const fn = ops.fnArray[op];
  const arg = ops.argsArray[op]?.[0];
  let image: unknown;
  if (fn === OPS.paintInlineImageXObject) image = arg;
  else if (fn === OPS.paintImageXObject && typeof arg === "string") {
    const objs = arg.startsWith("g_") ? page.commonObjs : page.objs;
    if (!objs.has(arg)) await decodeImage(page, arg);
    image = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), IMAGE_WAIT_MS);
      objs.get(arg, (value: unknown) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  }
  const decoded = image as Partial<DecodedImage> | null;
  if (!decoded?.data || !decoded.width || !decoded.height || !decoded.kind) return null;
  return decoded as DecodedImage;
}

/** The image in gray, on white where it is transparent, scaled to `width` × `height` and turned as drawn. */
async function grayAtSize(image: DecodedImage, size: TestSize): Promise<Uint8Array | null> {
  const channels = image.kind === 1 ? 1 : image.kind === 2 ? 3 : image.kind === 3 ? 4 : 0;
  if (channels === 0) return null;
  let pixels = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  if (image.kind === 1) pixels = unpackBits(pixels, image.width, image.height);
  if (pixels.length < image.width * image.height * channels) return null;
  let pipeline = sharp(pixels, { raw: { width: image.width, height: image.height, channels } });
  if (channels === 4) pipeline = pipeline.flatten({ background: "#ffffff" });
  return testRaster(pipeline, size);
}

/** An image in sharp, in gray, scaled to the test's size and turned as drawn: one byte a pixel. */
async function testRaster(image: Sharp, size: TestSize): Promise<Uint8Array | null> {
  let pipeline = image.greyscale().resize(size.width, size.height, { fit: "fill" });
  if (size.flipY) pipeline = pipeline.flip();
  if (size.flipX) pipeline = pipeline.flop();
  const { data, info } = await pipeline.extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  if (info.width !== size.width || info.height !== size.height) return null;
  return new Uint8Array(data.buffer, data.byteOffset, size.width * size.height);
}

/** Rows of 1-bit pixels (set: white) as one byte per pixel. */
function unpackBits(packed: Buffer, width: number, height: number): Buffer {
  const stride = Math.ceil(width / 8);
  const out = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      out[y * width + x] = (packed[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  }
  return out;
}
