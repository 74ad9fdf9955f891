/**
 * Horizontally ruled tables (the booktabs style: a top rule, a header rule, a bottom rule, columns only by
 * alignment): rules of one extent stacked down the page with tabular text between them, columns from the
 * text's whitespace rivers or from a header underlined column by column.
 */
import { box, type DetectedTable, type TextRun } from "../paginated/geometry.ts";
import {
  columnStats,
  columnsBetween,
  gridOf,
  isProse,
  sharedGaps,
  type WordLine,
  wordLines,
} from "./aligned.ts";
import { isNumeric } from "./cells.ts";
import { frameTable } from "./frame-table.ts";
import type { Interval } from "./grid.ts";
import { headerOverRows } from "./header-above.ts";
import { rowsBelow } from "./rows-below.ts";
import { lines, type Segment, SNAP } from "./rule-segments.ts";
import { type Frame, runsIn } from "./ruled-frame.ts";

/**
 * Horizontally ruled tables: rules of the same extent stacked down the page (top, header, bottom) with text
 * between them that falls into columns; shorter rules inside (cmidrules) divide header rows.
 */
export function booktabsTables(
  hs: readonly Segment[],
  runs: readonly TextRun[],
  pageRules: readonly Segment[] = hs,
): DetectedTable[] {
  const sorted = [...hs].sort((p, q) => p.pos - q.pos);
  const used = new Set<Segment>();
  const tables: DetectedTable[] = [];
  for (const first of sorted) {
    if (used.has(first)) continue;
    const width = first.b - first.a;
    if (width < 40) continue;
    const tol = Math.max(4, 0.02 * width);
    const stack = sorted.filter(
      (s) => s.pos >= first.pos && Math.abs(s.a - first.a) <= tol && Math.abs(s.b - first.b) <= tol,
    );
    if (stack.length < 2) continue;
    // The stack ends at the first band that holds no tabular text.
    let end = 0;
    // The rules opening a group of rows after a blank band: left out of the frame, the blank joins the row under it.
    const blanks = new Set<Segment>();
    for (let k = 1; k < stack.length; k++) {
      const band = runsIn(runs, {
        x1: first.a - tol,
        y1: stack[k - 1].pos,
        x2: first.b + tol,
        y2: stack[k].pos,
      });
      if (band.length === 0 && k >= 2 && blankBetweenGroups(stack, k, runs, first.a - tol, first.b + tol)) {
        blanks.add(stack[k]);
        continue;
      }
      if (band.length === 0 || !bandIsTabular(wordLines(band))) break;
      end = k;
    }
    if (end === 0) continue;
    // No top rule: the header's labels stand over the first rule, the rows of data below it; the rows may end
    // above the second rule, at a line that bridges their columns (an invoice's totals under its items).
    const body = wordLines(
      runsIn(runs, { x1: first.a - tol, y1: stack[0].pos, x2: first.b + tol, y2: stack[1].pos }),
    );
    const header = headerOverRows(runs, stack[0].pos, first.a - tol, first.b + tol, body);
    const headerTop = header?.top ?? null;
    const rowsEnd = header?.rowsEnd ?? null;
    const ruled = rowsEnd === null ? stack.slice(0, end + 1) : [first];
    for (const s of ruled) used.add(s);
    const rules = ruled.filter((s) => !blanks.has(s));
    const bottom = rowsEnd ?? rules[rules.length - 1].pos;
    const top = headerTop === null ? rules[0].pos : headerTop - 1;
    const area = { x1: first.a - tol, y1: top, x2: first.b + tol, y2: bottom };
    const ruledRuns = runsIn(runs, area);
    const textLines = wordLines(ruledRuns);
    const multi = textLines.filter((l) => l.segments.length >= 2);
    if (multi.length < 2) continue;
    const gaps = sharedGaps(multi).filter((g) => g.x1 > first.a - tol && g.x2 < first.b + tol);
    if (gaps.length === 0 || !columnsReadAsTable(textLines, gaps, rules.length)) continue;
    // Under a header rule, entries may go on past the last rule with no rule of their own (rows-below.ts).
    const below =
      rowsEnd === null && rules.length >= 3
        ? rowsBelow(runs, pageRules, textLines, gaps, { x1: area.x1, x2: area.x2, bottom })
        : null;
    const inside = below ? [...ruledRuns, ...below.runs] : ruledRuns;
    const ends = rowsEnd === null ? (below?.ys ?? []) : [rowsEnd];
    if (entriesOnly(textLines, [top, ...rules.map((s) => s.pos), ...(rowsEnd === null ? [] : ends)]))
      continue;
    const partial = sorted.filter(
      (s) =>
        s.pos > rules[0].pos + SNAP &&
        s.pos < bottom - SNAP &&
        !ruled.includes(s) &&
        s.a >= first.a - tol &&
        s.b <= first.b + tol,
    );
    for (const s of partial) used.add(s);
    const yLines = lines([...rules, ...partial]);
    const textCuts = below?.cuts ?? gaps.map((g) => (g.x1 + g.x2) / 2);
    const cuts = underlinedColumns(partial, first, textCuts, textLines) ?? textCuts;
    const frame: Frame = {
      xs: [
        Math.min(first.a, ...inside.map((r) => r.box.x1)),
        ...cuts,
        Math.max(first.b, ...inside.map((r) => r.box.x2)),
      ],
      xRules: [[], ...cuts.map(() => null), []],
      ys: [...(headerTop === null ? [] : [top]), ...yLines.map((l) => l.pos), ...ends],
      yRules: [
        ...(headerTop === null ? [] : [[]]),
        ...yLines.map((l) => l.segments),
        // Between rows below the last rule, a boundary found from the text closes every column.
        ...ends.map((pos, k) => (k < ends.length - 1 ? [{ pos, a: first.a, b: first.b, width: 0 }] : [])),
      ],
      booktabs: rules.length >= 3 || headerTop !== null,
      headerBand: headerTop !== null,
    };
    const table = frameTable(frame, inside, "ruled");
    // Between a top and a bottom rule alone (no header rule) sits many a code listing or boxed note: ask for rows.
    if (table && (frame.booktabs || rowsOfSeveralCells(table) >= 3)) tables.push(table);
    if (table && rowsEnd !== null) {
      const totals = totalsUnder(body, rowsEnd, frame.xs[frame.xs.length - 1], runs);
      if (totals) tables.push(totals);
    }
  }
  return tables;
}

/** The widest gap between two pieces of a header underline that still reads as one line broken per column. */
const UNDERLINE_GAP = 12;

/**
 * Column boundaries of a horizontally ruled table whose header is underlined column by column: one line of three
 * rules or more, each under one header cell, set a few points apart and together spanning the table. The gaps
 * between the pieces are the column boundaries, wherever the text's whitespace rivers put theirs (a river as wide
 * as the whole gap between a label column and a left-aligned number column, or one opened by a header's wrapped
 * words). A river under one piece stays a boundary only where text stands on both sides of it in two lines or
 * more (sub-columns under one header). Null when no line of the table is broken that way.
 */
function underlinedColumns(
  partial: readonly Segment[],
  span: Segment,
  textCuts: readonly number[],
  textLines: readonly WordLine[],
): number[] | null {
  for (const line of lines(partial)) {
    const pieces = [...line.segments].sort((p, q) => p.a - q.a);
    if (pieces.length < 3) continue;
    const gaps = pieces.slice(1).map((s, k) => [pieces[k].b, s.a] as const);
    if (gaps.some(([a, b]) => b - a < 0 || b - a > UNDERLINE_GAP)) continue;
    const length = pieces.reduce((sum, s) => sum + (s.b - s.a), 0);
    if (length < 0.85 * (span.b - span.a)) continue;
    const lineCount = (x1: number, x2: number) =>
      textLines.filter((l) => l.words.some((w) => box.centerX(w.box) > x1 && box.centerX(w.box) < x2)).length;
    const inner = textCuts.filter((x) => {
      const piece = pieces.find((s) => x > s.a + 2 && x < s.b - 2);
      return piece !== undefined && lineCount(piece.a, x) >= 2 && lineCount(x, piece.b) >= 2;
    });
    // In its gap, the boundary stands where the fewest words cross it: cells may start or end a little inside.
    const words = textLines.flatMap((l) => l.words);
    const crossing = (x: number) => words.filter((w) => w.box.x1 < x && w.box.x2 > x).length;
    const cuts = gaps.map(([a, b]) =>
      [(a + b) / 2, a, b].reduce((best, x) => (crossing(x) < crossing(best) ? x : best)),
    );
    return [...cuts, ...inner].sort((a, b) => a - b);
  }
  return null;
}

/** A blank band between two groups of rows is at most this many times as tall as the rows above it. */
const BLANK_ROWS = 2.5;

/**
 * Whether the empty band between rules k-1 and k of a stack only sets two groups of ruled rows apart (a
 * key-figures table's income rows, then its valuation rows): no taller than a few rows above it, and the band
 * under it holds tabular text again. The stack runs on across it, the groups one table in one set of columns.
 */
function blankBetweenGroups(
  stack: readonly Segment[],
  k: number,
  runs: readonly TextRun[],
  x1: number,
  x2: number,
): boolean {
  if (k + 1 >= stack.length) return false;
  const row = (stack[k - 1].pos - stack[0].pos) / (k - 1);
  if (stack[k].pos - stack[k - 1].pos > BLANK_ROWS * row) return false;
  const next = runsIn(runs, { x1, y1: stack[k].pos, x2, y2: stack[k + 1].pos });
  return next.length > 0 && bandIsTabular(wordLines(next));
}

/** The fewest lines of totals under an items table read as a table of their own. */
const MIN_TOTALS = 2;
/** Totals lines stand at most this many of their heights apart. */
const TOTALS_GAP = 1.5;

/**
 * The totals under an items table whose rows end above its next rule (header-above.ts): the lines from the first
 * under the rows on, each a label and an amount, the amount ending at the table's right edge `right` (its last
 * column, right-aligned) and a figure, one close under the next. Read as blocks, the labels make one paragraph and
 * the amounts another; read as the two columns they are, each label sits beside its amount.
 */
function totalsUnder(
  body: readonly WordLine[],
  rowsEnd: number,
  right: number,
  runs: readonly TextRun[],
): DetectedTable | null {
  const rows: WordLine[] = [];
  for (const line of body) {
    if (line.y1 <= rowsEnd) continue;
    const last = rows[rows.length - 1];
    if (last && line.y1 - last.y2 > TOTALS_GAP * (line.y2 - line.y1)) break;
    const [label, amount] = line.segments;
    const amountWords = line.words.filter((w) => w.box.x1 >= (amount?.x1 ?? 0) - 0.5);
    if (
      line.segments.length !== 2 ||
      Math.abs(amount.x2 - right) > 0.5 * line.fontSize ||
      !amountWords.some((w) => isNumeric(w.text)) ||
      label.x2 >= amount.x1
    )
      break;
    rows.push(line);
  }
  if (rows.length < MIN_TOTALS) return null;
  const cut =
    (Math.max(...rows.map((l) => l.segments[0].x2)) + Math.min(...rows.map((l) => l.segments[1].x1))) / 2;
  const x1 = Math.min(...rows.map((l) => l.segments[0].x1)) - 1;
  const ys = [rows[0].y1 - 1, rows[rows.length - 1].y2 + 1];
  const frame: Frame = {
    xs: [x1, cut, right + 1],
    xRules: [[], null, []],
    ys,
    yRules: ys.map(() => []),
    booktabs: false,
  };
  return frameTable(frame, runsIn(runs, { x1, y1: ys[0], x2: right + 1, y2: ys[ys.length - 1] }), "ruled");
}

function rowsOfSeveralCells(table: DetectedTable): number {
  const perRow = new Map<number, number>();
  for (const cell of table.cells) if (cell.text !== "") perRow.set(cell.row, (perRow.get(cell.row) ?? 0) + 1);
  return [...perRow.values()].filter((n) => n >= 2).length;
}

/** The fewest lines of one cell that make a ruled row an entry (a heading, a line or two, items) beside its one split line. */
const ENTRY_LINES = 3;

/**
 * Whether every ruled row that splits into cells is an entry, not a row of cells: its first line is one cell (a
 * title), and of its lines only one splits (a date beside a place) among three or more of one cell (a subtitle,
 * items, prose). A CV's or a report's entries set apart by rules are headed blocks; a table's rows stand in
 * cells side by side, the first line of a row among them.
 */
function entriesOnly(textLines: readonly WordLine[], ys: readonly number[]): boolean {
  let entries = 0;
  for (let k = 1; k < ys.length; k++) {
    const rowLines = textLines.filter((l) => (l.y1 + l.y2) / 2 > ys[k - 1] && (l.y1 + l.y2) / 2 < ys[k]);
    const split = rowLines.filter((l) => l.segments.length >= 2).length;
    if (split === 0) continue;
    const entry = split === 1 && rowLines[0].segments.length === 1 && rowLines.length - split >= ENTRY_LINES;
    if (!entry) return false;
    entries++;
  }
  return entries > 0;
}

/** A band between two rules holds tabular text: some line splits into columns, and it is not a block of prose. */
function bandIsTabular(bandLines: readonly WordLine[]): boolean {
  const multi = bandLines.filter((l) => l.segments.length >= 2);
  if (multi.length === 0) return false;
  const words = bandLines.reduce((n, l) => n + l.words.length, 0);
  return words / bandLines.length <= 12 || multi.length >= 0.5 * bandLines.length;
}

/** The columns between rules are a table's, not the two columns of a page or a list: at most one is prose. */
function columnsReadAsTable(
  textLines: readonly WordLine[],
  gaps: readonly Interval[],
  ruleCount: number,
): boolean {
  const stats = columnStats(gridOf(textLines, columnsBetween(textLines, gaps)));
  const prose = stats.filter(isProse).length;
  if (prose === 0) return true;
  // Beside a header rule, one column of running text is a table's description column.
  return prose === 1 && ruleCount >= 3 && (stats.length >= 3 || !isProse(stats[0]));
}
