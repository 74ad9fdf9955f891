import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createCanvas } from "@napi-rs/canvas";
import {
  beginText,
  endText,
  moveText,
  PDFDocument,
  type PDFFont,
  PDFHexString,
  PDFName,
  type PDFPage,
  rgb,
  StandardFonts,
  setFontAndSize,
  showText,
} from "pdf-lib";
import sharp from "sharp";
import { prepareZXingModule, writeBarcode } from "zxing-wasm/writer";

/**
 * Fixtures for the PDF and image backend tests: PDFs drawn with pdf-lib in the standard fonts, pages of text
 * rendered as images (what a scanner would give), QR codes and a chart-like picture. Coordinates given to the
 * helpers are from the page's top left, as the document model's boxes are; pdf-lib's own origin is bottom left.
 */

export interface PdfFonts {
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
}

/** A new PDF with Helvetica, Helvetica-Bold and Courier embedded. */
export async function newPdf(): Promise<{ pdf: PDFDocument; fonts: PdfFonts }> {
  const pdf = await PDFDocument.create();
  const fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    mono: await pdf.embedFont(StandardFonts.Courier),
  };
  return { pdf, fonts };
}

/** The first glyph code of typeThreeLine's font: codes 14 and up map to control characters, never to spaces. */
const TYPE3_FIRST_CODE = 14;

/** How {@link typeThreeLine} codes its glyphs, for a font laid out as a given producer writes it. */
export interface TypeThreeCodes {
  /** What one glyph draws: a letter by default; `/fi|fl|[\s\S]/gu` gives ligatures glyphs of their own. */
  pieces?: RegExp;
  /** A piece's code; by default each distinct piece takes the next code from 14. */
  code?: (piece: string) => number;
  /** A code's glyph name in /Differences; `g14`, `g15`, … by default, names that say nothing. */
  name?: (code: number) => string;
}

/**
 * Writes `text` on one line with its top at `top`, in a Type3 font without ToUnicode: each glyph procedure draws
 * its piece in `font`, so the page shows the words while its text layer holds only glyph codes and their names
 * (by default names no reader can map, as some PDF producers write). One such line a page: the font is the
 * page's `/T3`.
 */
export function typeThreeLine(
  pdf: PDFDocument,
  page: PDFPage,
  text: string,
  font: PDFFont,
  opts: { x: number; top: number; size: number },
  codes: TypeThreeCodes = {},
): void {
  const ctx = pdf.context;
  const pieces = text.match(codes.pieces ?? /[\s\S]/gu) ?? [];
  const distinct = [...new Set(pieces)];
  const codeOf = (piece: string) => codes.code?.(piece) ?? TYPE3_FIRST_CODE + distinct.indexOf(piece);
  const nameOf = codes.name ?? ((code: number) => `g${code}`);
  const glyphCodes = distinct.map(codeOf);
  const first = Math.min(...glyphCodes);
  const last = Math.max(...glyphCodes);
  const widths = Array.from({ length: last - first + 1 }, () => 0);
  const charProcs = ctx.obj({});
  distinct.forEach((piece, i) => {
    const width = font.widthOfTextAtSize(piece, 1000);
    widths[glyphCodes[i] - first] = width;
    const proc = `${width} 0 d0 BT /L 1000 Tf 0 0 Td ${font.encodeText(piece).toString()} Tj ET`;
    charProcs.set(PDFName.of(nameOf(glyphCodes[i])), ctx.register(ctx.flateStream(proc)));
  });
  const differences = [...glyphCodes].sort((a, b) => a - b).flatMap((c) => [c, PDFName.of(nameOf(c))]);
  const type3 = ctx.register(
    ctx.obj({
      Type: "Font",
      Subtype: "Type3",
      FontBBox: [0, -250, 1000, 900],
      FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
      CharProcs: charProcs,
      Encoding: ctx.obj({ Type: "Encoding", Differences: differences }),
      FirstChar: first,
      LastChar: last,
      Widths: widths,
      Resources: ctx.obj({ Font: ctx.obj({ L: font.ref }) }),
    }),
  );
  const name = "T3";
  page.node.setFontDictionary(PDFName.of(name), type3);
  const hex = pieces.map((piece) => codeOf(piece).toString(16).padStart(2, "0")).join("");
  page.pushOperators(
    beginText(),
    setFontAndSize(name, opts.size),
    moveText(opts.x, PAGE_HEIGHT - opts.top - opts.size),
    showText(PDFHexString.of(hex)),
    endText(),
  );
}

/** Letter size, points. */
export const PAGE_WIDTH = 612;
export const PAGE_HEIGHT = 792;

/** Writes one line of text with its top at `top` (from the page's top): the baseline sits one size below. */
export function drawLine(
  page: PDFPage,
  text: string,
  x: number,
  top: number,
  font: PDFFont,
  size: number,
): void {
  page.drawText(text, { x, y: page.getHeight() - top - size * 0.8, font, size, color: rgb(0, 0, 0) });
}

/** `text` broken into lines no wider than `width` points in `font` at `size`. */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (line !== "" && font.widthOfTextAtSize(candidate, size) > width) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * A paragraph wrapped within `width` from (x, top), lines `size * 1.25` apart. Returns where the next block may
 * start: one line's height below the paragraph.
 */
export function drawParagraph(
  page: PDFPage,
  text: string,
  options: { x: number; top: number; width: number; font: PDFFont; size: number },
): { lines: string[]; next: number } {
  const { x, width, font, size } = options;
  const lines = wrapText(text, font, size, width);
  let top = options.top;
  for (const line of lines) {
    drawLine(page, line, x, top, font, size);
    top += size * 1.25;
  }
  return { lines, next: top + size };
}

/** A ruled grid of `rows` rows of `rowHeight` and columns of `widths`, its top left at (x, top). */
export function drawGrid(
  page: PDFPage,
  options: { x: number; top: number; widths: readonly number[]; rows: number; rowHeight: number },
): void {
  const { x, top, widths, rows, rowHeight } = options;
  const h = page.getHeight();
  const total = widths.reduce((a, b) => a + b, 0);
  const black = rgb(0, 0, 0);
  for (let r = 0; r <= rows; r++) {
    const y = h - top - r * rowHeight;
    page.drawLine({ start: { x, y }, end: { x: x + total, y }, thickness: 0.8, color: black });
  }
  let cx = x;
  for (let c = 0; c <= widths.length; c++) {
    page.drawLine({
      start: { x: cx, y: h - top },
      end: { x: cx, y: h - top - rows * rowHeight },
      thickness: 0.8,
      color: black,
    });
    cx += widths[c] ?? 0;
  }
}

/** Writes a table's rows into a grid drawn by drawGrid with the same options; the header row in bold. */
export function drawGridText(
  page: PDFPage,
  rows: readonly (readonly string[])[],
  options: {
    x: number;
    top: number;
    widths: readonly number[];
    rowHeight: number;
    fonts: PdfFonts;
    header: boolean;
  },
): void {
  const { x, top, widths, rowHeight, fonts, header } = options;
  const size = 10;
  rows.forEach((row, r) => {
    let cx = x;
    row.forEach((cell, c) => {
      const font = header && r === 0 ? fonts.bold : fonts.regular;
      drawLine(page, cell, cx + 5, top + r * rowHeight + (rowHeight - size) / 2, font, size);
      cx += widths[c];
    });
  });
}

/** pdf-lib's bytes of the document, as a plain Uint8Array. */
export async function pdfBytes(pdf: PDFDocument): Promise<Uint8Array> {
  return new Uint8Array(await pdf.save());
}

/**
 * Lines of text rendered black on white as a grayscale PNG whose header carries its resolution: a clean scan.
 * The page is `widthIn` × `heightIn` inches at `dpi`; lines start one inch from the left and top, `fontPt` points
 * high, 1.5 lines apart. `turn` turns the finished page clockwise by 90, 180 or 270 degrees.
 */
export async function textImage(
  lines: readonly string[],
  options: {
    fontPt?: number;
    dpi?: number;
    widthIn?: number;
    heightIn?: number;
    font?: string;
    turn?: 0 | 90 | 180 | 270;
    format?: "png" | "jpeg";
  } = {},
): Promise<Buffer> {
  const { fontPt = 14, dpi = 300, widthIn = 8.5, heightIn = 3, font = "DejaVu Sans", turn = 0 } = options;
  const width = Math.round(widthIn * dpi);
  const height = Math.round(heightIn * dpi);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, width, height);
  context.fillStyle = "#000000";
  const fontPx = (fontPt * dpi) / 72;
  context.font = `${fontPx}px "${font}"`;
  lines.forEach((line, i) => {
    context.fillText(line, dpi, dpi * 0.75 + fontPx + i * fontPx * 1.5);
  });
  let image = sharp(canvas.toBuffer("image/png")).flatten({ background: "#ffffff" }).greyscale();
  if (turn !== 0) image = image.rotate(turn);
  image = image.withDensity(dpi);
  return options.format === "jpeg" ? image.jpeg({ quality: 90 }).toBuffer() : image.png().toBuffer();
}

let writerReady: Promise<unknown> | null = null;

/** zxing-wasm's writer, loaded from node_modules (never fetched from a CDN). */
function loadWriter(): Promise<unknown> {
  writerReady ??= (async () => {
    const bytes = await readFile(fileURLToPath(import.meta.resolve("zxing-wasm/writer/zxing_writer.wasm")));
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    await prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  })();
  return writerReady;
}

/** A QR code of `text` as a PNG: `modulePx` pixels a module, with a four-module white quiet zone. */
export async function qrCodePng(text: string, modulePx = 8): Promise<Buffer> {
  await loadWriter();
  const written = await writeBarcode(text, { format: "QRCode", addQuietZones: false });
  if (written.error !== "") throw new Error(`QR code of ${JSON.stringify(text)}: ${written.error}`);
  const { data, width, height } = written.symbol;
  const quiet = 4 * modulePx;
  return sharp(Buffer.from(data), { raw: { width, height, channels: 1 } })
    .resize(width * modulePx, height * modulePx, { kernel: "nearest" })
    .extend({ top: quiet, bottom: quiet, left: quiet, right: quiet, background: "#ffffff" })
    .png()
    .toBuffer();
}

/** A bar chart without any text, `width` × `height` pixels: axes, four coloured bars, a trend line. */
export async function chartPng(width = 200, height = 150): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#f4f4f4";
  context.fillRect(0, 0, width, height);
  context.strokeStyle = "#000000";
  context.lineWidth = 2;
  context.beginPath();
  context.moveTo(20, 10);
  context.lineTo(20, height - 20);
  context.lineTo(width - 10, height - 20);
  context.stroke();
  const colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"];
  const values = [0.4, 0.75, 0.55, 0.9];
  const slot = (width - 40) / values.length;
  values.forEach((value, i) => {
    context.fillStyle = colours[i];
    const barHeight = value * (height - 40);
    context.fillRect(30 + i * slot, height - 20 - barHeight, slot * 0.6, barHeight);
  });
  context.strokeStyle = "#555555";
  context.beginPath();
  context.moveTo(30, height - 50);
  context.bezierCurveTo(80, height - 120, 120, 40, width - 20, 20);
  context.stroke();
  return canvas.toBuffer("image/png");
}
