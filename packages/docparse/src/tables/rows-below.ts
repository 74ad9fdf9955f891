/**
 * Rows that go on under a horizontally ruled table's last rule. A bank statement, a ledger or an invoice rules
 * its header and maybe an opening row, then sets its entries one under another with no rule between or under
 * them: the stack of rules ends above the entries and they were read as loose lines. The lines under the last
 * rule are taken into the table while they stand in its columns: close under it and under one another, each
 * word group on one side of every column boundary (a boundary moves inside its gap to where the new lines leave
 * room: a long purpose line under a right-aligned amount column), and each row's text lining up with text of
 * its column above (a left edge, a right edge or a middle). Rows are the groups of lines set apart by a blank
 * (an entry's wrapped purpose, its booking and value dates), or each line when none is; every row fills most
 * columns. A note, a source line or prose under a table fills one column, crosses a boundary or lines up with
 * nothing, and ends the rows.
 */
import { box, type TextRun } from "../paginated/geometry.ts";
import { type WordLine, wordLines } from "./aligned.ts";
import type { Interval } from "./grid.ts";
import type { Segment } from "./rule-segments.ts";

/** The first line stands at most this many ems under the last rule. */
const FIRST_GAP = 2;
/** A blank taller than this many ems between two lines ends the table. */
const END_GAP = 3;
/** A blank between two lines this many ems taller than the closest pair's sets two rows apart. */
const ROW_BLANK = 0.5;
/** Edges and middles line up within this many ems. */
const ALIGN = 0.25;
/** The fewest rows taken: a single line under a table is as likely its note (row-under.ts takes a lone row). */
const MIN_ROWS = 2;

export interface RowsBelow {
  /** The column boundaries, each moved inside its gap to where the new rows leave room. */
  cuts: number[];
  /** The boundaries of the new rows, top to bottom, from the row under the last rule's to under the last row. */
  ys: number[];
  /** The runs of the new rows. */
  runs: TextRun[];
}

/**
 * The rows under a ruled table's last rule at `bottom`, spanning `x1`–`x2`, whose lines `above` (header and
 * rows between the rules) fall into columns at the whitespace `gaps`; null when fewer than two rows stand there.
 * `rules` are the page's horizontal rules: a rule under the last rule ends the rows.
 */
export function rowsBelow(
  runs: readonly TextRun[],
  rules: readonly Segment[],
  above: readonly WordLine[],
  gaps: readonly Interval[],
  area: { x1: number; x2: number; bottom: number },
): RowsBelow | null {
  const { x1, x2, bottom } = area;
  const candidates = wordLines(
    runs.filter((r) => box.centerY(r.box) > bottom && r.box.x2 > x1 && r.box.x1 < x2),
  ).sort((p, q) => p.y1 - q.y1);
  const free = gaps.map((g) => ({ ...g }));
  const lines: WordLine[] = [];
  let prevBottom = bottom;
  for (const line of candidates) {
    const em = line.fontSize;
    const gap = line.y1 - prevBottom;
    if (gap > (lines.length === 0 ? FIRST_GAP : END_GAP) * em) break;
    if (rules.some((s) => s.pos > prevBottom + 1 && s.pos < line.y1 && s.b > x1 && s.a < x2)) break;
    if (line.segments.some((s) => s.x1 < x1 || s.x2 > x2)) break;
    const kept = keptFree(free, line, em);
    if (!kept) break;
    free.splice(0, free.length, ...kept);
    lines.push(line);
    prevBottom = line.y2;
  }
  if (lines.length < MIN_ROWS) return null;
  const cuts = free.map((g) => (g.x1 + g.x2) / 2);
  const columnOf = (s: Interval) => cuts.filter((c) => c < (s.x1 + s.x2) / 2).length;
  const reference = referenceSegments(above, columnOf);
  const rows: WordLine[][] = [];
  for (const row of rowGroups(lines)) {
    if (!standsInColumns(row, cuts.length + 1, columnOf, reference)) break;
    rows.push(row);
  }
  if (rows.length < MIN_ROWS) return null;
  const ys = rows.slice(1).map((row, k) => (rows[k][rows[k].length - 1].y2 + row[0].y1) / 2);
  const last = rows[rows.length - 1];
  const end = last[last.length - 1].y2 + 1;
  const taken = runs.filter(
    (r) => box.centerY(r.box) > bottom && box.centerY(r.box) < end && r.box.x2 > x1 && r.box.x1 < x2,
  );
  return { cuts, ys: [...ys, end], runs: taken };
}

/**
 * The free stretch of each column gap once `line` stands in the columns: its word groups narrow a gap from the
 * side they come from; null when one bridges a gap, stands inside one (a column the table does not have), or
 * leaves a gap narrower than a third of an em.
 */
function keptFree(free: readonly Interval[], line: WordLine, em: number): Interval[] | null {
  const kept: Interval[] = [];
  for (const gap of free) {
    let { x1, x2 } = gap;
    for (const s of line.segments) {
      if (s.x2 <= x1 || s.x1 >= x2) continue;
      if (s.x1 < x1 && s.x2 > x2) return null;
      if (s.x1 < x1) x1 = s.x2;
      else if (s.x2 > x2) x2 = s.x1;
      else return null;
    }
    if (x2 - x1 < em / 3) return null;
    kept.push({ x1, x2 });
  }
  return kept;
}

/** Rows of lines: groups set apart by blanks taller than the closest pair's leading, else one line each. */
function rowGroups(lines: readonly WordLine[]): WordLine[][] {
  const leads = lines.slice(1).map((line, k) => line.y1 - lines[k].y2);
  const tightest = Math.min(...leads);
  const em = Math.min(...lines.map((l) => l.fontSize));
  const rows: WordLine[][] = [[lines[0]]];
  for (let k = 1; k < lines.length; k++) {
    const blank = leads[k - 1] > tightest + ROW_BLANK * em;
    const split = blank || !leads.some((lead) => lead > tightest + ROW_BLANK * em);
    if (split) rows.push([lines[k]]);
    else rows[rows.length - 1].push(lines[k]);
  }
  return rows;
}

/** The segments of the lines above, by column. */
function referenceSegments(
  above: readonly WordLine[],
  columnOf: (s: Interval) => number,
): Map<number, Interval[]> {
  const byColumn = new Map<number, Interval[]>();
  for (const line of above) {
    for (const s of line.segments) {
      const col = columnOf(s);
      byColumn.set(col, [...(byColumn.get(col) ?? []), s]);
    }
  }
  return byColumn;
}

/**
 * Whether a row stands in the table's columns: its first line fills most of them (two at least), and in every
 * column it fills, some line of it lines up with a segment above in that column.
 */
function standsInColumns(
  row: readonly WordLine[],
  columns: number,
  columnOf: (s: Interval) => number,
  reference: Map<number, Interval[]>,
): boolean {
  const first = new Set(row[0].segments.map(columnOf));
  if (first.size < 2 || first.size * 4 < columns * 3) return false;
  const em = row[0].fontSize;
  const lined = (a: Interval, b: Interval) =>
    Math.abs(a.x1 - b.x1) <= ALIGN * em ||
    Math.abs(a.x2 - b.x2) <= ALIGN * em ||
    Math.abs(a.x1 + a.x2 - b.x1 - b.x2) <= 2 * ALIGN * em;
  const filled = new Set(row.flatMap((line) => line.segments.map(columnOf)));
  return [...filled].every((col) =>
    row.some((line) =>
      line.segments.some((s) => columnOf(s) === col && (reference.get(col) ?? []).some((r) => lined(s, r))),
    ),
  );
}
