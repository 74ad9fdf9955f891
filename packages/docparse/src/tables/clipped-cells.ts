import type { Box } from "../model.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { tableOf, type WordLine, wordLines } from "./aligned.ts";
import { hasVisibleText, type TextPiece } from "./cells.ts";
import type { Interval } from "./grid.ts";

/**
 * Tables a spreadsheet's clips show. A spreadsheet printed to PDF clips a long entry to its cell's rectangle, its
 * hidden rest running on past the cell's edge (pdf/clipped-text.ts gives such a run its `clip`). Entries cut so on
 * two lines or more, by rectangles of the same left and right edges, are cells of one column: those edges are the
 * column's, as sure as a ruling, however close the next column's text stands (a ledger's cells padded by a point
 * or two, where the aligned reader needs three quarters of an em of whitespace, and whose long particulars it
 * takes for prose). The table is the block of lines around those entries with no blank line between them; its
 * other columns are parted where the block's words leave a strip of 0.4 em or more free down all its lines (wider
 * than a word space; `aligned.ts` takes such a strip between header cells too).
 */

/** How far apart two clips' edges may be and still be one column's, in points. */
const EDGE_SLACK = 0.5;

/** The narrowest strip of whitespace down a clipped block's lines that parts two columns, in ems. */
const NARROW_GAP = 0.4;

/** A column of clipped cells: the clip's x edges and the runs cut by it. */
interface ClipColumn {
  x1: number;
  x2: number;
  runs: TextRun[];
}

/** Runs cut by rectangles of the same x edges, on two lines or more. */
function clipColumns(runs: readonly TextRun[]): ClipColumn[] {
  const columns: ClipColumn[] = [];
  for (const run of runs) {
    if (!run.clip || run.vertical) continue;
    const { x1, x2 } = run.clip;
    const column = columns.find(
      (c) => Math.abs(c.x1 - x1) <= EDGE_SLACK && Math.abs(c.x2 - x2) <= EDGE_SLACK,
    );
    if (column) column.runs.push(run);
    else columns.push({ x1, x2, runs: [run] });
  }
  return columns.filter((c) => {
    const baselines = c.runs.map((r) => r.box.y2).sort((a, b) => a - b);
    return baselines.some((y, k) => k > 0 && y - baselines[k - 1] > 0.5 * c.runs[k].fontSize);
  });
}

/** Whether a line holds a run: the run's middle lies in the line's height. */
function holds(line: WordLine, run: TextRun): boolean {
  const cy = box.centerY(run.box);
  return cy >= line.y1 && cy <= line.y2;
}

/** The lines from `first` to `last` grown up and down while no blank line (1.2 line heights) parts them. */
function block(lines: readonly WordLine[], first: number, last: number): WordLine[] | null {
  const apart = (a: WordLine, b: WordLine) => b.y1 - a.y2 > 1.2 * Math.max(a.y2 - a.y1, b.y2 - b.y1);
  for (let k = first; k < last; k++) if (apart(lines[k], lines[k + 1])) return null;
  let top = first;
  let bottom = last;
  while (top > 0 && !apart(lines[top - 1], lines[top])) top--;
  while (bottom + 1 < lines.length && !apart(lines[bottom], lines[bottom + 1])) bottom++;
  return lines.slice(top, bottom + 1);
}

/**
 * The block's columns: its words' extents (a clipped cell's words held inside the clip, where the hidden rest was
 * squeezed into the visible box) parted at the clip's edges and at strips free down every line.
 */
function columnsOf(lines: readonly WordLine[], clip: ClipColumn): Interval[] {
  const inClip = (w: TextPiece) => box.centerX(w.box) > clip.x1 && box.centerX(w.box) < clip.x2;
  const extents = lines
    .flatMap((line) => line.words)
    .map((w) =>
      inClip(w)
        ? { x1: Math.max(w.box.x1, clip.x1), x2: Math.min(w.box.x2, clip.x2) }
        : { x1: w.box.x1, x2: w.box.x2 },
    )
    .sort((a, b) => a.x1 - b.x1);
  const size = Math.min(...lines.map((l) => l.fontSize));
  const columns: Interval[] = [];
  for (const e of extents) {
    const last = columns[columns.length - 1];
    const edge = last && ((last.x2 <= clip.x1 && e.x1 >= clip.x1) || (last.x2 <= clip.x2 && e.x1 >= clip.x2));
    if (last && !edge && e.x1 - last.x2 < NARROW_GAP * size) last.x2 = Math.max(last.x2, e.x2);
    else columns.push({ ...e });
  }
  return columns;
}

/**
 * The columns with a header cell alone over nothing joined to the next one, headless: a header set from its
 * column's left edge over figures set to its right edge (`Vr.No` over `38`), which a strip parts.
 */
function withHeadersOver(lines: readonly WordLine[], columns: readonly Interval[]): Interval[] {
  const filled = (c: Interval, line: WordLine) =>
    line.words.some((w) => box.centerX(w.box) >= c.x1 && box.centerX(w.box) <= c.x2);
  const headerOnly = (c: Interval) => filled(c, lines[0]) && lines.slice(1).every((line) => !filled(c, line));
  const out: Interval[] = [];
  for (let k = 0; k < columns.length; k++) {
    const next = columns[k + 1];
    if (next && headerOnly(columns[k]) && !filled(next, lines[0])) {
      out.push({ x1: columns[k].x1, x2: next.x2 });
      k++;
    } else out.push({ ...columns[k] });
  }
  return out;
}

/** The table of a block of lines parted into columns: each line a row, each word in the column holding its middle. */
function gridTable(lines: readonly WordLine[], columns: readonly Interval[]): DetectedTable | null {
  const slot = (w: TextPiece) =>
    columns.findIndex((c) => box.centerX(w.box) >= c.x1 && box.centerX(w.box) <= c.x2);
  const rows = lines.map((line) => {
    const cells: TextPiece[][] = columns.map(() => []);
    for (const w of line.words) {
      const c = slot(w);
      if (c >= 0) cells[c].push(w);
    }
    return cells;
  });
  return tableOf({ columns: [...columns], rows, rowBoxes: lines.map((l) => ({ y1: l.y1, y2: l.y2 })) });
}

/**
 * Tables of the page's clipped cells, outside the `exclude` areas (tables already found): three rows or more and
 * three columns or more, the clipped column among them.
 */
export function clippedCellTables(page: PageGeometry, exclude: readonly Box[] = []): DetectedTable[] {
  const clips = clipColumns(page.runs);
  if (clips.length === 0) return [];
  const lines = wordLines(
    page.runs.filter(
      (r) => !r.vertical && hasVisibleText(r.text) && !exclude.some((b) => box.containsCenter(b, r.box, 1)),
    ),
  );
  const tables: DetectedTable[] = [];
  for (const clip of clips) {
    const held = lines.flatMap((line, k) => (clip.runs.some((r) => holds(line, r)) ? [k] : []));
    if (held.length < 2) continue;
    const rows = block(lines, held[0], held[held.length - 1]);
    if (!rows || rows.length < 3) continue;
    if (tables.some((t) => rows.some((l) => l.y1 < t.box.y2 && l.y2 > t.box.y1))) continue;
    const columns = withHeadersOver(rows, columnsOf(rows, clip));
    if (columns.length < 3) continue;
    const table = gridTable(rows, columns);
    if (table) tables.push(table);
  }
  return tables;
}
