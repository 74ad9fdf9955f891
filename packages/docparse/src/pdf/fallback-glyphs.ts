import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";

/**
 * Glyphs a CID font's ToUnicode leaves out. pdf.js then falls back to reading the glyph's code as a character,
 * which in a subset font is a random one (a Hangul syllable for CID 0xCEEA): text no one wrote, glued to real
 * words (`블록체인에컪픦`). In a font whose ToUnicode sends most two-byte codes elsewhere, a glyph that comes
 * back as its own code is such a fallback, and is left out, as pdftotext leaves it out. (Reading them by OCR
 * was tried: on short Korean crops Tesseract returns Latin noise, worse than leaving them out.)
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

const isFallback = (g: Glyph) =>
  typeof g.originalCharCode === "number" &&
  g.originalCharCode >= MIN_CODE &&
  g.unicode === String.fromCodePoint(g.originalCharCode);

/**
 * Words (runs of glyphs between spaces) holding fallback glyphs, as pdf.js spells them, mapped to their spelling
 * with a space for each stretch of those glyphs.
 */
export function fallbackGlyphWords(ops: PDFOperatorList): Map<string, string> {
  // Per font: how many two-byte glyphs it draws, how many of them are fallbacks, and its words.
  const fonts = new Map<string, { wide: number; fallbacks: number; words: Glyph[][] }>();
  let font = "";
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] === OPS.setFont) font = String(ops.argsArray[i]?.[0] ?? "");
    if (ops.fnArray[i] !== OPS.showText) continue;
    const glyphs = ops.argsArray[i]?.[0];
    if (!Array.isArray(glyphs)) continue;
    const stats = fonts.get(font) ?? { wide: 0, fallbacks: 0, words: [] };
    fonts.set(font, stats);
    let word: Glyph[] = [];
    for (const glyph of glyphs) {
      // Numbers are kerning.
      if (glyph === null || typeof glyph !== "object" || typeof glyph.unicode !== "string") continue;
      const g = glyph as Glyph;
      if ((g.originalCharCode ?? 0) >= MIN_CODE) stats.wide++;
      if (isFallback(g)) stats.fallbacks++;
      if (g.isSpace || /^\s+$/.test(g.unicode)) {
        if (word.length > 0) stats.words.push(word);
        word = [];
      } else word.push(g);
    }
    if (word.length > 0) stats.words.push(word);
  }
  const out = new Map<string, string>();
  for (const stats of fonts.values()) {
    if (stats.fallbacks === 0 || stats.wide < MIN_GLYPHS) continue;
    if (stats.wide - stats.fallbacks < stats.wide * MAPPED_SHARE) continue;
    for (const word of stats.words) {
      if (!word.some(isFallback)) continue;
      // What is left on either side of the unknown glyphs does not make one word.
      const kept = word.map((g) => (isFallback(g) ? " " : g.unicode)).join("");
      out.set(word.map((g) => g.unicode).join(""), kept.replace(/ +/g, " ").trim());
    }
  }
  return out;
}
