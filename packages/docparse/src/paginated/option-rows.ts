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
