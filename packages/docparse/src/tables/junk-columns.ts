import { cellText, type TextPiece } from "./cells.ts";
import type { Grid, Interval } from "./grid.ts";

/**
 * OCR reads a scanned table's ruling (its frame's side, a rule between columns) as signs shaped like a stroke:
 * `|`, `)`, `l`, `I`. Standing apart from the text, they would make a column of an aligned table of their own, a
 * column of nothing. A column of OCR's words whose filled cells are all such signs, one of them at least a sign
 * no letter is (a column of `l` alone may be litres), is no column: its words are left out and its strip joins the
 * column beside it, so the table still covers them. A text layer's signs were typed (a court caption's column of
 * `)` between the parties and the case's numbers) and stay.
 */

/** A cell of stroke-shaped signs only. */
const RULE_LIKE = /^[|()[\]!lI]{1,3}$/;
/** A stroke-shaped sign that is no letter. */
const SIGN = /[|()[\]!]/;

/** The columns of a grid made of rule-like junk (see above), left to right. */
export function junkColumns(grid: Grid): number[] {
  return grid.columns.flatMap((_, c) => {
    const words = grid.rows.flatMap((row) => row[c]);
    if (words.length === 0 || words.some((w) => w.fontName !== "ocr")) return [];
    const cells = grid.rows.map((row) => cellText(row[c])).filter((text) => text !== "");
    const junk = cells.every((text) => RULE_LIKE.test(text)) && cells.some((t) => SIGN.test(t));
    return junk ? [c] : [];
  });
}

/** The words of the given columns of a grid. */
export function columnWords(grid: Grid, columns: readonly number[]): Set<TextPiece> {
  return new Set(columns.flatMap((c) => grid.rows.flatMap((row) => row[c])));
}

/** The columns with each junk column's strip joined to the column on its left (on its right for the first). */
export function withoutJunkColumns(columns: readonly Interval[], junk: readonly number[]): Interval[] {
  const out = columns.map((column) => ({ ...column }));
  for (const c of [...junk].sort((a, b) => b - a)) {
    if (out.length < 2) break;
    if (c > 0) out[c - 1].x2 = out[c].x2;
    else out[1].x1 = out[0].x1;
    out.splice(c, 1);
  }
  return out;
}
