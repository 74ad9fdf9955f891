import sharp from "sharp";
import type { Rule } from "../paginated/geometry.ts";
import type { TsvPage } from "./tsv.ts";

/**
 * Ink the OCR pass left unread. Tesseract's page layout analysis drops small isolated text (a narrow column of
 * numbers in a table without lines, a lone digit) as noise. Here the words read and the ruling lines are painted
 * out of the page, and what ink is left, when there is enough of it to be text, is a page to read again as
 * sparse text.
 */

/** A page is checked in tiles of this many pixels; a tile with this many ink pixels holds ink. */
const TILE = 8;
const TILE_INK = 6;
/** Fewer inked tiles than this is specks, not text. */
const MIN_INKED_TILES = 6;
/**
 * More than this share of the page's tiles left inked is a picture (a photo, a logo, a chart), not missed words:
 * reading it again would only find noise.
 */
const MAX_INKED_SHARE = 0.03;
const INK = 128;

/**
 * The page with its read words and rules whitened out, when enough ink is left to be text; else null.
 *
 * @param rules in pixels of `png`.
 */
export async function missedInk(png: Buffer, page: TsvPage, rules: readonly Rule[]): Promise<Buffer | null> {
  const { data, info } = await sharp(png).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const gray = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + width * height));
  const clear = (x1: number, y1: number, x2: number, y2: number) => {
    const left = Math.max(0, Math.floor(x1));
    const right = Math.min(width, Math.ceil(x2));
    for (let y = Math.max(0, Math.floor(y1)); y < Math.min(height, Math.ceil(y2)); y++) {
      gray.fill(255, y * width + left, y * width + Math.max(left, right));
    }
  };
  for (const word of page.words)
    clear(word.left - 3, word.top - 3, word.left + word.width + 3, word.top + word.height + 3);
  for (const rule of rules) {
    const half = rule.width / 2 + 2;
    if (rule.orientation === "h") clear(rule.x1 - 2, rule.y1 - half, rule.x2 + 2, rule.y1 + half);
    else clear(rule.x1 - half, rule.y1 - 2, rule.x1 + half, rule.y2 + 2);
  }
  const across = Math.ceil(width / TILE);
  const tiles = across * Math.ceil(height / TILE);
  const maxInked = Math.max(MIN_INKED_TILES, tiles * MAX_INKED_SHARE);
  // Ink pixels per tile, counted row by row.
  const counts = new Uint16Array(tiles);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const tileRow = Math.floor(y / TILE) * across;
    for (let x = 0; x < width; x++) if (gray[row + x] < INK) counts[tileRow + ((x / TILE) | 0)]++;
  }
  let inked = 0;
  for (const count of counts) if (count >= TILE_INK) inked++;
  if (inked < MIN_INKED_TILES || inked > maxInked) return null;
  const { density } = await sharp(png).metadata();
  let out = sharp(gray, { raw: { width, height, channels: 1 } });
  if (density) out = out.withDensity(density);
  return out.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}
