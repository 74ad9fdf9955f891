import sharp from "sharp";
import type { Rule } from "../paginated/geometry.ts";
import type { TsvPage } from "./tsv.ts";

/**
 * Ink the OCR pass left unread. Tesseract's page layout analysis drops small isolated text (a narrow column of
 * numbers in a table without lines, a lone digit, a header row on a shaded ground) as noise. Here the words read
 * and the ruling lines are painted out of the page, pictures are painted out too, and what ink is left, when
 * there is enough of it to be text, is a page to read again as sparse text.
 *
 * Pictures are judged per region, not per page: a table whose cells hold lone digits leaves many small patches
 * of ink spread over the page, a photo leaves one large patch inked nearly everywhere.
 */

/** A page is checked in tiles of this many pixels; a tile with this many ink pixels holds ink. */
const TILE = 8;
const TILE_INK = 6;
/** Fewer inked tiles than this is specks, not text. */
const MIN_INKED_TILES = 6;
/**
 * A patch of connected inked tiles at least this many tiles wide and high (0.6 inch at 200 dpi), inked over
 * this share of its box, is a picture (a photo, a logo), not missed words: reading it would only find noise.
 */
const PICTURE_TILES = 15;
const PICTURE_FILL = 0.75;
/**
 * More than this share of the page's tiles left inked once pictures are out is still no page of missed words
 * (line art, a texture, a page OCR could not read at all): the second pass is not worth its time.
 */
const MAX_INKED_SHARE = 0.12;
const INK = 128;

/**
 * The page with its read words and rules whitened out, when enough ink is left to be text; else null.
 *
 * @param rules in pixels of `png`.
 * @param region the image is a region cut out for the text rows seen in it (a crop of a text-layer page), not a
 *   whole page: its ink is text by choice, so no share of it is too much to read again (a word filling a crop a
 *   line high inks far more than MAX_INKED_SHARE of it).
 */
export async function missedInk(
  png: Buffer,
  page: TsvPage,
  rules: readonly Rule[],
  region = false,
): Promise<Buffer | null> {
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
  const maxInked = region ? tiles : Math.max(MIN_INKED_TILES, tiles * MAX_INKED_SHARE);
  // Ink pixels per tile, counted row by row.
  const counts = new Uint16Array(tiles);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const tileRow = Math.floor(y / TILE) * across;
    for (let x = 0; x < width; x++) if (gray[row + x] < INK) counts[tileRow + ((x / TILE) | 0)]++;
  }
  const inkedTiles = new Uint8Array(tiles);
  for (let t = 0; t < tiles; t++) if (counts[t] >= TILE_INK) inkedTiles[t] = 1;
  for (const patch of tilePatches(inkedTiles, across)) {
    if (!picture(patch)) continue;
    clear(patch.x1 * TILE, patch.y1 * TILE, patch.x2 * TILE, patch.y2 * TILE);
    for (const t of patch.tiles) inkedTiles[t] = 0;
  }
  let inked = 0;
  for (const flag of inkedTiles) inked += flag;
  if (inked < MIN_INKED_TILES || inked > maxInked) return null;
  // What is not ink is ground: a shaded cell's grey goes white, so that the second pass, which binarizes the
  // page as a whole, does not see a shaded header row as one dark block.
  for (let i = 0; i < gray.length; i++) if (gray[i] >= INK) gray[i] = 255;
  const { density } = await sharp(png).metadata();
  let out = sharp(gray, { raw: { width, height, channels: 1 } });
  if (density) out = out.withDensity(density);
  return out.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

/** Inked tiles connected to each other (8 neighbours): their box in tiles, and the tiles. */
interface TilePatch {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  tiles: number[];
}

function picture(patch: TilePatch): boolean {
  const w = patch.x2 - patch.x1;
  const h = patch.y2 - patch.y1;
  return w >= PICTURE_TILES && h >= PICTURE_TILES && patch.tiles.length >= w * h * PICTURE_FILL;
}

/** The patches of connected inked tiles of a tile grid `across` tiles wide, by flood fill. */
export function tilePatches(inked: Uint8Array, across: number): TilePatch[] {
  const seen = new Uint8Array(inked.length);
  const patches: TilePatch[] = [];
  const down = Math.ceil(inked.length / across);
  for (let start = 0; start < inked.length; start++) {
    if (!inked[start] || seen[start]) continue;
    const patch: TilePatch = { x1: across, y1: down, x2: 0, y2: 0, tiles: [] };
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const t = stack.pop() as number;
      patch.tiles.push(t);
      const x = t % across;
      const y = (t - x) / across;
      patch.x1 = Math.min(patch.x1, x);
      patch.y1 = Math.min(patch.y1, y);
      patch.x2 = Math.max(patch.x2, x + 1);
      patch.y2 = Math.max(patch.y2, y + 1);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= across || ny >= down) continue;
          const n = ny * across + nx;
          if (inked[n] && !seen[n]) {
            seen[n] = 1;
            stack.push(n);
          }
        }
      }
    }
    patches.push(patch);
  }
  return patches;
}
