import type { Box } from "../model.ts";
import { box, type Gap } from "./geometry.ts";

/**
 * Columns in two writing directions side by side (a parallel edition: Russian on the left, Hebrew on the right;
 * a bilingual contract, English beside Arabic). A line of the left-to-right column run long into the gutter can
 * narrow it to a word space's width, too narrow for a gutter by width, and the right-to-left column's lines
 * start wherever they end, so no column edge tells it (close-columns.ts) either. The scripts tell it: a strip
 * of whitespace through the region with the letters left of it nearly all of one direction and those right of
 * it nearly all of the other, on several rows side by side, parts text that no line reads across. One script's
 * text has no such strip (its word spaces have the same direction on both sides), and a sentence that quotes a
 * word of the other script crosses the strip on its row.
 */

/** Rows with text on both sides of the strip. */
const MIN_ROWS = 3;
/** Share of a side's letters that are of its direction (a line number's side letter, a Latin name may stray in). */
const SIDE_SHARE = 0.9;
/** Letters a side must hold, so that a few words are no column. */
const MIN_LETTERS = 40;

const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const LETTER = /\p{L}/u;

/** Left-to-right and right-to-left letters of some texts. */
function letters(texts: readonly string[]): { ltr: number; rtl: number } {
  let ltr = 0;
  let rtl = 0;
  for (const text of texts)
    for (const ch of text) {
      if (!LETTER.test(ch)) continue;
      if (RTL_LETTER.test(ch)) rtl++;
      else ltr++;
    }
  return { ltr, rtl };
}

/** Which way a side's letters run, when nearly all of them run one way. */
function direction(texts: readonly string[]): "ltr" | "rtl" | null {
  const { ltr, rtl } = letters(texts);
  if (ltr + rtl < MIN_LETTERS) return null;
  if (ltr >= (ltr + rtl) * SIDE_SHARE) return "ltr";
  if (rtl >= (ltr + rtl) * SIDE_SHARE) return "rtl";
  return null;
}

/**
 * The gaps of `narrow` (vertical whitespace through the region, too narrow for a gutter) that part text of one
 * writing direction from text of the other, on at least three rows side by side.
 */
export function scriptGutters(narrow: readonly Gap[], text: readonly { box: Box; text?: string }[]): Gap[] {
  return narrow.filter((gap) => {
    const left = text.filter((t) => t.box.x2 <= gap.start + 0.01);
    const right = text.filter((t) => t.box.x1 >= gap.end - 0.01);
    const leftWay = direction(left.map((t) => t.text ?? ""));
    const rightWay = direction(right.map((t) => t.text ?? ""));
    if (!leftWay || !rightWay || leftWay === rightWay) return false;
    const rows = right.filter((r) => left.some((l) => box.overlapY(l.box, r.box) > 0));
    return rows.length >= MIN_ROWS;
  });
}
