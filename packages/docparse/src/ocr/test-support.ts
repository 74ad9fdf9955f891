import { type Canvas, createCanvas } from "@napi-rs/canvas";
import sharp from "sharp";
import { corpusPath } from "../test-corpus.ts";

/**
 * Fixtures for the OCR and image tests: the shared corpus, a clean page rendered from known text (the "clean
 * scan" OCR is measured on), and word recall against a reference text.
 */

/** A drawn page as a scanner gives it: white background, black and white, `dpi` recorded. */
export function scanPng(canvas: Canvas, dpi: number): Promise<Buffer> {
  return sharp(canvas.toBuffer("image/png"))
    .flatten({ background: "#ffffff" })
    .toColourspace("b-w")
    .withDensity(dpi)
    .png()
    .toBuffer();
}

export { NO_CORPUS } from "../test-corpus.ts";

/**
 * A file of `docling/tests/data/` of the shared corpus (see ../test-corpus.ts); throws when the corpus is
 * absent, so only tests that skip with `{ skip: NO_CORPUS }` call it.
 */
export const doclingData = (file: string): string => corpusPath("docling/tests/data", file);

/** Prose with ordinary words, numbers and punctuation, to fill a clean page. */
export const CLEAN_PAGE_TEXT = [
  "The committee met on Tuesday morning to review the annual budget of the regional library network.",
  "After a short introduction, the treasurer explained that spending on printed books had fallen for the third",
  "year in a row, while the cost of digital subscriptions had risen by almost twelve percent. Several members",
  "asked whether the smaller branches could share a single catalogue and delivery van, which would save money",
  "without closing any reading rooms. The director agreed to prepare two proposals before the next meeting.",
  "Visitors in the northern district often wait more than an hour for the bus, so the board also discussed",
  "longer opening hours on Saturday and a mobile service for villages that have no branch of their own.",
  "A volunteer from the historical society offered to scan old maps, letters and parish records, and to publish",
  "them with a simple index so that students and families can search them from home. The meeting closed at noon",
  "with a vote of thanks to the staff, who had moved more than forty thousand items during the renovation.",
  "In the afternoon a smaller group visited the new archive building near the river. Its shelves are made of",
  "steel, the air is kept dry and cool, and every box carries a label with a number that matches the records.",
  "The architect explained how sunlight is kept away from the documents and how the floors carry heavy loads.",
].join(" ");

export interface RenderedPage {
  /** A grayscale PNG with the page's resolution in its header. */
  png: Buffer;
  /** The words drawn, in order. */
  text: string;
}

/**
 * Renders text as a clean page: black type on white, wrapped within one-inch margins, like a page printed and
 * scanned without noise.
 */
export async function renderTextPage(
  options: {
    text?: string;
    fontPt?: number;
    dpi?: number;
    widthIn?: number;
    heightIn?: number;
    font?: string;
  } = {},
): Promise<RenderedPage> {
  const {
    text = CLEAN_PAGE_TEXT,
    fontPt = 12,
    dpi = 300,
    widthIn = 8.5,
    heightIn = 11,
    font = "DejaVu Serif",
  } = options;
  const width = Math.round(widthIn * dpi);
  const height = Math.round(heightIn * dpi);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, width, height);
  context.fillStyle = "#000000";
  const fontPx = (fontPt * dpi) / 72;
  context.font = `${fontPx}px "${font}"`;
  context.textBaseline = "alphabetic";
  const margin = dpi;
  const lineHeight = fontPx * 1.4;
  let y = margin + fontPx;
  let line = "";
  const drawn: string[] = [];
  for (const word of text.split(/\s+/)) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (line !== "" && context.measureText(candidate).width > width - 2 * margin) {
      context.fillText(line, margin, y);
      drawn.push(line);
      y += lineHeight;
      line = word;
      if (y > height - margin) break;
    } else {
      line = candidate;
    }
  }
  if (line !== "" && y <= height - margin) {
    context.fillText(line, margin, y);
    drawn.push(line);
  }
  const png = await scanPng(canvas, dpi);
  return { png, text: drawn.join(" ") };
}

/** Words of a text for recall: lowercased, without the punctuation around them. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((w) => w !== "");
}

/** The share of the reference's words (counted with repetition) that the OCR text has. 1 for an empty reference. */
export function wordRecall(reference: string, ocrText: string): number {
  const expected = words(reference);
  if (expected.length === 0) return 1;
  const found = new Map<string, number>();
  for (const w of words(ocrText)) found.set(w, (found.get(w) ?? 0) + 1);
  let hits = 0;
  for (const w of expected) {
    const left = found.get(w) ?? 0;
    if (left > 0) {
      hits++;
      found.set(w, left - 1);
    }
  }
  return hits / expected.length;
}

/**
 * A table drawn as an image: `rows` of cells in columns of equal width, with ruling lines around every cell when
 * `ruled`, else only aligned; black on white, 12 pt DejaVu Sans, as a gray PNG with its resolution.
 */
export async function tableImage(
  rows: readonly (readonly string[])[],
  options: { ruled?: boolean; dpi?: number; columnWidthIn?: number; font?: string; fontPt?: number } = {},
): Promise<Buffer> {
  const { ruled = true, dpi = 300, columnWidthIn = 2, font = "DejaVu Sans", fontPt = 12 } = options;
  const columns = Math.max(...rows.map((row) => row.length));
  const fontPx = (fontPt * dpi) / 72;
  const cellWidth = columnWidthIn * dpi;
  // Ruled rows leave room around the text for the lines; aligned rows are spaced as text lines are.
  const rowHeight = fontPx * (ruled ? 2.2 : 1.6);
  const left = dpi;
  const top = dpi * 0.75;
  const width = Math.round(left * 2 + columns * cellWidth);
  const height = Math.round(top * 2 + rows.length * rowHeight);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, width, height);
  context.fillStyle = "#000000";
  context.font = `${fontPx}px "${font}"`;
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      context.fillText(
        cell,
        left + c * cellWidth + fontPx * 0.6,
        top + r * rowHeight + rowHeight * 0.5 + fontPx * 0.35,
      );
    });
  });
  if (ruled) {
    context.strokeStyle = "#000000";
    context.lineWidth = Math.max(2, Math.round(dpi / 100));
    for (let r = 0; r <= rows.length; r++) {
      context.beginPath();
      context.moveTo(left, top + r * rowHeight);
      context.lineTo(left + columns * cellWidth, top + r * rowHeight);
      context.stroke();
    }
    for (let c = 0; c <= columns; c++) {
      context.beginPath();
      context.moveTo(left + c * cellWidth, top);
      context.lineTo(left + c * cellWidth, top + rows.length * rowHeight);
      context.stroke();
    }
  }
  return scanPng(canvas, dpi);
}

/** A paragraph of a page of several scripts: its text and the font it is drawn in. */
export interface Paragraph {
  text: string;
  font: string;
  /** Set right-aligned and laid out right to left (Arabic, Hebrew). */
  rtl?: boolean;
}

/**
 * Paragraphs one under another on a clean A4 page at 300 dpi, 12 pt, each in its own font, a blank line apart;
 * lines wrap at spaces, or anywhere in text written without them (Chinese, Japanese).
 */
export async function renderParagraphsPage(paragraphs: readonly Paragraph[], dpi = 300): Promise<Buffer> {
  const width = Math.round(8.27 * dpi);
  const height = Math.round(11.7 * dpi);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, width, height);
  context.fillStyle = "#000000";
  const fontPx = (12 * dpi) / 72;
  const margin = dpi;
  let y = margin + fontPx;
  for (const paragraph of paragraphs) {
    context.font = `${fontPx}px "${paragraph.font}"`;
    context.direction = paragraph.rtl ? "rtl" : "ltr";
    context.textAlign = paragraph.rtl ? "right" : "left";
    const spaced = /\s/.test(paragraph.text.trim());
    const pieces = spaced ? paragraph.text.split(/\s+/) : [...paragraph.text];
    let line = "";
    const draw = () => {
      context.fillText(line, paragraph.rtl ? width - margin : margin, y);
      y += fontPx * 1.5;
    };
    for (const piece of pieces) {
      const candidate = line === "" ? piece : spaced ? `${line} ${piece}` : line + piece;
      if (line !== "" && context.measureText(candidate).width > width - 2 * margin) {
        draw();
        line = piece;
      } else {
        line = candidate;
      }
    }
    if (line !== "") draw();
    y += fontPx * 1.5;
  }
  return scanPng(canvas, dpi);
}
