import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";

/**
 * Glyphs a CID font's ToUnicode leaves out. pdf.js then falls back to reading the glyph's code as a character,
 * which in a subset font is a random one (a Hangul syllable for CID 0xCEEA, a Cyrillic letter or a combining
 * mark for a Devanagari conjunct): text no one wrote, glued to real words (`블록체인에컪픦`, `गिणतूारͭभेऽभी`). In a
 * font whose ToUnicode sends most two-byte codes elsewhere, a glyph that comes back as its own code is such a
 * fallback, and is read as a break between words, as pdftotext reads it. (Reading them by OCR was tried: on
 * short Korean crops Tesseract returns Latin noise, worse than leaving them out.)
 *
 * The characters are learnt per font over all of a page's shows and taken out of that font's text items: a
 * producer that sets each cluster in a show of its own (XeTeX's Devanagari) gives no whole word to match.
 */

interface Glyph {
  unicode: string;
  originalCharCode?: number;
  isSpace?: boolean;
}

/** Two-byte codes only: in a one-byte font a code read as itself is the usual case (ASCII). */
const MIN_CODE = 0x100;
/** A font must draw this many two-byte glyphs, most of them mapped elsewhere, before its others count as fallbacks. */
const MIN_GLYPHS = 10;
const MAPPED_SHARE = 0.7;

const readAsOwnCode = (g: Glyph) =>
  typeof g.originalCharCode === "number" && g.unicode === String.fromCodePoint(g.originalCharCode);

const isFallback = (g: Glyph) =>
  typeof g.originalCharCode === "number" &&
  g.originalCharCode >= MIN_CODE &&
  g.unicode === String.fromCodePoint(g.originalCharCode);

/**
 * Per font (pdf.js's loaded name, as text items carry it), the characters its fallback glyphs are read as, less
 * any character one of its mapped glyphs also gives (that one is text).
 */
export function fallbackGlyphs(ops: PDFOperatorList): Map<string, Set<string>> {
  const fonts = new Map<string, { wide: number; fallbacks: Set<string>; count: number }>();
  // First the fallbacks and the two-byte glyphs of each font; most pages have no font with fallbacks.
  eachGlyph(ops, (font, g) => {
    const stats = fonts.get(font) ?? { wide: 0, fallbacks: new Set<string>(), count: 0 };
    fonts.set(font, stats);
    if ((g.originalCharCode ?? 0) >= MIN_CODE) stats.wide++;
    if (isFallback(g)) {
      stats.count++;
      stats.fallbacks.add(g.unicode);
    }
  });
  const suspects = new Map<string, Set<string>>();
  for (const [name, stats] of fonts) {
    if (stats.count === 0 || stats.wide < MIN_GLYPHS) continue;
    if (stats.wide - stats.count < stats.wide * MAPPED_SHARE) continue;
    suspects.set(name, stats.fallbacks);
  }
  for (const [name, chars] of scriptFallbacks(ops))
    suspects.set(name, new Set([...(suspects.get(name) ?? []), ...chars]));
  if (suspects.size === 0) return suspects;
  // Then, for the fonts that have them, the characters their mapped glyphs give.
  const mapped = new Map<string, Set<string>>();
  eachGlyph(ops, (font, g) => {
    if (!suspects.has(font) || readAsOwnCode(g)) return;
    const chars = mapped.get(font) ?? new Set<string>();
    mapped.set(font, chars);
    for (const c of g.unicode) chars.add(c);
  });
  const out = new Map<string, Set<string>>();
  for (const [name, fallbacks] of suspects) {
    const chars = new Set([...fallbacks].filter((c) => !mapped.get(name)?.has(c)));
    if (chars.size > 0) out.set(name, chars);
  }
  return out;
}

/** A letter or mark of a script other than Latin (Bengali, Devanagari, Thai…). */
const OTHER_SCRIPT = /^(?=[\p{L}\p{M}])(?!\p{Script=Latin})(?!\p{Script=Common})(?!\p{Script=Inherited})/u;

/**
 * Fallbacks with one-byte codes. A subset font of an Indic script numbers its few glyphs from 1, so a conjunct its
 * ToUnicode leaves out comes back as a Latin-1 or Latin Extended character (`½`, `Ê`, `ǚ`: `অপর ǚই` for `অপর দুই`),
 * under the two-byte threshold above. In a font that is two-byte (some code of it at 0x100 or more, which no
 * simple font has) and whose mapped glyphs are mostly letters of one other script than Latin, a glyph read as its
 * own code from U+0080 up that is no letter of such a script is taken as a fallback too. ASCII stays text (a
 * digit or a bracket in such a font is the common case), and a one-byte font's Latin-1 (a Cyrillic code page's
 * `«`) is never looked at.
 */
function scriptFallbacks(ops: PDFOperatorList): Map<string, Set<string>> {
  const fonts = new Map<string, { twoByte: boolean; mapped: number; other: number; own: Set<string> }>();
  eachGlyph(ops, (font, g) => {
    const stats = fonts.get(font) ?? { twoByte: false, mapped: 0, other: 0, own: new Set<string>() };
    fonts.set(font, stats);
    const code = g.originalCharCode;
    if (typeof code !== "number") return;
    if (code >= MIN_CODE) stats.twoByte = true;
    if (readAsOwnCode(g)) {
      if (code >= 0x80 && !OTHER_SCRIPT.test(g.unicode)) stats.own.add(g.unicode);
      return;
    }
    stats.mapped++;
    if (OTHER_SCRIPT.test(g.unicode)) stats.other++;
  });
  const out = new Map<string, Set<string>>();
  for (const [name, stats] of fonts) {
    if (!stats.twoByte || stats.own.size === 0 || stats.mapped < MIN_GLYPHS) continue;
    if (stats.other < stats.mapped * MAPPED_SHARE) continue;
    out.set(name, stats.own);
  }
  return out;
}

/** Scripts among the letters of a font read as its codes beyond which they are no one's text. */
const CODE_SCRIPTS = 4;

/**
 * Two-byte fonts with no ToUnicode (or one mapping none of their glyphs) whose glyph numbers are no character codes: every glyph is read as its
 * own code (some at 0x100 or more) and the letters that gives fall in four scripts or more (`뻛ȗؘ뻜̾Ɠ`, Hangul,
 * Latin, Arabic and Armenian, for a Chinese heading `数学（理科）`). A font that uses Unicode as its codes reads as
 * one or two scripts (Chinese with Latin), and is text. Their items are read as unmapped glyphs, for OCR.
 */
export function codeOnlyFonts(ops: PDFOperatorList): Set<string> {
  const fonts = new Map<string, { glyphs: number; own: number; twoByte: boolean; scripts: Set<string> }>();
  eachGlyph(ops, (font, g) => {
    const stats = fonts.get(font) ?? { glyphs: 0, own: 0, twoByte: false, scripts: new Set<string>() };
    fonts.set(font, stats);
    stats.glyphs++;
    if (!readAsOwnCode(g)) return;
    stats.own++;
    if ((g.originalCharCode ?? 0) >= MIN_CODE) stats.twoByte = true;
    const script = scriptOf(g.unicode);
    if (script) stats.scripts.add(script);
  });
  const out = new Set<string>();
  for (const [name, stats] of fonts)
    if (stats.twoByte && stats.own === stats.glyphs && stats.scripts.size >= CODE_SCRIPTS) out.add(name);
  return out;
}

const SCRIPTS = [
  "Latin",
  "Greek",
  "Cyrillic",
  "Armenian",
  "Hebrew",
  "Arabic",
  "Thai",
  "Hangul",
  "Han",
  "Hiragana",
  "Katakana",
  "Devanagari",
  "Bengali",
  "Georgian",
  "Ethiopic",
].map((name) => [name, new RegExp(`^\\p{Script=${name}}`, "u")] as const);

/** The script of a letter or mark among the common ones, or null. */
function scriptOf(char: string): string | null {
  for (const [name, pattern] of SCRIPTS) if (pattern.test(char)) return name;
  return null;
}

/** Each drawn glyph that is not a space, with the font it is drawn in (pdf.js's loaded name). */
function eachGlyph(ops: PDFOperatorList, visit: (font: string, glyph: Glyph) => void): void {
  let font = "";
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] === OPS.setFont) font = String(ops.argsArray[i]?.[0] ?? "");
    if (ops.fnArray[i] !== OPS.showText) continue;
    const glyphs = ops.argsArray[i]?.[0];
    if (!Array.isArray(glyphs)) continue;
    for (const glyph of glyphs) {
      // Numbers are kerning.
      if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
      const g = glyph as Glyph;
      if (g.isSpace || /^\s*$/.test(g.unicode)) continue;
      visit(font, g);
    }
  }
}

/**
 * `text` with each stretch of `chars` read as a word break: a space between letters, nothing beside a space or
 * at either end of the text.
 */
export function withoutFallbackGlyphs(text: string, chars: ReadonlySet<string> | undefined): string {
  if (!chars || chars.size === 0) return text;
  let out = "";
  let gap = false;
  for (const c of text) {
    if (chars.has(c)) {
      gap = true;
      continue;
    }
    if (gap && out !== "" && !/\s$/.test(out) && !/\s/.test(c)) out += " ";
    gap = false;
    out += c;
  }
  return out;
}
