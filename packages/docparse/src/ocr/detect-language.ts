import sharp from "sharp";
import { languageOfScript, latinLanguage, refineWithinScript } from "./languages.ts";
import {
  type OrientationGuess,
  type Rotation,
  readingQuality,
  readsUpright,
  readUpright,
  turn,
} from "./orientation.ts";
import { confidentPart, readRegionsInTheirScripts, stackWords, weakRegions } from "./regions.ts";
import type { TsvPage, TsvWord } from "./tsv.ts";
import type { ReadContext, WordReader } from "./word-reader.ts";

/** A page read upright in the languages found for it. */
export interface DetectedReading {
  page: TsvPage;
  rotation: Rotation;
  /** The Tesseract languages the page was read in, joined by `+`. */
  language: string;
}

/** Words read below this confidence by the English pass may be another script's. */
const DOUBTFUL_CONFIDENCE = 50;
/** At least this many doubtful words, making this share of the characters, are shown to OSD. */
const MIN_DOUBTFUL_WORDS = 4;
const MIN_DOUBTFUL_SHARE = 0.1;
/** OSD orientation below this confidence is not trusted to turn a page read in another script. */
const TRUSTED_TURN = 1.5;

/**
 * Reads a page in the languages of its own script. Most pages are English or another Latin-script language: an
 * English pass reads them confidently, and the language is told from its common words (a second pass only for a
 * language other than English). Otherwise Tesseract's OSD names the page's script (and its orientation), and the
 * page is read in that script's language; within a script, a language is refined from letters only it has
 * (Ukrainian, Persian, Urdu), and Chinese is read both simplified and traditional, the more confident winning.
 * A page mostly in Latin letters with lines in another script (English with Korean) has only its doubtful lines
 * shown to OSD, and is read in that script's language and English together. Paragraphs in yet another script
 * (a Russian paragraph on a Chinese page) read weakly, and are then read again each in its own (regions.ts).
 */
export async function readDetectingLanguage(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: Omit<ReadContext, "language">,
): Promise<DetectedReading> {
  const whole = await readWholePage(png, dpi, reader, context);
  if (!reader.detectOrientation || weakRegions(whole.page).length === 0) return whole;
  const installed = new Set(reader.languages ? await reader.languages() : ["eng"]);
  const usable = (language: string | null): language is string =>
    typeof language === "string" && language.split("+").every((code) => installed.has(code));
  const detect = reader.detectOrientation.bind(reader);
  const regions = await readRegionsInTheirScripts(
    await turn(png, whole.rotation),
    whole,
    (image, language) => reader.readWords(image, dpi, { ...context, language }),
    async (image) => (await detect(image, dpi, { ...context, language: "osd" }))?.script ?? null,
    usable,
  );
  return { ...regions, rotation: whole.rotation };
}

/** The whole page read in one script's languages (or in one script's and English). */
async function readWholePage(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: Omit<ReadContext, "language">,
): Promise<DetectedReading> {
  const installed = new Set(reader.languages ? await reader.languages() : ["eng"]);
  const read = (image: Buffer, language: string) => reader.readWords(image, dpi, { ...context, language });
  const usable = (language: string | null): language is string =>
    typeof language === "string" && language.split("+").every((code) => installed.has(code));
  const first = await read(png, "eng");
  const quality = readingQuality(first);
  if (quality.words === 0) return { page: first, rotation: 0, language: "eng" };

  let page = first;
  let rotation: Rotation = 0;
  if (!readsUpright(quality)) {
    const guess = await detectScript(png, dpi, reader, context);
    const script = guess?.script;
    const language = script && script !== "Latin" ? languageOfScript(script) : null;
    if (guess && usable(language)) {
      const turned = guess.confidence >= TRUSTED_TURN ? guess.rotation : 0;
      const image = await turn(png, turned);
      const reading = await readInScript(image, turned, language, read, usable);
      const rivals = CONFUSED[script ?? ""];
      const weak = readingQuality(judged(reading.page)).meanConfidence < WEAK_CONFIDENCE;
      if (!weak && !rivals) return reading;
      // OSD named a script it does not know well (it calls Hebrew Thai): the scripts are tried on a few lines.
      const candidates = weak ? PROBE_LANGUAGES : [reading.language, ...(rivals ?? [])];
      const probed = await probeLanguage(
        image,
        reading.page,
        candidates,
        weak ? [reading.language] : [],
        read,
        usable,
      );
      if (!probed || probed === reading.language) return reading;
      const page = await read(image, probed);
      const better = readingQuality(page).meanConfidence > readingQuality(reading.page).meanConfidence;
      return better ? { page, rotation: turned, language: probed } : reading;
    }
    if (!guess?.script) {
      // No answer from OSD (too few characters for it): the scripts are tried on a few lines of the page.
      const probed = await probeLanguage(png, first, PROBE_LANGUAGES, ["eng"], read, usable);
      if (probed) {
        const page = await read(png, probed);
        if (readingQuality(page).meanConfidence > quality.meanConfidence)
          return { page, rotation: 0, language: probed };
      }
    }
    ({ page, rotation } = await readUpright(
      png,
      dpi,
      reader,
      { ...context, language: "eng" },
      { first, guess },
    ));
  }
  const upright = await turn(png, rotation);
  const doubtful = doubtfulWords(page);
  if (doubtful && reader.detectOrientation) {
    // Words of another script amid Latin text: OSD on the whole page says Latin, on those words alone it tells.
    const strip = await stackWords(upright, doubtful);
    const guess = strip ? await reader.detectOrientation(strip, dpi, { ...context, language: "osd" }) : null;
    const other = guess?.script && guess.script !== "Latin" ? languageOfScript(guess.script) : null;
    const mixed = other ? `${other}+eng` : null;
    if (usable(mixed)) return { page: await read(upright, mixed), rotation, language: mixed };
  }
  return refineLatin(upright, page, rotation, read, usable);
}

type Read = (image: Buffer, language: string) => Promise<TsvPage>;
type Usable = (language: string | null) => language is string;

async function refineLatin(
  png: Buffer,
  page: TsvPage,
  rotation: Rotation,
  read: Read,
  usable: Usable,
): Promise<DetectedReading> {
  const language = latinLanguage(page.words.map((w) => w.text).join(" "));
  if (language === "eng" || !usable(language)) return { page, rotation, language: "eng" };
  const both = `${language}+eng`;
  return { page: await read(png, usable(both) ? both : language), rotation, language: both };
}

async function readInScript(
  png: Buffer,
  rotation: Rotation,
  language: string,
  read: Read,
  usable: Usable,
): Promise<DetectedReading> {
  let page = await read(png, language);
  let chosen = language;
  const tryLanguage = async (other: string) => {
    if (other === chosen || !usable(other)) return;
    const candidate = await read(png, other);
    if (readingQuality(candidate).meanConfidence > readingQuality(page).meanConfidence) {
      page = candidate;
      chosen = other;
    }
  };
  // OSD tells Chinese, Japanese and Korean apart poorly on a page with little text: a reading that is not
  // confident (or Korean with little Hangul) is compared with the other two.
  if (CJK.includes(language) && !fitsCjk(language, judged(page))) {
    for (const other of CJK) await tryLanguage(other);
  }
  if (chosen === "chi_sim") await tryLanguage("chi_tra");
  // Columns of vertical writing read as gibberish across: the language's vertical data reads them down.
  if ((CJK.includes(chosen) || chosen === "chi_tra") && !fitsCjk(chosen, judged(page))) {
    for (const horizontal of new Set([chosen, ...CJK])) await tryLanguage(`${horizontal}_vert`);
  }
  const better = refineWithinScript(chosen, page.words.map((w) => w.text).join(" "));
  if (usable(better)) {
    page = await read(png, better);
    chosen = better;
  }
  return { page, rotation, language: chosen };
}

const CJK = ["chi_sim", "jpn", "kor"];

/** A reading below this mean confidence is not the page's language. */
const WEAK_CONFIDENCE = 65;
/** A probe reading this confident ends the search. */
const SURE_CONFIDENCE = 85;
/** One language per script, the likeliest first, tried when OSD cannot name a page's script. */
const PROBE_LANGUAGES = ["heb", "ben", "ara", "hin", "tha", "rus", "ell", "chi_sim", "jpn", "kor", "tam"];
/** Scripts OSD names for others' pages, and the languages of those others. */
const CONFUSED: Record<string, string[]> = { Thai: ["heb"] };
/** Lines of the page the probe reads. */
const PROBE_LINES = 3;

/**
 * The language among `candidates` (less those already tried) that reads a few lines of the page most
 * confidently, or null when none reads them well. The lines are the first pass's longest ones, cut out of the
 * page: a probe costs a fraction of a page.
 */
async function probeLanguage(
  png: Buffer,
  page: TsvPage,
  candidates: readonly string[],
  tried: string[],
  read: Read,
  usable: Usable,
): Promise<string | null> {
  const lines = [...page.lines].sort((a, b) => b.width - a.width).slice(0, PROBE_LINES);
  if (lines.length === 0) return null;
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const pad = 8;
  const left = Math.max(0, Math.min(...lines.map((l) => l.left)) - pad);
  const top = Math.max(0, Math.min(...lines.map((l) => l.top)) - pad);
  const right = Math.min(width, Math.max(...lines.map((l) => l.left + l.width)) + pad);
  const bottom = Math.min(height, Math.max(...lines.map((l) => l.top + l.height)) + pad);
  if (right <= left || bottom <= top) return null;
  const crop = await sharp(png)
    .extract({ left, top, width: right - left, height: bottom - top })
    .png({ compressionLevel: 1 })
    .toBuffer();
  let best: string | null = null;
  let bestConfidence = WEAK_CONFIDENCE;
  for (const language of candidates) {
    if (tried.some((t) => t.split("+").includes(language)) || !usable(language)) continue;
    const confidence = readingQuality(await read(crop, language)).meanConfidence;
    if (confidence > bestConfidence) {
      best = language;
      bestConfidence = confidence;
    }
    if (confidence >= SURE_CONFIDENCE) break;
  }
  return best;
}

/**
 * The part of a reading that tells whether its language is the page's: the page less paragraphs in another
 * script, which regions.ts reads again in their own (OSD names their script: no full-page trials for them).
 */
function judged(page: TsvPage): TsvPage {
  return confidentPart(page) ?? page;
}

function fitsCjk(language: string, page: TsvPage): boolean {
  if (readingQuality(page).meanConfidence < 75) return false;
  if (language !== "kor") return true;
  const text = page.words.map((w) => w.text).join("");
  const hangul = text.match(/\p{Script=Hangul}/gu)?.length ?? 0;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return hangul * 2 >= letters;
}

/**
 * OSD's script and orientation. OSD reads characters at one scale: a page it cannot answer for is tried again at
 * half the size (text too large for it, or too much of it).
 */
async function detectScript(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: Omit<ReadContext, "language">,
): Promise<OrientationGuess | null> {
  if (!reader.detectOrientation) return null;
  const osdContext = { ...context, language: "osd" };
  const guess = await reader.detectOrientation(png, dpi, osdContext);
  if (guess?.script) return guess;
  const { width = 0 } = await sharp(png).metadata();
  if (width < 400) return guess;
  const half = await sharp(png)
    .resize({ width: Math.round(width / 2) })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return (await reader.detectOrientation(half, dpi / 2, osdContext)) ?? guess;
}

/** Doubtful words of an English pass, when there are enough of them to be another script's; else null. */
export function doubtfulWords(page: TsvPage): TsvWord[] | null {
  let chars = 0;
  let doubtfulChars = 0;
  const doubtful: TsvWord[] = [];
  for (const word of page.words) {
    const length = [...word.text].length;
    chars += length;
    if (word.conf >= DOUBTFUL_CONFIDENCE) continue;
    doubtful.push(word);
    doubtfulChars += length;
  }
  if (doubtful.length < MIN_DOUBTFUL_WORDS || doubtfulChars < chars * MIN_DOUBTFUL_SHARE) return null;
  return doubtful;
}
