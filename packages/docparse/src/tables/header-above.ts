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
import type { Interval } from "./grid.ts";
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
  const found = headerOverRows(runs, top, x1, x2, body);
  return found !== null && found.rowsEnd === null ? found.top : null;
}

/** A header found over a rule: its top, and where its table's rows end when they end above the next rule. */
export interface HeaderOverRows {
  top: number;
  /** The bottom of the table's last row when a line under the rows bridges their columns, else null. */
  rowsEnd: number | null;
}

/** The fewest rows under the header that make a table whose rows end at a line bridging its columns. */
const MIN_ROWS = 2;

/**
 * As `headerAbove`, and when the lines between the rules do not all keep to the header's columns, the rows that
 * do: an invoice's items with only a rule under their header run on into the totals (a label and an amount set
 * under the last columns, the label bridging two of them) before the next rule. The columns are then taken from
 * the header's labels and the rows down to the first split line that bridges them (two rows or more), and the
 * table's rows end there; the lines from it on are left to be read on their own.
 */
export function headerOverRows(
  runs: readonly TextRun[],
  top: number,
  x1: number,
  x2: number,
  body: readonly WordLine[],
): HeaderOverRows | null {
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
  const headerTop = Math.min(...header.map((l) => l.y1));
  // All the lines keep to the header's columns, unless two labels of one line stand over one column of them:
  // a line under the rows bridged the two.
  const whole = labelsOverColumns(header, data);
  if (whole && !labelsShareColumn(header, data)) return { top: headerTop, rowsEnd: null };
  const kept = whole ? { top: headerTop, rowsEnd: null } : null;
  // The rows down to the first split line that leaves their columns: one of its cells bridges two of them or
  // stands in one out of line with it (a totals label set under the last columns, right-aligned to neither).
  const rows = [data[0]];
  while (rows.length < data.length && keepsTo(data[rows.length], columnsOf(rows)))
    rows.push(data[rows.length]);
  if (rows.length === data.length || rows.length < MIN_ROWS) return kept;
  if (!labelsOverColumns(header, rows) || labelsShareColumn(header, rows)) return kept;
  const next = data[rows.length];
  // The last row's wrapped lines (one cell each) stand between it and the line that leaves, close under it.
  let end = rows[rows.length - 1].y2;
  for (const line of body) {
    if (line.y1 <= end || line.y1 >= next.y1) continue;
    if (line.y1 - end > WRAP_GAP * line.fontSize) break;
    end = line.y2;
  }
  return { top: headerTop, rowsEnd: end };
}

/** How far, in ems, a cell's edge or centre may stand from its column's and still be aligned with it. */
const ALIGN = 0.5;

/**
 * Whether a line's cells keep to the columns of the rows above it: each cell over one column, aligned with it at
 * its left edge, its right edge or its centre.
 */
function keepsTo(line: WordLine, columns: readonly Interval[]): boolean {
  const tol = ALIGN * line.fontSize;
  return line.segments.every((s) => {
    const under = columns.filter((c) => c.x1 < s.x2 && c.x2 > s.x1);
    if (under.length !== 1) return false;
    const c = under[0];
    return (
      Math.abs(s.x1 - c.x1) <= tol ||
      Math.abs(s.x2 - c.x2) <= tol ||
      Math.abs(s.x1 + s.x2 - c.x1 - c.x2) <= 2 * tol
    );
  });
}

/**
 * Whether the header's labels stand one over each column of the rows: the columns are the text extents of the
 * rows' cells merged down the rows, three or more, every label over one of them, all labelled but one or fewer.
 */
function labelsOverColumns(header: readonly WordLine[], data: readonly WordLine[]): boolean {
  const columns = columnsOf(data);
  if (columns.length < 3) return false;
  const labelled = new Set<number>();
  for (const line of header) {
    for (const segment of line.segments) {
      const under = columns.flatMap((c, i) => (c.x1 < segment.x2 && c.x2 > segment.x1 ? [i] : []));
      if (under.length > 1) return false;
      if (under.length === 1) labelled.add(under[0]);
    }
  }
  return labelled.size >= 3 && labelled.size >= columns.length - 1;
}

/** Whether two labels of one header line stand over one column of the rows. */
function labelsShareColumn(header: readonly WordLine[], data: readonly WordLine[]): boolean {
  const columns = columnsOf(data);
  return header.some((line) => {
    const under = line.segments.map((s) => columns.findIndex((c) => c.x1 < s.x2 && c.x2 > s.x1));
    return under.some((i, k) => i >= 0 && under.indexOf(i) !== k);
  });
}

/** The columns of rows: the text extents of their cells, merged down the rows. */
function columnsOf(data: readonly WordLine[]): Interval[] {
  return mergeCoverage(
    data.flatMap((l) => l.segments).sort((p, q) => p.x1 - q.x1),
    [],
  );
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
