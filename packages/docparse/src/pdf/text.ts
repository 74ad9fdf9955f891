import type { PDFPageProxy, TextContent } from "pdfjs-dist/types/src/display/api.js";
import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import { composeAccents, composeInline, withoutAccentKernSpaces } from "./accents.ts";
import { carriesOn } from "./clipped-text.ts";
import { corkLigatures } from "./cork-ligatures.ts";
import type { DrawnSizes } from "./drawn-sizes.ts";
import { euroFontText } from "./euro-font.ts";
import { withoutFallbackGlyphs } from "./fallback-glyphs.ts";
import { type Drawn, respellLigatures } from "./glyph-names.ts";
import { latinHomoglyphs } from "./homoglyphs.ts";
import { type ItemGap, joinTrackedLetters } from "./letter-spacing.ts";
import { respelled } from "./ligatures.ts";
import { isListMarker, MARKER_TEXT } from "./list-markers.ts";
import { apply, inverse, multiply } from "./matrix.ts";
import { softHyphensRead } from "./soft-hyphens.ts";
import { symbolFontText } from "./symbol-font.ts";
import { acrossLinesUpright, columnAdvance, columnCorners } from "./vertical-writing.ts";

/** pdf.js's text item, as far as we read it. */
export interface PdfTextItem {
  str: string;
  dir: string;
  width: number;
  height: number;
  transform: number[];
  fontName: string;
}

export interface FontStyle {
  ascent: number;
  descent: number;
  vertical: boolean;
}

interface FontFace {
  name: string;
  bold: boolean;
  italic: boolean;
}

/** `ABCDEF+Times-BoldItalic` → `Times-BoldItalic`. */
export function baseFontName(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, "");
}

/**
 * Weight and slant from a font's name: PDF fonts rarely state them otherwise. Covers the common spellings
 * (`-Bold`, `,Bold`, `Semibold`, `Black`, `Heavy`, `Oblique`, `Italic`), the foundries' abbreviations
 * (`-BdCn`, `-BlkCn`, `-HvCn`) and TeX's (`CMBX10`, `SFBX1000`,
 * `CMTI10`, `SFTI1000`, `CMSL`).
 */
export function fontFace(rawName: string): FontFace {
  const name = baseFontName(rawName);
  // Type foundries abbreviate the weight after the family, in capitals: `-Bd`, `-BdCn`, `-BdIt`, `-BlkCn`, `-HvCn`.
  const bold =
    /bold|black|heavy|semibold|demi|[-,]bd\b|^(cm|sf|ec|tc)bx|^(cm|sf)b\d|\bmedi/i.test(name) ||
    /[-,](Bd|Blk|Hv)(?=[A-Z]|$)/.test(name);
  const italic = /italic|oblique|[-,]it\b|^(cm|sf|ec)(ti|sl|mi)\d|-ital/i.test(name);
  return { name, bold, italic };
}

/** Degrees a baseline may lie off the nearest axis and still be read as upright or sideways text. */
const SLANT_DEGREES = 15;

/** True when the matrix `m` draws its baseline on a slant: 15° or more off both the horizontal and the vertical. */
function slantedBaseline(m: readonly number[]): boolean {
  const degrees = (Math.abs(Math.atan2(m[1], m[0])) * 180) / Math.PI;
  const offAxis = degrees % 90;
  return Math.min(offAxis, 90 - offAxis) >= SLANT_DEGREES;
}

/** Ligatures spelled out. */
const LIGATURES: Record<string, string> = {
  "\uFB00": "ff",
  "\uFB01": "fi",
  "\uFB02": "fl",
  "\uFB03": "ffi",
  "\uFB04": "ffl",
  "\uFB05": "st",
  "\uFB06": "st",
};
/**
 * Ligatures and presentation forms spelled out, soft hyphens read (`softHyphensRead`), zero-width marks dropped, an accent glyph
 * before its letter composed with it, TeX's doubled single quotes (‘‘ ’’) read as the double quotes they show, and
 * Cyrillic look-alikes inside Latin words read as the Latin letters they show (`latinHomoglyphs`).
 */
export function normalizeRunText(text: string): string {
  return (
    latinHomoglyphs(softHyphensRead(composeInline(text)))
      .replace(/[\uFB00-\uFB06]/g, (c) => LIGATURES[c] ?? c)
      .replace(/\u2018\u2018/g, "\u201C")
      .replace(/\u2019\u2019/g, "\u201D")
      // Arabic presentation forms (lam-alef ligatures, final and initial shapes) to their letters, after pdf.js
      // has put the run in logical order: decomposing before that would reverse the letters of a ligature.
      .replace(/[\uFB50-\uFDFF\uFE70-\uFEFC]+/g, (forms) => forms.normalize("NFKC"))
      .replace(/[\u200B-\u200D\uFEFF]/g, "")
      // Control characters are glyph codes of a font without a Unicode map: not text anyone can read.
      .replace(/\p{Cc}/gu, (c) => (c === "\t" || c === "\n" ? c : ""))
  );
}

/** Control characters other than tab and line feed: what pdf.js gives for a glyph code with no character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNMAPPED_CODES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNMAPPED_CODE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/**
 * Runs with their unmapped glyphs (U+FFFD in a run marked `unmapped`) removed, and runs left blank dropped: the
 * text as it reads once OCR has had its chance at them. A lone unmapped glyph leading a line is a list marker
 * (`isListMarker`) and reads as a bullet.
 */
export function dropUnmapped(runs: readonly TextRun[]): TextRun[] {
  const out: TextRun[] = [];
  for (const run of runs) {
    if (!run.unmapped) {
      out.push(run);
      continue;
    }
    const { unmapped: _, ...rest } = run;
    if (isListMarker(run, runs)) {
      out.push({ ...rest, text: MARKER_TEXT });
      continue;
    }
    const text = run.text.replace(/\uFFFD/g, "");
    if (text.trim() !== "") out.push({ ...rest, text });
  }
  return out;
}

/**
 * Runs without the copies of text drawn twice in place (a second pass over the same words for a bolder look, a
 * shadow under them): a run repeating an earlier one's text in the same font and size, its box within half a
 * point of it, goes.
 */
export function withoutOverprints(runs: readonly TextRun[]): TextRun[] {
  const seen = new Map<string, TextRun[]>();
  const out: TextRun[] = [];
  for (const run of runs) {
    const key = `${run.fontName}\u0000${run.fontSize}\u0000${run.text}`;
    const same = seen.get(key) ?? [];
    const near = (a: number, b: number) => Math.abs(a - b) <= 0.5;
    if (
      same.some((s) => near(s.box.x1, run.box.x1) && near(s.box.y1, run.box.y1) && near(s.box.x2, run.box.x2))
    )
      continue;
    same.push(run);
    seen.set(key, same);
    out.push(run);
  }
  return out;
}

/** Hebrew, Arabic and their presentation forms: a run holding them reads right to left. */
const RTL_CHARS = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/** Type spans about an em from descender to ascender; metrics claiming far more are a font's bounding box. */
const MAX_TYPE_SPAN = 1.35;

/**
 * How far a font's glyphs reach above and below the baseline, in ems: its ascent and descent, or a line of type's
 * usual 0.8 and -0.2 when they are missing or span more than MAX_TYPE_SPAN (CJK fonts such as Noto Sans CJK state
 * their whole bounding box, near three ems, which would stack a label's lines into one row).
 */
export function typeExtent(style: FontStyle | undefined): { ascent: number; descent: number } {
  const ascent = style?.ascent && style.ascent > 0 ? style.ascent : 0.8;
  const descent = style?.descent && style.descent < 0 ? style.descent : -0.2;
  return ascent - descent > MAX_TYPE_SPAN ? { ascent: 0.8, descent: -0.2 } : { ascent, descent };
}

/** A word space this narrow (in ems) is not seen as a gap between the words: the makeLine threshold. */
const NARROW_SPACE = 0.15;

/**
 * Whether `space`, a blank item pdf.js made of a space glyph, separates the items `before` and `after` as a word
 * space too narrow to be seen as one: all three upright on one baseline in one font and size, in this order along it, each starting about
 * where the one before ends.
 */
export function wordSpaceBetween(before: PdfTextItem, space: PdfTextItem, after: PdfTextItem): boolean {
  const upright = (item: PdfTextItem) => item.transform[1] === 0 && item.transform[2] === 0;
  const size = Math.abs(before.transform[3]);
  const near = (a: number, b: number) => Math.abs(a - b) <= size * 0.3;
  return (
    [before, space, after].every((item) => upright(item) && !RTL_CHARS.test(item.str)) &&
    space.fontName === before.fontName &&
    after.fontName === before.fontName &&
    [0, 3, 5].every(
      (i) => near(space.transform[i], before.transform[i]) && after.transform[i] === before.transform[i],
    ) &&
    // Only a space narrower than the gap the line builder reads as one needs keeping (and pdf.js's own spaces
    // for wide gaps between separately drawn texts are not glyphs).
    space.width < size * NARROW_SPACE &&
    near(space.transform[4], before.transform[4] + before.width) &&
    near(after.transform[4], space.transform[4] + space.width)
  );
}

/**
 * Whether `space`, a blank item pdf.js made of a space glyph, stands between the items `before` and `after` on
 * one baseline, each starting about where the one before ends: a word space, whatever fonts the words are in.
 */
export function spaceGlyphBetween(before: PdfTextItem, space: PdfTextItem, after: PdfTextItem): boolean {
  const level = (item: PdfTextItem) => item.transform[1] === 0 && item.transform[0] > 0;
  const size = Math.abs(before.transform[3]);
  const near = (a: number, b: number) => Math.abs(a - b) <= size * 0.3;
  return (
    [before, space, after].every((item) => level(item) && !RTL_CHARS.test(item.str)) &&
    near(space.transform[5], before.transform[5]) &&
    near(after.transform[5], before.transform[5]) &&
    near(space.transform[4], before.transform[4] + before.width) &&
    near(after.transform[4], space.transform[4] + space.width)
  );
}

/** Words of a page to spell otherwise, found in its operator list: pdf.js's spelling to the right one. */
export interface GlyphWords {
  /** Right-to-left words with a ligature pdf.js reversed (`rtlLigatureWords`). */
  rtlLigatures: ReadonlyMap<string, string>;
  /** Per font, the characters of glyphs its ToUnicode leaves out (`fallbackGlyphs`), read as word breaks. */
  fallbacks: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per font, its glyphs when some are ligatures its ToUnicode reads short (`shortLigatures`). */
  ligatures?: ReadonlyMap<string, Drawn[]>;
  /** Cork-encoded bitmap fonts (`corkFonts`), whose control characters are ligatures. */
  cork?: ReadonlySet<string>;
  /** Fonts whose every glyph is read as its own code, no text (`codeOnlyFonts`): their items read as unmapped. */
  codeOnly?: ReadonlySet<string>;
  /** The size each character is drawn at, for items pdf.js sized from a first glyph of another size. */
  sizes?: DrawnSizes;
}

/**
 * The text runs of a page in the model's coordinates (points, origin top left, the page's rotation applied), and
 * the quarter turns most of its text is set at. Given `upright`, a page whose text is turned is read again from
 * the same text content in the frame `upright` returns for those turns; on a page turned for its vertical writing,
 * the text set across it is kept as lines, in blocks whose places come as `acrossBlocks` (vertical-writing.ts).
 * Needs the page's operator list to have been read first, so that fonts are loaded and named; `words` found in it
 * put right-to-left ligatures back in order and leave out glyphs a font's ToUnicode does not map.
 */
export async function pageTextRuns(
  page: PDFPageProxy,
  viewportTransform: readonly number[],
  upright?: (quarterTurns: 1 | 2 | 3) => readonly number[],
  words: GlyphWords = { rtlLigatures: new Map(), fallbacks: new Map() },
): Promise<{ runs: TextRun[]; quarterTurns: 0 | 1 | 2 | 3; acrossBlocks?: Box[] }> {
  const content = await page.getTextContent({ disableNormalization: true });
  // Letter-spaced words joined first, while the gaps noted in the worker still point into the items' text.
  for (const item of content.items) {
    const gaps = (item as { svcGaps?: ItemGap[] }).svcGaps;
    if ("str" in item && gaps) item.str = joinTrackedLetters(item.str, gaps);
  }
  // First, while the items still hold the characters the glyphs were read as.
  if (words.ligatures)
    respellLigatures(
      content.items.filter((item) => "str" in item),
      words.ligatures,
    );
  for (const item of content.items) {
    if (!("str" in item)) continue;
    if (item.dir === "rtl") item.str = respelled(item.str, words.rtlLigatures);
    if (words.cork?.has(item.fontName)) item.str = corkLigatures(item.str);
    item.str = withoutFallbackGlyphs(item.str, words.fallbacks.get(item.fontName));
    // Glyph numbers, not text: each glyph an unmapped code, so that the run is found garbled and read by OCR.
    if (words.codeOnly?.has(item.fontName)) item.str = item.str.replace(/\S/gu, "\u0001");
  }
  const read = textRuns(page, content, viewportTransform, words.sizes);
  if (read.quarterTurns === 0 || !upright) return { runs: read.runs, quarterTurns: read.quarterTurns };
  words.sizes?.restart();
  const turnedTransform = upright(read.quarterTurns);
  const turned = textRuns(page, content, turnedTransform, words.sizes);
  if (read.writtenDown * 2 <= read.characters) return { runs: turned.runs, quarterTurns: read.quarterTurns };
  // A page turned for its vertical writing keeps the lines it sets across as lines (vertical-writing.ts).
  const toTurned = multiply(turnedTransform, inverse(viewportTransform));
  const across = acrossLinesUpright(read.runs, turned.runs, (x, y) => apply(toTurned, x, y));
  return { runs: across.runs, quarterTurns: read.quarterTurns, acrossBlocks: across.blocks };
}

function textRuns(
  page: PDFPageProxy,
  content: TextContent,
  viewportTransform: readonly number[],
  sizes?: DrawnSizes,
): { runs: TextRun[]; quarterTurns: 0 | 1 | 2 | 3; characters: number; writtenDown: number } {
  const turns = [0, 0, 0, 0];
  // Characters in vertical writing (a font writing down the page), of all counted in `turns`.
  let writtenDown = 0;
  const styles = content.styles as Record<string, FontStyle>;
  const faces = new Map<string, FontFace>();
  const runs: TextRun[] = [];
  // Where each run's glyphs end along x (before any move pdf.js read as a space after them, and before a last
  // character it set apart by a space), NaN when not known.
  const glyphEnds: number[] = [];
  // The item the last run was made from, and a space glyph drawn since it (pdf.js gives it an item of its own).
  let last: { item: PdfTextItem; run: TextRun } | null = null;
  let space: PdfTextItem | null = null;
  for (const raw of content.items) {
    if (!("str" in raw)) continue;
    const item = raw as PdfTextItem;
    // Glyph codes pdf.js found no character for come as control characters: each kept as U+FFFD, so that the
    // run can be found garbled and read by OCR (dropUnmapped removes what is left of them).
    const unmapped = UNMAPPED_CODE.test(item.str);
    let text = normalizeRunText(unmapped ? item.str.replace(UNMAPPED_CODES, "\uFFFD") : item.str);
    // A capital drawn mirrored left to right (XeTeX's reversed `E`) opening an item: pdf.js reads the move back
    // after it as a space; it is a logo's letter, one word with what follows it.
    const t = item.transform;
    if (t[0] < 0 && t[3] > 0 && t[1] === 0 && t[2] === 0) text = text.replace(/^(\p{Lu})\s(?=\p{L})/u, "$1");
    if (text.trim() === "") {
      space = item.str === "" ? null : item;
      continue;
    }
    const spaced = space;
    space = null;
    let face = faces.get(item.fontName);
    if (!face) {
      let rawName = "";
      try {
        rawName = (page.commonObjs.get(item.fontName) as { name?: string } | null)?.name ?? "";
      } catch {
        // A font that failed to load has no object; its runs keep a neutral face.
      }
      face = fontFace(rawName);
      faces.set(item.fontName, face);
    }
    text = euroFontText(face.name, symbolFontText(face.name, text));
    const style = styles[item.fontName];
    const m = multiply(viewportTransform, item.transform);
    // Text space: the run goes from (0,0) to (width, 0) along the baseline, glyphs from descent to ascent.
    const size = Math.hypot(item.transform[2], item.transform[3]) || item.height;
    if (size <= 0) continue;
    // Most of the item's characters drawn at another size than its first: the item takes theirs.
    const resized = item.dir === "rtl" ? 1 : (sizes?.ratio(item.str) ?? 1);
    // The glyphs' advance, up to a last character set apart by a space (an accent pdf.js put in this item).
    const drawn = item.str.replace(/\s+/g, "").length - (/\s\S$/u.test(item.str) ? 1 : 0);
    const writesDown = style?.vertical === true;
    const advance = item.dir === "rtl" || writesDown ? undefined : sizes?.lastAdvance(drawn);
    const extent = typeExtent(style);
    const ascent = extent.ascent * resized;
    const descent = extent.descent * resized;
    // item.width is in user space along the baseline; express it in text space units of the run's matrix.
    const scaleX = Math.hypot(item.transform[0], item.transform[1]) || size;
    const w = item.width / scaleX;
    const corners = writesDown
      ? columnCorners((x, y) => apply(m, x, y), w, item.height / size)
      : [apply(m, 0, descent), apply(m, w, descent), apply(m, 0, ascent), apply(m, w, ascent)];
    const xs = corners.map((c) => c[0]);
    const ys = corners.map((c) => c[1]);
    const bbox: Box = { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
    // The way the glyphs advance on the page: along the baseline, or down the column in vertical writing.
    const [ax, ay] = writesDown ? columnAdvance(m) : [m[0], m[1]];
    const vertical = Math.abs(ay) > Math.abs(ax);
    const slanted = !writesDown && slantedBaseline(m);
    // Quarter turns of the advance on the page: 0 reads left to right, 1 downwards, 2 upside down, 3 upwards.
    const quarter = (((Math.round(Math.atan2(ay, ax) / (Math.PI / 2)) % 4) + 4) % 4) as 0 | 1 | 2 | 3;
    turns[quarter] += text.length;
    if (writesDown) writtenDown += text.length;
    if (
      last &&
      (item as { svcClipped?: boolean }).svcClipped &&
      !last.run.vertical &&
      !vertical &&
      carriesOn(
        {
          x2: last.run.box.x2,
          baseline: multiply(viewportTransform, last.item.transform)[5],
          size: last.run.fontSize,
        },
        m[4],
        m[5],
      )
    ) {
      // The hidden rest of a clipped entry (clipped-text.ts): its text, not its extent; the run knows its cell.
      last.run.text += spaced ? ` ${text}` : text;
      const clip = (item as { svcClipBox?: number[] | null }).svcClipBox;
      if (clip && !last.run.clip) {
        const [x1, y1, x2, y2] = clip;
        last.run.clip = box.mapped({ x1, y1, x2, y2 }, (x, y) => apply(viewportTransform, x, y));
      }
      if (unmapped) last.run.unmapped = true;
      last.item = item;
      glyphEnds[glyphEnds.length - 1] = Number.NaN;
      continue;
    }
    if (last && spaced && wordSpaceBetween(last.item, spaced, item)) {
      // Words set with a narrow space glyph between them (tight table cells) stay words: one run, spaced.
      last.run.text += ` ${text}`;
      if (unmapped) last.run.unmapped = true;
      last.run.box = box.union([last.run.box, bbox]);
      last.item = item;
      glyphEnds[glyphEnds.length - 1] = Number.NaN;
      continue;
    }
    const run: TextRun = {
      text,
      box: bbox,
      // A space glyph drawn between the last item and this one, in another font or slant (a bold, underlined or
      // italic word and the plain word after it): the two are words apart however close their boxes come.
      ...(last && spaced && spaceGlyphBetween(last.item, spaced, item) ? { spaceBefore: true } : {}),
      fontName: face.name,
      fontSize: Math.round(Math.hypot(m[2], m[3]) * resized * 100) / 100 || size,
      bold: face.bold,
      italic: face.italic,
      dir: item.dir === "rtl" || RTL_CHARS.test(text) ? "rtl" : "ltr",
      confidence: 1,
      ...(vertical ? { vertical: true } : {}),
      ...(slanted ? { slanted: true } : {}),
      ...(unmapped ? { unmapped: true } : {}),
    };
    runs.push(run);
    // In the item's text space a glyph advance of one font size is one unit along x (its matrix carries the size).
    glyphEnds.push(
      advance !== undefined && m[0] > 0 && Math.abs(m[1]) < 1e-6 ? apply(m, advance, 0)[0] : Number.NaN,
    );
    last = { item, run };
  }
  // The way most characters run: a page whose text all runs downwards is shown turned, and is read turned back.
  const quarterTurns = turns.indexOf(Math.max(...turns)) as 0 | 1 | 2 | 3;
  const characters = turns.reduce((sum, n) => sum + n, 0);
  return {
    runs: withoutOverprints(composeAccents(withoutAccentKernSpaces(runs, glyphEnds))),
    quarterTurns,
    characters,
    writtenDown,
  };
}
