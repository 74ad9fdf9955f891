import { type OptionText, onBaseline } from "./option-columns.ts";

/**
 * A row of answer options (`1. … 2. … 3. … 4.` on one baseline, then `5. …`) whose last option stands past a strip
 * of whitespace that runs down the region (the options below end short of it): the strip would read as a column
 * gutter and send the last option after everything left of it. The numbering says otherwise: the row's options
 * run in sequence across the strip, so the parts are read along their rows. A second column of an article never
 * goes on with the numbering of the column beside it, row after row.
 */

/** `5.`, `(5)`, `5)`, `e)` at a text's start: the option's rank (letters counted from `a`) and kind. */
function optionRank(text: string): { rank: number; kind: "number" | "letter" } | null {
  const match = /^\(?(\d{1,2}|[a-z])[.)]\)?(?:\s|$)/.exec(text.trim());
  if (!match) return null;
  return /\d/.test(match[1])
    ? { rank: Number(match[1]), kind: "number" }
    : { rank: match[1].charCodeAt(0) - 96, kind: "letter" };
}

/**
 * True when an option of a part after the first goes on with a row of two or more options of the part before it
 * on its baseline (`3.`, `4.` left, `5.` right), and no option breaks such a sequence. `parts` are the columns'
 * texts, left to right. A grid of options (`1.` beside `2.`, `4.` beside `5.`) is left to the columns: read along
 * its rows, the pieces of its formulas set above and below the baseline would part from their options.
 */
export function optionsAcrossGutter(parts: readonly (readonly OptionText[])[]): boolean {
  const options = parts.flatMap((part, index) =>
    part.flatMap((e) => {
      const rank = optionRank(e.text);
      return rank === null ? [] : [{ ...e, ...rank, part: index }];
    }),
  );
  let fullRow = false;
  for (const option of options) {
    if (option.part === 0) continue;
    // The option of its kind just before it on its row, wherever it stands: one across the gutter counts (a
    // letter closing a formula, `2(i + j)`, is no option before a `5.`).
    const row = options
      .filter(
        (other) =>
          other.kind === option.kind && other.box.x2 <= option.box.x1 && onBaseline(other.box, option.box),
      )
      .sort((a, b) => a.box.x1 - b.box.x1);
    const before = row.at(-1);
    if (before === undefined || before.part === option.part) continue;
    if (before.rank !== option.rank - 1) return false;
    if (row.filter((other) => other.part === before.part).length >= 2) fullRow = true;
  }
  return fullRow;
}

/** A row needs this many lettered choices (`a`, `b`, `c`, …) to be told from letters of a formula. */
const LETTERED_ROW = 3;

/**
 * A row of choices lettered `a b c d` (each letter a text of its own, set in a box or a circle, no `)` or `.`)
 * on one baseline, running across a strip of whitespace that the rows below leave open: the strip would read as
 * a column gutter and send the row's last choices after everything left of it. The letters say otherwise: from
 * `a`, in sequence, each the next lone letter along the baseline, three or more, on both sides of the strip.
 * Letters of a formula or variables in a sentence (`p e q`) do not run `a b c` from `a`. `parts` are the columns'
 * texts, left to right.
 */
export function letteredRowAcrossGutter(parts: readonly (readonly OptionText[])[]): boolean {
  const letters = parts.flatMap((part, index) =>
    part.flatMap((e) =>
      /^[a-z]$/.test(e.text.trim()) ? [{ ...e, letter: e.text.trim(), part: index }] : [],
    ),
  );
  for (const first of letters) {
    if (first.letter !== "a") continue;
    const row = letters
      .filter((other) => other.box.x1 >= first.box.x1 && onBaseline(other.box, first.box))
      .sort((a, b) => a.box.x1 - b.box.x1);
    let run = 0;
    while (run < row.length && row[run].letter === String.fromCharCode(97 + run)) run++;
    if (run < LETTERED_ROW || run < row.length) continue;
    if (new Set(row.map((e) => e.part)).size > 1) return true;
  }
  return false;
}
