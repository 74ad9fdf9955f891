import sharp from "sharp";
import type { TsvPage } from "./tsv.ts";
import type { OrientationGuess, ReadContext, Rotation, WordReader } from "./word-reader.ts";

export type { OrientationGuess, Rotation } from "./word-reader.ts";

/** How well a pass read a page: upside-down or sideways text reads as low-confidence gibberish. */
export interface ReadingQuality {
  words: number;
  /** Mean word confidence (0..100), weighted by word length. */
  meanConfidence: number;
  /** Characters of confident, alphanumeric, horizontal words: the measure passes are compared by. */
  goodChars: number;
  /** Share of long words whose box is taller than wide: text the engine found running up or down the image. */
  sidewaysShare: number;
}

/** A pass reads the page upright when its words are confident and run across the image. */
const UPRIGHT_MIN_CONFIDENCE = 70;
const UPRIGHT_MAX_SIDEWAYS_SHARE = 0.5;
/** An OSD answer of "upright" this sure ends the search when the first pass is not gibberish either. */
const CONFIDENT_OSD = 2;
const PLAUSIBLE_CONFIDENCE = 50;

/**
 * Reads a page upright. Most pages are: the first pass at 0° reads confidently across the image, and that is
 * the answer. Otherwise the page may lie sideways or upside down: Tesseract's OSD (when the reader has it)
 * proposes the turn to try first, and the image is turned and read again until a pass reads upright; failing
 * that, the pass with the most well-read text wins. A page turned by 90° and one turned by 270° look alike to
 * OSD, so the opposite turn of its proposal is tried next.
 */
export async function readUpright(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: ReadContext,
  known: { first?: TsvPage; guess?: OrientationGuess | null } = {},
): Promise<{ page: TsvPage; rotation: Rotation }> {
  const first = known.first ?? (await reader.readWords(png, dpi, context));
  const firstQuality = readingQuality(first);
  if (firstQuality.words === 0 || readsUpright(firstQuality)) return { page: first, rotation: 0 };
  const guess =
    known.guess !== undefined
      ? known.guess
      : reader.detectOrientation
        ? await reader.detectOrientation(png, dpi, context)
        : null;
  if (
    guess?.rotation === 0 &&
    guess.confidence >= CONFIDENT_OSD &&
    firstQuality.meanConfidence >= PLAUSIBLE_CONFIDENCE &&
    firstQuality.sidewaysShare < UPRIGHT_MAX_SIDEWAYS_SHARE
  ) {
    return { page: first, rotation: 0 };
  }
  let best = { page: first, rotation: 0 as Rotation, quality: firstQuality };
  for (const rotation of turnsToTry(guess, firstQuality)) {
    const turned = await turn(png, rotation);
    const page = await reader.readWords(turned, dpi, context);
    const quality = readingQuality(page);
    if (readsUpright(quality) && quality.goodChars >= best.quality.goodChars) return { page, rotation };
    if (quality.goodChars > best.quality.goodChars) best = { page, rotation, quality };
  }
  return { page: best.page, rotation: best.rotation };
}

/** The turns other than 0° in the order to try them: OSD's proposal and its opposite first. */
export function turnsToTry(guess: OrientationGuess | null, firstPass: ReadingQuality): Rotation[] {
  const order: Rotation[] =
    firstPass.sidewaysShare >= UPRIGHT_MAX_SIDEWAYS_SHARE ? [90, 270, 180] : [180, 90, 270];
  if (!guess || guess.rotation === 0) return order;
  const first: Rotation[] = [guess.rotation];
  if (guess.rotation !== 180) first.push(guess.rotation === 90 ? 270 : 90);
  return [...first, ...order.filter((r) => !first.includes(r))];
}

export function readingQuality(page: TsvPage): ReadingQuality {
  let chars = 0;
  let weightedConfidence = 0;
  let goodChars = 0;
  let longWords = 0;
  let sideways = 0;
  for (const word of page.words) {
    const length = [...word.text].length;
    chars += length;
    weightedConfidence += word.conf * length;
    const isSideways = length >= 4 && word.height > word.width;
    if (length >= 4) longWords++;
    if (isSideways) sideways++;
    if (!isSideways && word.conf >= 60 && /[\p{L}\p{N}]{2}/u.test(word.text)) goodChars += length;
  }
  return {
    words: page.words.length,
    meanConfidence: chars > 0 ? weightedConfidence / chars : 0,
    goodChars,
    sidewaysShare: longWords > 0 ? sideways / longWords : 0,
  };
}

/** The page image turned clockwise by a quarter turn or more. */
export function turn(png: Buffer, rotation: Rotation): Promise<Buffer> {
  if (rotation === 0) return Promise.resolve(png);
  return sharp(png).rotate(rotation).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

export function readsUpright(quality: ReadingQuality): boolean {
  return (
    quality.words > 0 &&
    quality.meanConfidence >= UPRIGHT_MIN_CONFIDENCE &&
    quality.sidewaysShare < UPRIGHT_MAX_SIDEWAYS_SHARE
  );
}
