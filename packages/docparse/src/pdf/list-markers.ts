import { box, type TextRun } from "../paginated/geometry.ts";

/** What a list marker with no character of its own reads as: the bullet the list-item rule knows. */
export const MARKER_TEXT = "•";

/** How far (in ems of the text) a marker sits from its item's text: apart from it, but on the same line. */
const GAP = { min: 0.2, max: 3 };

/**
 * Whether a run is a list marker drawn from a symbol font whose glyph maps to no character (a bullet, an arrow,
 * a check box from Wingdings or a house font): one or two glyphs alone, one of them unmapped (a symbol font's
 * bullet may come as a letter and a blank glyph with no character, `r` + U+FFFD), with text-layer text starting
 * a small gap to its right on the same line and no text just before it. Such a glyph is read as a bullet rather
 * than dropped, so that its lines stay list items instead of running together into one paragraph. Beside words
 * OCR read (a font with no map for any of its text) a lone unmapped glyph is a letter of theirs, not a marker.
 */
export function isListMarker(run: TextRun, runs: readonly TextRun[]): boolean {
  const glyphs = [...run.text.trim()];
  if (!run.unmapped || glyphs.length > 2 || !glyphs.includes("\uFFFD")) return false;
  let follows = false;
  for (const other of runs) {
    if (
      other === run ||
      other.unmapped ||
      other.fontName === "ocr" ||
      box.verticalOverlap(run.box, other.box) < 0.5
    )
      continue;
    const em = other.fontSize;
    const after = other.box.x1 - run.box.x2;
    const before = run.box.x1 - other.box.x2;
    if (after >= GAP.min * em && after <= GAP.max * em) follows = true;
    if (before >= -0.1 * em && before <= GAP.max * em) return false;
  }
  return follows;
}
