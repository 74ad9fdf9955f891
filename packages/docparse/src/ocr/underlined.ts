import sharp from "sharp";
import type { Rule } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";
import type { TsvPage, TsvWord } from "./tsv.ts";
import type { ReadContext, WordReader } from "./word-reader.ts";

/**
 * Underlined lines the first pass read nothing of. Tesseract takes a line of small or faint type whose underline
 * touches its letters (a typed letterhead, an underlined heading) for one dark shape and reads no word of it. Each
 * long horizontal rule with ink above it and no word read there has the band above it cut out, the rule painted
 * out, and the band read as a line; only those bands, so forms and tables (whose rules have words read above
 * them) are read as they were.
 */

/** A band holding this share of ink pixels is a line of text, not specks. */
const MIN_BAND_INK = 0.04;
/** Gray levels below this are ink: faint typewriter ink included. */
const INK = 170;
/** Words of a band read below this confidence are noise. */
const MIN_CONFIDENCE = 50;
/** Bands read at most on a page: headings and signature lines, never a whole form. */
const MAX_BANDS = 6;
/** An underline is at least this many times as long as the band above it is high. */
const MIN_LENGTH_LINES = 3;
/** Blocks of the bands' words are numbered after the first pass's, so their lines stay apart. */
const BAND_BLOCK_OFFSET = 20_000;

/**
 * The words of the underlined lines of an upright page image that `page` has no word in, in the image's pixels,
 * as lines of their own.
 *
 * @param rules the image's ruling lines in pixels.
 */
export async function underlinedWords(
  png: Buffer,
  page: TsvPage,
  rules: readonly Rule[],
  dpi: number,
  reader: WordReader,
  context: ReadContext,
): Promise<TsvPage> {
  const none: TsvPage = { words: [], lines: [] };
  const heights = page.words.map((w) => w.height);
  // The band above a rule: a line of the page's type and a bit.
  const lineHeight = heights.length > 0 ? median(heights) * 1.6 : dpi / 6;
  // An underline spans words: half an inch, and several times the type's height (a page whose resolution is
  // nominal has letters' strokes found as short rules).
  const minLength = Math.max(dpi / 2, lineHeight * MIN_LENGTH_LINES);
  const candidates = rules.filter((r) => r.orientation === "h" && r.x2 - r.x1 >= minLength);
  if (candidates.length === 0) return none;
  const { data, info } = await sharp(png).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  const { width } = info;
  if (info.channels !== 1) return none;
  const bands: { left: number; top: number; right: number; bottom: number; rule: Rule }[] = [];
  for (const rule of candidates) {
    const top = Math.max(0, Math.round(rule.y1 - lineHeight));
    const bottom = Math.round(rule.y1 - rule.width / 2) - 1;
    const left = Math.max(0, Math.floor(rule.x1));
    const right = Math.min(width, Math.ceil(rule.x2));
    if (bottom - top < 4 || right <= left) continue;
    const read = page.words.some((w) => {
      const overlap = Math.min(w.top + w.height, bottom) - Math.max(w.top, top);
      const middle = w.left + w.width / 2;
      return overlap > w.height * 0.3 && middle >= left && middle <= right;
    });
    if (read) continue;
    let ink = 0;
    for (let y = top; y < bottom; y++)
      for (let x = left; x < right; x++) if (data[y * width + x] < INK) ink++;
    if (ink < (bottom - top) * (right - left) * MIN_BAND_INK) continue;
    bands.push({ left, top, right, bottom, rule });
  }
  if (bands.length === 0 || bands.length > MAX_BANDS) return none;
  const words: TsvWord[] = [];
  const lines: TsvPage["lines"] = [];
  for (const [i, band] of bands.entries()) {
    const pad = Math.round(lineHeight / 2);
    const x1 = Math.max(0, band.left - pad);
    const x2 = Math.min(width, band.right + pad);
    const y1 = Math.max(0, Math.round(band.top - lineHeight * 0.3));
    // The band ends where the rule starts: the rule and what lies below it are left out.
    const y2 = band.bottom;
    const crop = Buffer.alloc((x2 - x1) * (y2 - y1), 255);
    for (let y = y1; y < y2; y++) data.copy(crop, (y - y1) * (x2 - x1), y * width + x1, y * width + x2);
    const image = await sharp(crop, { raw: { width: x2 - x1, height: y2 - y1, channels: 1 } })
      .extend({ top: pad, bottom: pad, left: pad, right: pad, background: "#ffffff" })
      .png({ compressionLevel: 1, adaptiveFiltering: false })
      .toBuffer();
    const read = await reader.readWords(image, dpi, { ...context, line: true });
    const block = BAND_BLOCK_OFFSET + i;
    for (const word of read.words) {
      if (word.conf < MIN_CONFIDENCE || !/[\p{L}\p{N}]/u.test(word.text)) continue;
      words.push({ ...word, block, left: word.left + x1 - pad, top: word.top + y1 - pad });
    }
    for (const line of read.lines)
      lines.push({ ...line, block, left: line.left + x1 - pad, top: line.top + y1 - pad });
  }
  return { words, lines };
}
