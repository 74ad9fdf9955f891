import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList, PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";

/**
 * Ligatures of TeX fonts in the Cork (T1) encoding, which dvips's bitmap (Type3) fonts carry with no ToUnicode and
 * glyphs named by their codes (`a29`). pdf.js reads such a glyph as the character of its code: right for T1's
 * letters, accented ones too (`é` at 0xE9), but T1 sets ff, fi, fl, ffi, ffl at 0x1B–0x1F, which read as control
 * characters and then as nothing (`Materiais utuantes`, `Adiciona uma gura`; pdftotext reads them so too). A font
 * naming a code above 0x7F is no OT1 font, which has 128 codes and other letters at 0x1B–0x1F (œ, ø, Æ, Œ, Ø).
 */

/** The Cork encoding's ligatures at codes 0x1B–0x1F, in order. */
const LIGATURES = ["ff", "fi", "fl", "ffi", "ffl"];

/** A glyph named by its code alone, as dvips names a bitmap font's (`a29`). */
const CODE_NAME = /^[A-Za-z]{0,2}\d+$/;

/** Whether a font's /Differences is a Cork-encoded bitmap font's: a ligature code and a code above 0x7F named. */
export function corkEncoded(differences: readonly (string | null | undefined)[]): boolean {
  const named = (code: number) =>
    typeof differences[code] === "string" && CODE_NAME.test(differences[code] ?? "");
  return (
    [0x1b, 0x1c, 0x1d, 0x1e, 0x1f].some(named) && differences.slice(0x80).some((_, i) => named(0x80 + i))
  );
}

/** The fonts of a page (pdf.js's loaded names) that are Cork-encoded bitmap fonts. */
export function corkFonts(page: PDFPageProxy, ops: PDFOperatorList): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] !== OPS.setFont) continue;
    const font = String(ops.argsArray[i]?.[0] ?? "");
    if (seen.has(font)) continue;
    seen.add(font);
    let differences: unknown;
    try {
      differences = (page.commonObjs.get(font) as { differences?: unknown } | null)?.differences;
    } catch {
      // A font that failed to load: no names to read.
    }
    if (Array.isArray(differences) && corkEncoded(differences)) out.add(font);
  }
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ligatures are read as these control characters
const LIGATURE_CODES = /[\u001b-\u001f]/gu;

/** An item's text in a Cork-encoded font with its ligatures read as their letters. */
export function corkLigatures(text: string): string {
  return text.replace(LIGATURE_CODES, (c) => LIGATURES[c.charCodeAt(0) - 0x1b]);
}
