import sharp, { type OverlayOptions } from "sharp";
import { languageOfScript } from "./languages.ts";
import { readingQuality } from "./orientation.ts";
import type { TsvLine, TsvPage, TsvWord } from "./tsv.ts";

/**
 * Regions of a page written in another script than the one the page was read in. A page is read in the script
 * most of it is in; a paragraph in a second script (a Russian paragraph under a Chinese one, Arabic beside
 * Hindi) reads as gibberish with a low confidence in that language. Such a region's words alone are shown to
 * OSD, which names their script, and the region is cut out of the page and read in that script's language;
 * its words replace the region's when they read more confidently.
 */

/** A region reading below this mean confidence may be in another script. */
const WEAK_REGION_CONFIDENCE = 60;
/** A region needs this many characters for OSD to name its script. */
const MIN_REGION_CHARS = 12;
/** At most this many regions of a page are read again (each costs an OSD pass and a reading). */
const MAX_REGIONS = 4;
/** A region's new reading must be this much more confident than its first, and not weak itself. */
const MIN_GAIN = 10;
/** Pixels of page kept around a region's words when it is cut out. */
const REGION_PAD = 12;
/** Blocks of a region read again are numbered past the page's own, so their lines stay apart. */
const REGION_BLOCK_OFFSET = 20_000;
/** Words shown to OSD at most. */
const MAX_STACKED_WORDS = 200;

/** Reads an image in languages joined by `+`. */
export type ReadImage = (png: Buffer, language: string) => Promise<TsvPage>;
/** Names the script of an image of words (Tesseract OSD's name), or null. */
export type NameScript = (png: Buffer) => Promise<string | null>;

/**
 * The page's weak regions (paragraphs) read again each in its own script. Returns the page with their words
 * replaced and the languages used in all (`rus+chi_sim`), or the page as it was when no region gains.
 *
 * @param png the upright page the reading's boxes are in.
 * @param usable whether every code of a language has installed data.
 */
export async function readRegionsInTheirScripts(
  png: Buffer,
  reading: { page: TsvPage; language: string },
  read: ReadImage,
  nameScript: NameScript,
  usable: (language: string | null) => language is string,
): Promise<{ page: TsvPage; language: string }> {
  const codes = reading.language.split("+");
  // Vertical text is read down columns; its paragraphs are not cut out across.
  if (codes.some((code) => code.endsWith("_vert"))) return reading;
  const weak = weakRegions(reading.page);
  if (weak.length === 0) return reading;
  const { width = 0, height = 0 } = await sharp(png).metadata();
  let page = reading.page;
  const languages = [...codes];
  let index = 0;
  for (const region of weak) {
    index++;
    const strip = await stackWords(png, region.words);
    const script = strip ? await nameScript(strip) : null;
    const language = script ? languageOfScript(script) : null;
    if (!usable(language) || codes.includes(language)) continue;
    const box = padded(region.words, width, height);
    if (!box) continue;
    const crop = await sharp(png)
      .extract(box)
      .png({ compressionLevel: 1, adaptiveFiltering: false })
      .toBuffer();
    const again = await read(crop, language);
    // Noise (a picture's specks) reads weakly in every script: a region is replaced only by a reading that is good.
    const confidence = readingQuality(again).meanConfidence;
    if (confidence < WEAK_REGION_CONFIDENCE || confidence < region.confidence + MIN_GAIN) continue;
    page = replaceRegion(page, region, again, box, REGION_BLOCK_OFFSET * index);
    if (!languages.includes(language)) languages.push(language);
  }
  return page === reading.page ? reading : { page, language: languages.join("+") };
}

interface Region {
  block: number;
  paragraph: number;
  words: TsvWord[];
  /** Mean word confidence, weighted by length. */
  confidence: number;
}

/** Paragraphs read with a low confidence and enough characters to be named, the longest first. */
export function weakRegions(page: TsvPage): Region[] {
  return allWeakRegions(page).slice(0, MAX_REGIONS);
}

/** A page's confident part must hold at least this share of its characters to speak for the page. */
const MIN_CONFIDENT_SHARE = 0.3;

/**
 * The page less its weak paragraphs, when it has some and what is left holds a good share of its characters:
 * the part that tells whether the page's language reads it. A paragraph in a second script (Hindi beside
 * Japanese) pulls down the page's confidence however right its language is; that paragraph is read again in its
 * own script (readRegionsInTheirScripts), so it is no reason to try the page in other languages. Null otherwise.
 */
export function confidentPart(page: TsvPage): TsvPage | null {
  const weak = allWeakRegions(page);
  if (weak.length === 0) return null;
  const inWeak = new Set(weak.map((region) => `${region.block}.${region.paragraph}`));
  const key = (row: { block: number; paragraph: number }) => `${row.block}.${row.paragraph}`;
  const words = page.words.filter((word) => !inWeak.has(key(word)));
  const chars = (list: readonly TsvWord[]) => list.reduce((sum, word) => sum + [...word.text].length, 0);
  if (chars(words) < MIN_CONFIDENT_SHARE * chars(page.words)) return null;
  return { words, lines: page.lines.filter((line) => !inWeak.has(key(line))) };
}

function allWeakRegions(page: TsvPage): Region[] {
  const byParagraph = new Map<string, TsvWord[]>();
  for (const word of page.words) {
    const key = `${word.block}.${word.paragraph}`;
    const words = byParagraph.get(key);
    if (words) words.push(word);
    else byParagraph.set(key, [word]);
  }
  const regions: (Region & { chars: number })[] = [];
  for (const words of byParagraph.values()) {
    const chars = words.reduce((sum, word) => sum + [...word.text].length, 0);
    const { meanConfidence } = readingQuality({ words, lines: [] });
    if (chars < MIN_REGION_CHARS || meanConfidence >= WEAK_REGION_CONFIDENCE) continue;
    regions.push({
      block: words[0].block,
      paragraph: words[0].paragraph,
      words,
      confidence: meanConfidence,
      chars,
    });
  }
  return regions.sort((a, b) => b.chars - a.chars);
}

interface CropBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

function padded(words: readonly TsvWord[], width: number, height: number): CropBox | null {
  const left = Math.max(0, Math.min(...words.map((w) => w.left)) - REGION_PAD);
  const top = Math.max(0, Math.min(...words.map((w) => w.top)) - REGION_PAD);
  const right = Math.min(width, Math.max(...words.map((w) => w.left + w.width)) + REGION_PAD);
  const bottom = Math.min(height, Math.max(...words.map((w) => w.top + w.height)) + REGION_PAD);
  if (right <= left || bottom <= top) return null;
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * The page with a region's words (and the lines they alone were on) replaced by the words read in its crop,
 * moved back to the page's pixels and numbered as blocks of their own.
 */
function replaceRegion(
  page: TsvPage,
  region: Region,
  again: TsvPage,
  box: CropBox,
  blockOffset: number,
): TsvPage {
  const inRegion = (row: { block: number; paragraph: number }) =>
    row.block === region.block && row.paragraph === region.paragraph;
  const move = <T extends TsvWord | TsvLine>(row: T): T => ({
    ...row,
    left: row.left + box.left,
    top: row.top + box.top,
    block: row.block + blockOffset,
  });
  return {
    words: [...page.words.filter((word) => !inRegion(word)), ...again.words.map(move)],
    lines: [...page.lines.filter((line) => !inRegion(line)), ...again.lines.map(move)],
  };
}

/** Words cut out of the page and set in rows on white, for OSD to name their script. */
export async function stackWords(png: Buffer, words: readonly TsvWord[]): Promise<Buffer | null> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const boxes = words
    .slice(0, MAX_STACKED_WORDS)
    .map((word) => ({
      left: Math.max(0, word.left),
      top: Math.max(0, word.top),
      width: Math.min(word.width, width - Math.max(0, word.left)),
      height: Math.min(word.height, height - Math.max(0, word.top)),
    }))
    .filter((b) => b.width > 0 && b.height > 0);
  if (boxes.length === 0) return null;
  const pad = 12;
  const rowWidth = Math.max(width, ...boxes.map((b) => b.width + 2 * pad));
  const pieces: OverlayOptions[] = [];
  let x = pad;
  let y = pad;
  let rowHeight = 0;
  for (const b of boxes) {
    if (x + b.width + pad > rowWidth) {
      x = pad;
      y += rowHeight + pad;
      rowHeight = 0;
    }
    pieces.push({ input: await sharp(png).extract(b).png().toBuffer(), left: x, top: y });
    x += b.width + pad * 2;
    rowHeight = Math.max(rowHeight, b.height);
  }
  return sharp({
    create: { width: rowWidth, height: y + rowHeight + pad, channels: 3, background: "#ffffff" },
  })
    .composite(pieces)
    .toColourspace("b-w")
    .png({ compressionLevel: 1 })
    .toBuffer();
}
