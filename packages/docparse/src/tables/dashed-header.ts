import type { Box } from "../model.ts";
import { box, type DetectedTable, type PageGeometry } from "../paginated/geometry.ts";
import { fixedWidthFace } from "../paginated/printout-rows.ts";
import { type WordLine, wordLines } from "./aligned.ts";
import { finishTable, type Lattice, latticeRegions, type TextPiece } from "./cells.ts";

/**
 * A printout's table under a dashed header. A report printed from a database (a line printer's, SQL*Plus's) sets
 * its column names on one line and under each a run of dashes as wide as the column, in a fixed-width face; a
 * record too wide for one line takes two or more, each under a header line of its own with dashes of its own
 * (`TYPE ITEM MAKE …` over `SERIAL NUMBER REPORT/TAG NUMBER …`). The dashes give each column's extent exactly,
 * where alignment alone cannot: a record's fields are padded to their columns, but its second line's fields stand
 * at other columns than its first's, and fixed-width text is otherwise read as a listing, never a table.
 *
 * The header levels are the pairs of a line of names over a line of dashes, stacked; the rows are the header
 * lines and each line under them, a record's lines taking the levels in turn (a blank line starts a record). Every
 * line is a row; a line's words fill the columns of its level by where they start, and a level's column spans
 * the columns the other levels cut (the first line's `MAKE` spans the second line's `CASE/FILE NUMBER` and
 * `STORAGE LOCATION` starts). The table ends at the first line with a word across one of its level's column
 * starts (a legend at the foot), or at a blank of more than two lines.
 */

/** A run of dashes under a column's name: three at least. */
const DASHES = /^-{3,}$/;
/** The fewest columns a level's dashes mark. */
const MIN_COLUMNS = 2;
/** Line heights: a blank between two lines wider than this ends the table. */
const MAX_BLANK = 2.5;

interface Level {
  /** Where each column starts, left to right. */
  starts: number[];
  header: WordLine;
}

/** A line of dash runs alone, in a fixed-width face. */
function dashLine(line: WordLine): boolean {
  return (
    line.words.length >= MIN_COLUMNS &&
    line.words.every((w) => DASHES.test(w.text) && fixedWidthFace(w.fontName))
  );
}

/** The column of `starts` a field starting at `x` stands in, or -1 left of them all. */
function columnAt(starts: readonly number[], x: number, tolerance: number): number {
  let found = -1;
  starts.forEach((start, i) => {
    if (x >= start - tolerance) found = i;
  });
  return found;
}

/** Whether a line keeps to the level's columns: no word of it runs across a column's start. */
function keepsTo(level: Level, line: WordLine, tolerance: number): boolean {
  return line.words.every(
    (w) => !level.starts.some((x) => w.box.x1 < x - tolerance && w.box.x2 > x + tolerance),
  );
}

/** The tables under dashed headers on a page, outside `exclude`. */
export function detectDashedHeaderTables(page: PageGeometry, exclude: readonly Box[] = []): DetectedTable[] {
  const runs = page.runs.filter(
    (run) =>
      !run.vertical &&
      fixedWidthFace(run.fontName) &&
      !exclude.some((b) => box.containsCenter(b, run.box, 1)),
  );
  if (!runs.some((run) => /-{3,}/.test(run.text))) return [];
  const lines = wordLines(runs);
  const tables: DetectedTable[] = [];
  let i = 1;
  while (i < lines.length) {
    if (!dashLine(lines[i])) {
      i++;
      continue;
    }
    const read = tableFrom(lines, i - 1);
    if (read) {
      tables.push(read.table);
      i = read.end;
    } else i++;
  }
  return tables;
}

/** The table whose first header line is `lines[first]`, and the index of the line after it; null when none. */
function tableFrom(lines: readonly WordLine[], first: number): { table: DetectedTable; end: number } | null {
  const levels: Level[] = [];
  let k = first;
  while (k + 1 < lines.length && dashLine(lines[k + 1]) && !dashLine(lines[k])) {
    const header = lines[k];
    const dashes = lines[k + 1];
    const height = header.y2 - header.y1;
    if (dashes.y1 - header.y2 > height) break;
    const starts = [...dashes.words].sort((a, b) => a.box.x1 - b.box.x1).map((w) => w.box.x1);
    // Each name stands over a run of dashes.
    const tolerance = header.fontSize * 0.3;
    const over = header.words.every((w) =>
      dashes.words.some((d) => w.box.x1 >= d.box.x1 - tolerance && w.box.x2 <= d.box.x2 + tolerance),
    );
    if (!over) break;
    levels.push({ starts, header });
    k += 2;
  }
  if (levels.length === 0) return null;
  const size = levels[0].header.fontSize;
  const tolerance = size * 0.3;
  // The rows: the header lines, then the records' lines.
  const rows: { line: WordLine; level: Level }[] = levels.map((level) => ({ line: level.header, level }));
  let index = levels.length;
  let previous = lines[k - 1];
  for (; k < lines.length; k++) {
    const line = lines[k];
    const height = line.y2 - line.y1;
    const gap = line.y1 - previous.y2;
    if (gap > MAX_BLANK * height) break;
    // A blank line starts a record; a record's lines take the levels in turn.
    index = gap > 0.5 * height || index + 1 >= levels.length ? 0 : index + 1;
    const level = levels[index];
    if (dashLine(line) || !keepsTo(level, line, tolerance)) break;
    rows.push({ line, level });
    previous = line;
  }
  if (rows.length < levels.length + 2) return null;
  // The columns: every level's starts, those of one place merged.
  const starts: number[] = [];
  for (const x of levels.flatMap((level) => level.starts).sort((a, b) => a - b))
    if (starts.length === 0 || x - starts[starts.length - 1] > tolerance) starts.push(x);
  const right = Math.max(...rows.flatMap((row) => row.line.words.map((w) => w.box.x2)));
  const xs = [...starts, right + 0.01];
  const ys = [rows[0].line.y1];
  for (let r = 1; r < rows.length; r++)
    ys.push(Math.max(ys[r - 1] + 0.01, (rows[r - 1].line.y2 + rows[r].line.y1) / 2));
  ys.push(Math.max(ys[ys.length - 1] + 0.01, rows[rows.length - 1].line.y2));
  const lattice: Lattice = {
    xs,
    ys,
    vSplit: (c, r) => rows[r].level.starts.some((x) => Math.abs(x - xs[c]) <= tolerance),
    hSplit: () => true,
    drawn: () => false,
  };
  const { regions, owner } = latticeRegions(lattice);
  const contents: TextPiece[][] = regions.map(() => []);
  rows.forEach((row, r) => {
    for (const word of row.line.words) {
      const c = columnAt(starts, word.box.x1, tolerance);
      contents[owner[r * starts.length + Math.max(0, c)]].push(word);
    }
  });
  const table = finishTable({ lattice, regions, contents, headerRows: levels.length, method: "aligned" });
  return table ? { table, end: k } : null;
}
