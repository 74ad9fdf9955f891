import type { PageRaster } from "../images/decode.ts";
import { rasterRules, scaleRules } from "../images/rules.ts";
import type { Rule } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";
import { pageBudget } from "./cpu-budget.ts";
import { deskew } from "./deskew.ts";
import { readDetectingLanguage } from "./detect-language.ts";
import { missedInk } from "./missed-ink.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrOptions, OcrPage } from "./ocr-page.ts";
import { readUpright, turn } from "./orientation.ts";
import { ocrSlots } from "./slots.ts";
import { type TsvPage, type TsvWord, toRunsAndLines } from "./tsv.ts";
import { underlinedWords } from "./underlined.ts";
import type { ReadContext, Rotation, WordReader } from "./word-reader.ts";

export type { ReadContext, WordReader } from "./word-reader.ts";

/** The CPU time one page's (or one chunk of crops') OCR programs may use (cpu-budget.ts). */
export const DEFAULT_OCR_CPU_LIMIT_MS = 120_000;

/**
 * Reads one page with a reader: in an OCR slot, straightened when asked, turned upright, and converted to runs and
 * lines in points. The time limits (cpu-budget.ts) run from when the page gets its slot.
 */
export async function recognizePage(
  raster: PageRaster,
  reader: WordReader,
  options: OcrOptions = {},
): Promise<OcrPage> {
  const language = options.language;
  if (language !== undefined && !/^[A-Za-z_]+(\+[A-Za-z_]+)*$/.test(language)) {
    throw new OcrError(`Not a Tesseract language: ${language}`, "OCR_FAILED");
  }
  const cpuLimitMs = options.cpuLimitMs ?? DEFAULT_OCR_CPU_LIMIT_MS;
  try {
    return await ocrSlots.run(async () => {
      const { budget, signal } = pageBudget(cpuLimitMs, options.signal);
      let png = raster.png;
      let skewAngle = 0;
      if (options.deskew) ({ png, angle: skewAngle } = await deskew(png, options.skewDegrees));
      signal.throwIfAborted();
      const upright = await readPage(png, raster.ocrDpi, reader, { language, signal, budget }, options);
      const uprightPng = await turn(png, upright.rotation);
      const pixelRules = await rasterRules(uprightPng, 1, raster.ocrDpi);
      const context = { language: upright.language, signal, budget };
      const underlined = await underlinedWords(
        uprightPng,
        upright.page,
        pixelRules,
        raster.ocrDpi,
        reader,
        context,
      );
      if (underlined.words.length > 0) upright.page = withWords(upright.page, underlined);
      const ink = await inkLeft(uprightPng, upright.page, raster.ocrDpi, pixelRules);
      if (ink.missed) {
        const more = await reader.readWords(ink.missed, raster.ocrDpi, { ...context, sparse: true });
        upright.page = withMissedWords(upright.page, more);
      }
      return pageOf(raster, upright, ink.rules, skewAngle, await reader.name());
    }, options.signal);
  } catch (error) {
    throw asOcrError(error);
  }
}

/**
 * An upright page image's ruling lines (in points) and, when its first pass left text unread, the image with
 * the words read painted out, for a second pass (missed-ink.ts; `region`: the image is a crop of text rows).
 */
async function inkLeft(
  png: Buffer,
  page: TsvPage,
  dpi: number,
  found?: readonly Rule[],
  region = false,
): Promise<{ rules: Rule[]; missed: Buffer | null }> {
  const pixelRules = found ?? (await rasterRules(png, 1, dpi));
  const rules = scaleRules(pixelRules, 72 / dpi);
  // Rules shorter than half an inch are strokes of large type taken for rules: painting them out would cut
  // the very letters the second pass is to read.
  const longRules = pixelRules.filter((r) => Math.max(r.x2 - r.x1, r.y2 - r.y1) >= dpi / 2);
  return { rules, missed: await missedInk(png, page, longRules, region) };
}

/** The OcrPage of a raster's upright reading: runs and lines in points, marks of ruling lines left out. */
function pageOf(
  raster: PageRaster,
  upright: { page: TsvPage; rotation: Rotation; language: string },
  rules: Rule[],
  skewAngle: number,
  engine: string,
): OcrPage {
  const read = toRunsAndLines(upright.page, 72 / raster.ocrDpi, {
    verticalColumns: upright.language.split("+").every((code) => code.endsWith("_vert")),
  });
  const { runs, lines } = withoutRuleMarks(read, rules);
  const sideways = upright.rotation === 90 || upright.rotation === 270;
  return {
    pageNumber: raster.pageNumber,
    width: sideways ? raster.heightPt : raster.widthPt,
    height: sideways ? raster.widthPt : raster.heightPt,
    runs,
    lines,
    rules,
    rotation: upright.rotation,
    skewAngle,
    language: upright.language,
    engine,
  };
}

/**
 * Crops of pages read as they are (upright, in one language, not straightened) in the OCR slot the caller holds:
 * the first passes of all of them in one run of a reader that reads batches, then the missed-ink passes of those
 * that need one in another (one crop at a time with other readers). Each crop gives its page or the OcrError that
 * stopped it: a crop that fails does not fail the others. The words are those `recognizePage` reads with
 * `detectOrientation: false`.
 */
export async function recognizeCrops(
  rasters: readonly PageRaster[],
  reader: WordReader,
  context: ReadContext,
): Promise<(OcrPage | OcrError)[]> {
  const { language } = context;
  const firsts = await readEach(reader, rasters, context);
  const inks = await Promise.all(
    firsts.map((first, i) =>
      first instanceof OcrError ? null : inkLeft(rasters[i].png, first, rasters[i].ocrDpi, undefined, true),
    ),
  );
  const missing = rasters.flatMap((raster, i) => {
    const missed = inks[i]?.missed;
    return missed ? [{ index: i, raster: { ...raster, png: missed } }] : [];
  });
  const seconds = await readEach(
    reader,
    missing.map((m) => m.raster),
    { ...context, sparse: true },
  );
  const more = new Map(missing.map((m, i) => [m.index, seconds[i]]));
  const engine = await reader.name();
  return rasters.map((raster, i) => {
    const first = firsts[i];
    const second = more.get(i);
    const ink = inks[i];
    if (first instanceof OcrError || !ink) return first as OcrError;
    if (second instanceof OcrError) return second;
    const page = second ? withMissedWords(first, second) : first;
    return pageOf(raster, { page, rotation: 0, language }, ink.rules, 0, engine);
  });
}

/**
 * Words of each raster: in one batch when the reader reads batches, else (and when the batch run fails for
 * anything but the time limit or an abort) one raster at a time, each failure that raster's own.
 */
async function readEach(
  reader: WordReader,
  rasters: readonly PageRaster[],
  context: ReadContext,
): Promise<(TsvPage | OcrError)[]> {
  if (reader.readWordsBatch && rasters.length > 1) {
    try {
      return await reader.readWordsBatch(
        rasters.map((r) => ({ png: r.png, dpi: r.ocrDpi })),
        context,
      );
    } catch (error) {
      const failure = asOcrError(error);
      if (failure.code !== "OCR_FAILED") return rasters.map(() => failure);
    }
  }
  const pages: (TsvPage | OcrError)[] = [];
  for (const raster of rasters) {
    try {
      pages.push(await reader.readWords(raster.png, raster.ocrDpi, context));
    } catch (error) {
      pages.push(asOcrError(error));
    }
  }
  return pages;
}

/**
 * One page image read upright: in the languages asked for, or else in those detected on the page (see
 * detect-language.ts); turned upright unless orientation detection is off.
 */
async function readPage(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: Omit<ReadContext, "language"> & { language: string | undefined },
  options: OcrOptions,
): Promise<{ page: TsvPage; rotation: Rotation; language: string }> {
  const { signal, budget } = context;
  if (context.language === undefined && options.detectOrientation !== false) {
    return readDetectingLanguage(png, dpi, reader, { signal, budget });
  }
  const language = context.language ?? "eng";
  if (options.detectOrientation === false) {
    return { page: await reader.readWords(png, dpi, { language, signal, budget }), rotation: 0, language };
  }
  return { ...(await readUpright(png, dpi, reader, { language, signal, budget })), language };
}

/** Blocks of the sparse pass are numbered after the first pass's, so their lines stay apart. */
const MISSED_BLOCK_OFFSET = 10_000;
/** Words of the sparse pass below this confidence are specks read as letters. */
const MISSED_MIN_CONFIDENCE = 60;
/** Words of the sparse pass less tall than this share of the first pass's median word are pieces of letters. */
const MISSED_MIN_HEIGHT = 0.7;

function withMissedWords(page: TsvPage, more: TsvPage): TsvPage {
  // Pieces of letters the first pass's word boxes did not quite cover (an accent, a tail) read as small letters.
  const heights = page.words.map((word) => word.height);
  const minHeight = heights.length > 0 ? median(heights) * MISSED_MIN_HEIGHT : 0;
  const words = digitsAmongNumbers(more.words)
    .filter(
      (word) =>
        word.conf >= MISSED_MIN_CONFIDENCE && word.height >= minHeight && /[\p{L}\p{N}]/u.test(word.text),
    )
    .map((word) => ({ ...word, block: word.block + MISSED_BLOCK_OFFSET }));
  if (words.length === 0) return page;
  const lines = more.lines.map((line) => ({ ...line, block: line.block + MISSED_BLOCK_OFFSET }));
  return { words: [...page.words, ...words], lines: [...page.lines, ...lines] };
}

/** The page's words and lines with another pass's (already filtered and numbered apart) added. */
function withWords(page: TsvPage, more: TsvPage): TsvPage {
  return { words: [...page.words, ...more.words], lines: [...page.lines, ...more.lines] };
}

/** Letters OCR reads for a lone digit of the same shape. */
const DIGIT_SHAPES: Record<string, string> = { O: "0", o: "0", D: "0", l: "1", I: "1", "|": "1" };

/**
 * A lone letter shaped like a digit (O, l, I) on a line whose other words are all numbers is that digit: the
 * second pass reads a table's lone cells, where `0` comes out as `O`.
 */
export function digitsAmongNumbers(words: readonly TsvWord[]): TsvWord[] {
  const lineKey = (w: TsvWord) => `${w.block}/${w.paragraph}/${w.line}`;
  const numeric = new Map<string, { numbers: number; others: number }>();
  for (const w of words) {
    const tally = numeric.get(lineKey(w)) ?? { numbers: 0, others: 0 };
    if (/^[\d.,%()+-]*\d[\d.,%()+-]*$/.test(w.text)) tally.numbers++;
    else tally.others++;
    numeric.set(lineKey(w), tally);
  }
  return words.map((w) => {
    const digit = DIGIT_SHAPES[w.text];
    const tally = numeric.get(lineKey(w));
    // The lone letter itself is the line's one word that is not a number.
    return digit && tally && tally.numbers >= 2 && tally.others === 1 ? { ...w, text: digit } : w;
  });
}

/**
 * OCR reads a vertical ruling line as a word of bars (`|`, `I`, `l`, `[`): such a word lying on a vertical rule is
 * the rule, not text, and is left out (with its place in its line).
 */
function withoutRuleMarks(
  read: { runs: OcrPage["runs"]; lines: OcrPage["lines"] },
  rules: readonly Rule[],
): { runs: OcrPage["runs"]; lines: OcrPage["lines"] } {
  const vertical = rules.filter((rule) => rule.orientation === "v");
  if (vertical.length === 0) return read;
  const isMark = (run: OcrPage["runs"][number]) =>
    /^[|[\]!lI1]+$/.test(run.text) &&
    vertical.some(
      (rule) =>
        rule.x1 >= run.box.x1 - 2 &&
        rule.x1 <= run.box.x2 + 2 &&
        rule.y1 <= run.box.y2 &&
        rule.y2 >= run.box.y1,
    );
  const keep = read.runs.map((run) => !isMark(run));
  if (keep.every(Boolean)) return read;
  const newIndex: number[] = [];
  let kept = 0;
  for (const flag of keep) newIndex.push(flag ? kept++ : -1);
  const runs = read.runs.filter((_, i) => keep[i]);
  const lines = read.lines
    .map((line) => {
      const indexes = line.runs.filter((i) => keep[i]).map((i) => newIndex[i]);
      return { ...line, runs: indexes, text: indexes.map((i) => runs[i].text).join(" ") };
    })
    .filter((line) => line.runs.length > 0);
  return { runs, lines };
}

/** Errors of a page's OCR as OcrErrors: an abort by the time limit is OCR_TIMEOUT, by the caller OCR_ABORTED. */
export function asOcrError(error: unknown): OcrError {
  if (error instanceof OcrError) return error;
  if (error instanceof Error && error.name === "TimeoutError") {
    return new OcrError("OCR of the page took too long and was stopped", "OCR_TIMEOUT");
  }
  if (error instanceof Error && error.name === "AbortError") {
    return new OcrError("OCR of the page was cancelled", "OCR_ABORTED");
  }
  return new OcrError(`OCR failed: ${error instanceof Error ? error.message : String(error)}`, "OCR_FAILED");
}

/** The error a reader throws when its context's signal aborted: OCR_TIMEOUT for the time limit, else OCR_ABORTED. */
export function abortedError(signal: AbortSignal): OcrError {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === "TimeoutError") return asOcrError(reason);
  return new OcrError("OCR of the page was cancelled", "OCR_ABORTED");
}
