/**
 * The header of a horizontally ruled table that has no top rule: the rule under the header is the table's first
 * (an invoice's item table, a bank statement's entries), its header labels stand just above it. The labels are
 * taken into the table when they line up with the columns of the rows below the rule: each label over one column,
 * three columns or more labelled, and no number among them (a caption or a paragraph above a rule is neither)
 * unless the numbers are a row of years heading columns of figures (a key-figures table: 2024 2025e 2026e).
 */
import type { TextRun } from "../paginated/geometry.ts";
import { mergeCoverage, type WordLine, wordLines } from "./aligned.ts";
import { isNumeric, type TextPiece } from "./cells.ts";
import { runsIn } from "./ruled-frame.ts";

/** Header lines wrapped under one another stand at most this many ems apart (baseline to top of the next). */
const WRAP_GAP = 0.8;
/** The header's last line ends at most this many ems above the rule under it. */
const RULE_GAP = 1.5;
/** The most lines a wrapped header label runs to. */
const MAX_LINES = 4;

/**
 * The top of the header over a table's first rule at `top`, spanning `x1`..`x2`, or null when the text above the
 * rule is no header of the rows below. `body` is the lines of the rows between the first rules.
 */
export function headerAbove(
  runs: readonly TextRun[],
  top: number,
  x1: number,
  x2: number,
  body: readonly WordLine[],
): number | null {
  const data = body.filter((l) => l.segments.length >= 2);
  if (data.length === 0 || !body.some((l) => l.words.some((w) => isNumeric(w.text)))) return null;
  const size = Math.max(...body.map((l) => l.fontSize));
  const above = wordLines(runsIn(runs, { x1, y1: top - (MAX_LINES + 1) * 2 * size, x2, y2: top })).filter(
    (l) => l.y2 <= top + 1,
  );
  const header: WordLine[] = [];
  for (let k = above.length - 1; k >= 0 && header.length < MAX_LINES; k--) {
    const line = above[k];
    const below = header.length > 0 ? header[header.length - 1].y1 : top;
    const gap = below - line.y2;
    if (gap > (header.length > 0 ? WRAP_GAP : RULE_GAP) * line.fontSize) break;
    header.push(line);
  }
  if (header.length === 0) return null;
  const words = header.flatMap((l) => l.words);
  if (words.some((w) => isNumeric(w.text)) && !yearsOverFigures(words, data)) return null;
  // The columns of the rows: the text extents of their cells, merged down the rows.
  const segments = data.flatMap((l) => l.segments).sort((p, q) => p.x1 - q.x1);
  const columns = mergeCoverage(segments, []);
  if (columns.length < 3) return null;
  const labelled = new Set<number>();
  for (const line of header) {
    for (const segment of line.segments) {
      const under = columns.flatMap((c, i) => (c.x1 < segment.x2 && c.x2 > segment.x1 ? [i] : []));
      if (under.length > 1) return null;
      if (under.length === 1) labelled.add(under[0]);
    }
  }
  if (labelled.size < 3 || labelled.size < columns.length - 1) return null;
  return Math.min(...header.map((l) => l.y1));
}

/** A year heading a column, perhaps marked as an estimate or forecast (2025e, 2026E). */
const YEAR = /^(?:1[89]|20)\d\d[eE]?$/;

/**
 * Whether the header's numbers are a row of years each heading a column of figures: every number a year, the
 * years distinct and running one way (up or down) from left to right, and under each year the rows' cells are
 * figures. A year over a text column, a repeated year or a jumble of numbers is no header row.
 */
function yearsOverFigures(words: readonly TextPiece[], data: readonly WordLine[]): boolean {
  const numbers = words.filter((w) => isNumeric(w.text) || YEAR.test(w.text));
  if (numbers.length < 2 || !numbers.every((w) => YEAR.test(w.text))) return false;
  const years = [...numbers].sort((p, q) => p.box.x1 - q.box.x1).map((w) => Number.parseInt(w.text, 10));
  const steps = years.slice(1).map((y, k) => Math.sign(y - years[k]));
  if (steps.some((d) => d === 0 || d !== steps[0])) return false;
  return numbers.every((year) => {
    const under = data.flatMap((l) =>
      l.words.filter((w) => w.box.x1 < year.box.x2 && w.box.x2 > year.box.x1),
    );
    return under.length > 0 && under.every((w) => isNumeric(w.text));
  });
}
