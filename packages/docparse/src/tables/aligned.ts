import type { Box } from "../model.ts";
import { BULLET_MARKS, DASH_MARKS, ENUMERATOR } from "../paginated/bullet-marks.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";
import { addressLines } from "./address.ts";
import {
  cellText,
  finishTable,
  groupLines,
  hasVisibleText,
  isNumeric,
  type Lattice,
  latticeRegions,
  runWords,
  type TextPiece,
  wrapsFrom,
} from "./cells.ts";
import { joinCurrencySigns } from "./currency.ts";
import { withGluedWordsApart } from "./glued-words.ts";
import type { Grid, Interval } from "./grid.ts";
import { joinHeaderLines } from "./header-lines.ts";
import { columnWords, junkColumns, withoutJunkColumns } from "./junk-columns.ts";
import { type HeaderGrid, headerGrids } from "./repeated-header.ts";
import { twoRowColumns } from "./two-row.ts";

/**
 * Tables without ruling lines, found from text alignment: a block of consecutive lines whose words leave the same
 * vertical strips of whitespace ("rivers") in every line. Conservative by design: paragraphs, two-column article
 * layouts and lists share a gutter too, so a candidate must also look like a table (short cells, columns filled,
 * numbers, no list markers, not a code listing in a fixed-width font) before it is reported.
 */

/** A text line as column inference sees it: its words, and their x-extents merged across small gaps. */
export interface WordLine {
  words: TextPiece[];
  /** Stretches of the line with no gap of `minGap` or more inside, left to right. */
  segments: Interval[];
  y1: number;
  y2: number;
  fontSize: number;
}

/** The smallest gap that can separate two columns, for text of this size: three quarters of an em. */
function minColumnGap(fontSize: number): number {
  return 0.75 * fontSize;
}

/** Words of a line of runs, with the line's segments. */
function wordLine(runs: readonly TextRun[]): WordLine {
  return lineOfWords(runs.filter((r) => !r.vertical).flatMap(runWords));
}

/** A line of words (sorted here), with its segments. */
function lineOfWords(pieces: readonly TextPiece[]): WordLine {
  const words = [...pieces].sort((a, b) => a.box.x1 - b.box.x1);
  const fontSize = median(words.map((w) => w.fontSize)) || 10;
  const gap = minColumnGap(fontSize);
  const segments: Interval[] = [];
  for (const w of words) {
    const last = segments[segments.length - 1];
    if (last && w.box.x1 - last.x2 < gap) last.x2 = Math.max(last.x2, w.box.x2);
    else segments.push({ x1: w.box.x1, x2: w.box.x2 });
  }
  let y1 = Number.POSITIVE_INFINITY;
  let y2 = Number.NEGATIVE_INFINITY;
  for (const w of words) {
    y1 = Math.min(y1, w.box.y1);
    y2 = Math.max(y2, w.box.y2);
  }
  return { words, segments, y1, y2, fontSize };
}

/** Lines of the page's horizontal runs, top to bottom. */
export function wordLines(runs: readonly TextRun[]): WordLine[] {
  return groupLines(runs.filter((r) => !r.vertical && hasVisibleText(r.text)))
    .map(wordLine)
    .filter((l) => l.words.length > 0);
}

/** The union of two lists of intervals sorted by their left ends (one may be empty), overlaps merged. */
export function mergeCoverage(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i].x1 <= b[j].x1) ? a[i++] : b[j++];
    const last = out[out.length - 1];
    if (last && next.x1 <= last.x2) last.x2 = Math.max(last.x2, next.x2);
    else out.push({ x1: next.x1, x2: next.x2 });
  }
  return out;
}

/** The gaps of at least `minGap` between the intervals of a coverage. */
function coverageGaps(coverage: readonly Interval[], minGap: number): Interval[] {
  const gaps: Interval[] = [];
  for (let i = 1; i < coverage.length; i++) {
    if (coverage[i].x1 - coverage[i - 1].x2 >= minGap)
      gaps.push({ x1: coverage[i - 1].x2, x2: coverage[i].x1 });
  }
  return gaps;
}

/** The whitespace rivers shared by some lines: gaps of their joint coverage. */
export function sharedGaps(lines: readonly WordLine[]): Interval[] {
  let coverage: Interval[] = [];
  for (const line of lines) coverage = mergeCoverage(coverage, line.segments);
  const size = Math.min(...lines.map((l) => l.fontSize));
  const wide = coverageGaps(coverage, minColumnGap(size));
  // Header cells set close together (less than a column gap apart, more than a word space) are still two
  // columns where most lines leave a wide river around the gap: the body's columns go up through the header.
  let words: Interval[] = [];
  for (const line of lines)
    words = mergeCoverage(
      words,
      line.words.map((w) => ({ x1: w.box.x1, x2: w.box.x2 })),
    );
  const narrow = coverageGaps(words, 0.4 * size).filter(
    (gap) =>
      !wide.some((w) => w.x1 < gap.x2 && w.x2 > gap.x1) &&
      (edgeLines(lines, gap) >= 2 || centredBelow(lines, gap, size)) &&
      riverAround(lines, gap, 2 * size),
  );
  return [...wide, ...narrow].sort((a, b) => a.x1 - b.x1);
}

/**
 * Lines with a word ending where the gap starts or starting where it ends: the gap is a column's edge (of
 * right-aligned numbers, of left-aligned text), not the space between two words of one header cell.
 */
function edgeLines(lines: readonly WordLine[], gap: Interval): number {
  return lines.filter((line) =>
    line.words.some((w) => Math.abs(w.box.x2 - gap.x1) <= 1 || Math.abs(w.box.x1 - gap.x2) <= 1),
  ).length;
}

/**
 * Whether the words on both sides of the gap (a header's cells, one ending where it starts, one starting where it
 * ends) each have a column centred under them: two lines or more with a narrower word whose middle stands within
 * a quarter em of the header word's. Centred columns touch neither edge of the gap; under one header cell of two
 * words, the body's column is centred on the cell, not on either word.
 */
function centredBelow(lines: readonly WordLine[], gap: Interval, size: number): boolean {
  const columnUnder = (word: TextPiece) =>
    lines.filter((line) =>
      line.words.some(
        (w) =>
          w !== word &&
          w.box.x2 - w.box.x1 < word.box.x2 - word.box.x1 &&
          Math.abs(box.centerX(w.box) - box.centerX(word.box)) <= 0.25 * size,
      ),
    ).length >= 2;
  const words = lines.flatMap((line) => line.words);
  return (
    words.some((w) => Math.abs(w.box.x2 - gap.x1) <= 1 && columnUnder(w)) &&
    words.some((w) => Math.abs(w.box.x1 - gap.x2) <= 1 && columnUnder(w))
  );
}

/**
 * Rivers most lines leave open: stretches a column gap wide that at most a fifth of the lines cross. Header
 * words wider than their column (a multi-level header's `sterilization` over a column of numbers) or a label
 * running into the next column cross a river the body keeps; they span the columns they cross.
 */
export function majorityGaps(lines: readonly WordLine[]): Interval[] {
  if (lines.length === 0) return [];
  const allowed = Math.floor(lines.length / 5);
  const events: [number, number][] = [];
  for (const line of lines) {
    for (const s of line.segments) events.push([s.x1, 1], [s.x2, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const left = events[0][0];
  const right = events[events.length - 1][0];
  const minGap = minColumnGap(Math.min(...lines.map((l) => l.fontSize)));
  const gaps: Interval[] = [];
  let depth = 0;
  let openAt: number | null = null;
  for (const [x, step] of events) {
    depth += step;
    if (depth <= allowed && openAt === null) openAt = x;
    else if (depth > allowed && openAt !== null) {
      if (x - openAt >= minGap && openAt > left && x < right) gaps.push({ x1: openAt, x2: x });
      openAt = null;
    }
  }
  return gaps;
}

/**
 * Most lines (three at least) have text on both sides of the gap and leave `width` or more free around it. A line
 * empty on one side proves nothing: beside short cells, the space between two words of a long one is no river.
 */
function riverAround(lines: readonly WordLine[], gap: Interval, width: number): boolean {
  let open = 0;
  for (const line of lines) {
    let left = Number.NEGATIVE_INFINITY;
    let right = Number.POSITIVE_INFINITY;
    for (const w of line.words) {
      if (w.box.x2 <= gap.x1 + 0.01) left = Math.max(left, w.box.x2);
      else if (w.box.x1 >= gap.x2 - 0.01) right = Math.min(right, w.box.x1);
    }
    if (Number.isFinite(left) && Number.isFinite(right) && right - left >= width) open++;
  }
  return open >= Math.max(3, 0.6 * lines.length);
}

/**
 * A cell that is a list item's mark alone (a bullet, a dash, an enumerator): a first column of them is a list's.
 * Check marks are not among them: a column of ✓ is a table's yes and no.
 */
const LIST_MARKER = new RegExp(`^(?:[${BULLET_MARKS}${DASH_MARKS}]|${ENUMERATOR})$`);

interface Band {
  lines: WordLine[];
  gaps: Interval[];
  /** Whether the band goes on over a blank line between groups of rows. */
  bridged?: boolean;
}

/** The widest blank between two groups of a table's rows that a band goes on over, in line heights. */
const GROUP_GAP = 2.5;

/**
 * Blocks of consecutive lines sharing at least one river. A block grows line by line while the next line is close
 * below and leaves the rivers open; its first line may have rivers the rest close. With `bridge`, a block that
 * already holds two lines of cells also goes on over a blank line when the next line keeps every river: a
 * statement's groups of rows (each under its label, set apart by a blank) are one table.
 */
function findBands(lines: readonly WordLine[], bridge = false): Band[] {
  const bands: Band[] = [];
  let i = 0;
  while (i < lines.length) {
    const start = lines[i];
    if (start.segments.length < 2) {
      i++;
      continue;
    }
    const band = [start];
    let coverage = start.segments;
    let gaps = coverageGaps(coverage, minColumnGap(start.fontSize));
    let minFont = start.fontSize;
    let bridged = false;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const prev = lines[j - 1];
      const line = lines[j];
      const height = Math.max(prev.y2 - prev.y1, line.y2 - line.y1);
      const blank = line.y1 - prev.y2 > 1.2 * height;
      if (blank && (!bridge || line.y1 - prev.y2 > GROUP_GAP * height)) break;
      if (blank && band.filter((l) => l.segments.length >= 2).length < 2) break;
      const nextCoverage = mergeCoverage(coverage, line.segments);
      const nextFont = Math.min(minFont, line.fontSize);
      const nextGaps = coverageGaps(nextCoverage, minColumnGap(nextFont));
      if (nextGaps.length === 0 || (nextGaps.length < gaps.length && band.length > 1)) break;
      if (blank && nextGaps.length !== gaps.length) break;
      bridged ||= blank;
      band.push(line);
      coverage = nextCoverage;
      gaps = nextGaps;
      minFont = nextFont;
    }
    bands.push({ lines: band, gaps, bridged });
    i = band.length >= 3 ? j : i + 1;
  }
  return bands;
}

/** The columns some lines' words form between the given gaps: from the coverage's left end to its right end. */
export function columnsBetween(lines: readonly WordLine[], gaps: readonly Interval[]): Interval[] {
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  for (const line of lines) {
    for (const w of line.words) {
      left = Math.min(left, w.box.x1);
      right = Math.max(right, w.box.x2);
    }
  }
  const columns: Interval[] = [];
  let x1 = left;
  for (const gap of gaps) {
    columns.push({ x1, x2: gap.x1 });
    x1 = gap.x2;
  }
  columns.push({ x1, x2: right });
  return columns;
}

/** Words of the band's lines placed into columns; lines with no word inside the columns are skipped. */
export function gridOf(lines: readonly WordLine[], columns: readonly Interval[]): Grid {
  const rows: TextPiece[][][] = [];
  const rowBoxes: { y1: number; y2: number }[] = [];
  const left = columns[0].x1;
  const right = columns[columns.length - 1].x2;
  for (const line of lines) {
    const cells: TextPiece[][] = columns.map(() => []);
    let y1 = Number.POSITIVE_INFINITY;
    let y2 = Number.NEGATIVE_INFINITY;
    for (const word of line.words) {
      const cx = box.centerX(word.box);
      if (cx < left || cx > right) continue;
      let c = 0;
      while (c < columns.length - 1 && cx > (columns[c].x2 + columns[c + 1].x1) / 2) c++;
      cells[c].push(word);
      y1 = Math.min(y1, word.box.y1);
      y2 = Math.max(y2, word.box.y2);
    }
    if (cells.every((c) => c.length === 0)) continue;
    rows.push(cells);
    rowBoxes.push({ y1, y2 });
  }
  return { columns: [...columns], rows, rowBoxes };
}

export interface ColumnStats {
  filled: number;
  words: number;
  numeric: number;
  /** Cells at least 80% as wide as the column. */
  full: number;
  markers: number;
  /** Letters and digits of the filled cells, where counted: long words make few of them per line. */
  characters?: number;
  /** Cells of five words or more, where counted, and how many of them are full. */
  long?: number;
  longFull?: number;
}

export function columnStats(grid: Grid): ColumnStats[] {
  return grid.columns.map((column, c) => {
    const stats = {
      filled: 0,
      words: 0,
      numeric: 0,
      full: 0,
      markers: 0,
      characters: 0,
      long: 0,
      longFull: 0,
    };
    const width = column.x2 - column.x1;
    for (const row of grid.rows) {
      const words = row[c];
      if (words.length === 0) continue;
      const text = cellText(words);
      stats.filled++;
      stats.words += words.length;
      stats.characters += text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
      if (isNumeric(text)) stats.numeric++;
      if (LIST_MARKER.test(text)) stats.markers++;
      const extent = words[words.length - 1].box.x2 - words[0].box.x1;
      const full = width > 0 && extent >= 0.8 * width;
      if (full) stats.full++;
      if (words.length >= 5) {
        stats.long++;
        if (full) stats.longFull++;
      }
    }
    return stats;
  });
}

/**
 * Running text: many words per cell, most cells filling the column's width. A language of long words (German,
 * Finnish, Dutch) fills a line of prose with fewer of them: three words or more a cell then count as running
 * text when they make thirty letters or more, as five English words do.
 */
export function isProse(stats: ColumnStats): boolean {
  if (stats.filled === 0 || stats.full < 0.5 * stats.filled) return false;
  const words = stats.words / stats.filled;
  return words >= 5 || (words >= 3 && (stats.characters ?? 0) / stats.filled >= 30);
}

/**
 * A column of paragraphs with short lines among them (a heading, list items, a paragraph's last line): running
 * text by its words a cell (`isProse`), and the lines long enough to wrap (five words or more, three at least)
 * nearly all fill the column, as a paragraph's lines do up to its last. Only a column at a band's edge is
 * dropped for it (`tableColumns`): a page's text column beside a table, as a recipe's steps beside its ingredients.
 */
function paragraphColumn(stats: ColumnStats): boolean {
  if (isProse(stats)) return true;
  const long = stats.long ?? 0;
  if (stats.filled === 0 || long < 3 || (stats.longFull ?? 0) < 0.75 * long) return false;
  return isProse({ ...stats, full: stats.filled });
}

/**
 * Rows whose every cell goes on with the wrapped text above it in its column (`wrapsFrom`) joined to the row
 * above: the paragraphs of cards side by side are one row each, whatever lines they wrap into.
 */
function joinWrappedRows(grid: Grid): Grid {
  const extents = grid.columns.map((_, c) => {
    const words = grid.rows.flatMap((row) => row[c]);
    return {
      left: Math.min(...words.map((w) => w.box.x1)),
      right: Math.max(...words.map((w) => w.box.x2)),
    };
  });
  const rows: TextPiece[][][] = [];
  const rowBoxes: { y1: number; y2: number }[] = [];
  grid.rows.forEach((row, r) => {
    const above = grid.rows[r - 1];
    const filled = row.flatMap((cell, c) => (cell.length > 0 ? [c] : []));
    const wraps =
      above !== undefined &&
      filled.length >= 2 &&
      filled.every((c) => wrapsFrom(above[c], row[c], extents[c].left, extents[c].right));
    if (wraps) {
      const target = rows[rows.length - 1];
      for (const c of filled) target[c].push(...row[c]);
      rowBoxes[rowBoxes.length - 1].y2 = grid.rowBoxes[r].y2;
      return;
    }
    rows.push(row.map((cell) => [...cell]));
    rowBoxes.push({ ...grid.rowBoxes[r] });
  });
  return { columns: grid.columns, rows, rowBoxes };
}

/**
 * The columns of a band that make a table, or null. Prose columns at either edge (the neighbouring column of a
 * two-column page) are dropped first; what remains must have short cells, filled columns, no list markers, and
 * with only two columns, numbers. When a prose column was dropped, what remains is also read again on its own
 * lines (see `besideProse`): that reading is taken when the band's rivers make no table of it, or a table of fewer
 * columns.
 */
function tableColumns(band: Band): Grid[] {
  let columns = columnsBetween(band.lines, band.gaps);
  let lines = band.lines;
  let left = Number.NEGATIVE_INFINITY;
  let right = Number.POSITIVE_INFINITY;
  for (;;) {
    if (columns.length < 2) return besideProse(band, left, right);
    const grid = joinWrappedRows(gridOf(lines, columns));
    // A column of OCR's readings of a rule is no column (junk-columns.ts).
    const junk = junkColumns(grid);
    if (junk.length > 0) {
      const words = columnWords(grid, junk);
      lines = lines.map((line) => ({ ...line, words: line.words.filter((w) => !words.has(w)) }));
      columns = withoutJunkColumns(columns, junk);
      continue;
    }
    const stats = columnStats(grid);
    if (paragraphColumn(stats[0])) {
      left = (columns[0].x2 + columns[1].x1) / 2;
      columns = columns.slice(1);
      continue;
    }
    if (paragraphColumn(stats[stats.length - 1])) {
      right = (columns[columns.length - 2].x2 + columns[columns.length - 1].x1) / 2;
      columns = columns.slice(0, -1);
      continue;
    }
    // Columns nearly empty under their header (a results table's score columns) do not count against it.
    if (!acceptable(grid, stats) && !acceptableBesideHeaded(grid, stats))
      return besideProse(band, left, right);
    // Read on its own lines, the part may show more columns than the band's rivers did: its own reading wins.
    const own = besideProse(band, left, right);
    return own.length === 1 && own[0].columns.length > grid.columns.length ? own : [grid];
  }
}

/**
 * The tables of the part of a band left when a prose column beside it is dropped, its lines banded again on their
 * own: the rivers of a band that ran through the prose's lines come from every line it took in, and a heading
 * over the part (a patent's "U.S. PATENT DOCUMENTS" over its list of references, set on the line of a sentence of
 * the prose beside it) closes the part's own rivers. Read alone, the heading is no row of the part's columns.
 */
function besideProse(band: Band, left: number, right: number): Grid[] {
  if (left === Number.NEGATIVE_INFINITY && right === Number.POSITIVE_INFINITY) return [];
  return bandPart(band, left, right).flatMap((part) => {
    const columns = columnsBetween(part.lines, part.gaps);
    if (columns.length < 2) return [];
    const grid = joinWrappedRows(gridOf(part.lines, columns));
    const stats = columnStats(grid);
    // Only a part that makes a table as it stands (no column of it dropped again), and a full one: three columns
    // or more, each row filling all of them but one at most. Labels scattered over a figure or a chart's axes
    // beside the prose leave many cells empty.
    const full = grid.rows.every((row) => row.filter((cell) => cell.length > 0).length >= columns.length - 1);
    return columns.length < 3 ||
      !full ||
      paragraphColumn(stats[0]) ||
      paragraphColumn(stats[stats.length - 1]) ||
      !acceptable(grid, stats)
      ? []
      : [grid];
  });
}

const MONOSPACE =
  /mono|mon[ol]?\b|courier|consol|menlo|inconsolata|typewriter|fixed|^(cm|sf|ec)tt|^lmmono|code/i;

/** Text set in a fixed-width font throughout: a code listing or preformatted block, for layout to render as such. */
function isListing(grid: Grid): boolean {
  let mono = 0;
  let total = 0;
  for (const row of grid.rows) {
    for (const cell of row) {
      for (const w of cell) {
        total += w.text.length;
        if (MONOSPACE.test(w.fontName)) mono += w.text.length;
      }
    }
  }
  return total > 0 && mono >= 0.9 * total;
}

function acceptable(grid: Grid, stats: ColumnStats[]): boolean {
  if (isListing(grid)) return false;
  const rows = grid.rows.length;
  const cols = grid.columns.length;
  const multi = grid.rows.filter((row) => row.filter((cell) => cell.length > 0).length >= 2).length;
  if (multi < 3) return false;
  if (stats.some(isProse)) return false;
  if (stats[0].markers >= 0.6 * stats[0].filled) return false;
  let filled = 0;
  let words = 0;
  let numeric = 0;
  for (const s of stats) {
    if (s.filled < Math.max(2, 0.3 * rows)) return false;
    filled += s.filled;
    words += s.words;
    numeric += s.numeric;
  }
  if (filled < 0.5 * rows * cols) return false;
  if (words / filled > 6) return false;
  if (cols === 2) {
    const numericColumn = stats.some((s) => s.numeric >= 3 && s.numeric >= 0.6 * s.filled);
    const short = stats.every((s) => s.words / s.filled <= 4);
    // Labels of a few words each beside a column of figures only (a statement's key figures) read as rows too.
    const figures = stats.some((s) => s.numeric >= 5 && s.numeric >= 0.9 * s.filled);
    const labels = stats.every((s) => s.words / s.filled <= 8);
    return numericColumn && (short || (figures && labels));
  }
  // Three or more columns: numbers make it certain; words alone need short cells over more rows.
  return numeric >= 0.25 * filled || (rows >= 4 && words / filled <= 3);
}

/** The fewest rows a table shows under a header before its nearly empty columns stop counting against it. */
const SPARSE_UNDER = 8;

/**
 * Whether the grid is a table once its columns that are nearly empty under their header (a results table's
 * `T-score` and `Z-score` columns, filled in one row of many) are left out of the judgement: words in the first
 * two rows and in at most one row under them. The other columns, three or more, must make a table by themselves.
 */
function acceptableBesideHeaded(grid: Grid, stats: readonly ColumnStats[]): boolean {
  if (grid.rows.length < SPARSE_UNDER) return false;
  const headed = (c: number) => {
    const rows = grid.rows.flatMap((row, r) => (row[c].length > 0 ? [r] : []));
    return rows.length > 0 && rows[0] <= 1 && rows.filter((r) => r > 1).length <= 1;
  };
  const kept = grid.columns.flatMap((_, c) => (headed(c) ? [] : [c]));
  if (kept.length === grid.columns.length || kept.length < 3) return false;
  const rest: Grid = {
    ...grid,
    columns: kept.map((c) => grid.columns[c]),
    rows: grid.rows.map((row) => kept.map((c) => row[c])),
  };
  return acceptable(
    rest,
    kept.map((c) => stats[c]),
  );
}

/** Continuation lines (text in one column only, tightly under text in that column) join the row above. */
function mergeContinuations(grid: Grid): Grid {
  const gaps: number[] = [];
  for (let r = 1; r < grid.rows.length; r++) gaps.push(grid.rowBoxes[r].y1 - grid.rowBoxes[r - 1].y2);
  const typical = median(gaps);
  const rows: TextPiece[][][] = [];
  const rowBoxes: { y1: number; y2: number }[] = [];
  grid.rows.forEach((row, r) => {
    const filled = row.flatMap((cell, c) => (cell.length > 0 ? [c] : []));
    const prev = rows[rows.length - 1];
    const gap = r > 0 ? grid.rowBoxes[r].y1 - grid.rowBoxes[r - 1].y2 : 0;
    if (prev && filled.length === 1 && filled[0] > 0 && prev[filled[0]].length > 0 && gap < 0.5 * typical) {
      prev[filled[0]].push(...row[filled[0]]);
      rowBoxes[rowBoxes.length - 1].y2 = grid.rowBoxes[r].y2;
      return;
    }
    rows.push(row.map((cell) => [...cell]));
    rowBoxes.push({ ...grid.rowBoxes[r] });
  });
  return { columns: grid.columns, rows, rowBoxes };
}

export function tableOf(grid: Grid): DetectedTable | null {
  const { columns, rows, rowBoxes } = grid;
  const xs = [columns[0].x1];
  for (let c = 1; c < columns.length; c++) xs.push((columns[c - 1].x2 + columns[c].x1) / 2);
  xs.push(columns[columns.length - 1].x2);
  const ys = [rowBoxes[0].y1];
  for (let r = 1; r < rowBoxes.length; r++) {
    const a = rowBoxes[r - 1];
    const b = rowBoxes[r];
    ys.push(Math.max(ys[ys.length - 1] + 0.01, (Math.min(a.y2, b.y1) + Math.max(a.y2, b.y1)) / 2));
  }
  ys.push(Math.max(ys[ys.length - 1] + 0.01, rowBoxes[rowBoxes.length - 1].y2));
  const lattice: Lattice = { xs, ys, vSplit: () => true, hSplit: () => true };
  const { regions, owner } = latticeRegions(lattice);
  const contents: TextPiece[][] = regions.map(() => []);
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      contents[owner[r * columns.length + c]].push(...cell);
    });
  });
  const table = finishTable({ lattice, regions, contents, headerRows: null, method: "aligned" });
  // OCR glues a column's short words to the next (glued-words.ts); a text layer's words are as printed.
  const ocr = rows.some((row) => row.some((cell) => cell.some((w) => w.fontName === "ocr")));
  return table && ocr ? withGluedWordsApart(table) : table;
}

/**
 * The band cut at page gutters: gaps wide enough to be the space between two columns of the page (or two pages of
 * a spread), whose middle no line near the band crosses while lines near it stand on both sides, or text on one side
 * of it only starts in the band's second half (a caption beside an image, level with a table's lower rows). Text on
 * either side of a gutter belongs to different blocks that only happen to share baselines.
 */
function splitAtGutters(band: Band, all: readonly WordLine[], pageWidth: number): Band[] {
  const height = median(band.lines.map((l) => l.y2 - l.y1));
  const top = band.lines[0].y1 - 3 * height;
  const bottom = band.lines[band.lines.length - 1].y2 + 3 * height;
  const inBand = new Set(band.lines);
  const near = all.filter((l) => !inBand.has(l) && l.y2 > top && l.y1 < bottom);
  const segments = near.flatMap((l) => l.segments);
  const cuts = band.gaps.flatMap((gap) => {
    const mid = (gap.x1 + gap.x2) / 2;
    const wide =
      gap.x2 - gap.x1 >= 0.15 * pageWidth &&
      !segments.some((s) => s.x1 < mid - 1 && s.x2 > mid + 1) &&
      ((segments.some((s) => s.x2 <= mid) && segments.some((s) => s.x1 >= mid)) || sideStartsLate(band, mid));
    if (wide) return [mid];
    // Else a strip of the gap that the page's columns keep clear from top to bottom (see pageGutter).
    const strip = pageGutter(band, all, gap, height);
    return strip === null ? [] : [strip];
  });
  if (cuts.length === 0) return [band];
  const bounds = [Number.NEGATIVE_INFINITY, ...cuts, Number.POSITIVE_INFINITY];
  const parts: Band[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) parts.push(...bandPart(band, bounds[k], bounds[k + 1]));
  return parts;
}

/**
 * Whether text on one side of x in the band only starts in its second half: a block set beside the band's lower
 * lines (an image's caption beside a table), not a column of it. A table's first column is filled from its
 * first rows on.
 */
function sideStartsLate(band: Band, x: number): boolean {
  const first = (side: (w: TextPiece) => boolean) => band.lines.findIndex((l) => l.words.some(side));
  const left = first((w) => w.box.x2 <= x);
  const right = first((w) => w.box.x1 >= x);
  if (left < 0 || right < 0) return false;
  return Math.max(left, right) >= band.lines.length / 2;
}

/** Lines of the page's text, outside the band, that a column gutter must have on each side. */
const GUTTER_LINES = 10;

/**
 * A gap, narrower than a spread's gutter or with no text near the band to show it, that holds the page's column gutter (a cheat sheet's three columns
 * 10 pt apart, each a list of commands beside their descriptions, whose rows share baselines across the page):
 * a strip inside the gap, three quarters of a line high wide, that no line anywhere on the page runs into, with
 * ten lines of the page's text at least on each side of it outside the band. A table's own column gap is crossed
 * by the prose above or below it. Returns where to cut, or null.
 */
function pageGutter(band: Band, all: readonly WordLine[], gap: Interval, height: number): number | null {
  // The widest strip inside the gap that no line of the page runs into.
  const covered = all
    .flatMap((line) => line.segments)
    .filter((s) => s.x2 > gap.x1 && s.x1 < gap.x2)
    .sort((a, b) => a.x1 - b.x1);
  let best: Interval | null = null;
  let reach = gap.x1;
  for (const s of [...covered, { x1: gap.x2, x2: gap.x2 }]) {
    if (s.x1 > reach && (!best || s.x1 - reach > best.x2 - best.x1)) best = { x1: reach, x2: s.x1 };
    reach = Math.max(reach, s.x2);
  }
  if (!best || best.x2 - best.x1 < 0.75 * height) return null;
  const mid = (best.x1 + best.x2) / 2;
  const inBand = new Set(band.lines);
  let left = 0;
  let right = 0;
  for (const line of all) {
    if (inBand.has(line)) continue;
    if (line.segments.some((s) => s.x2 <= mid)) left++;
    if (line.segments.some((s) => s.x1 >= mid)) right++;
  }
  return Math.min(left, right) >= GUTTER_LINES ? mid : null;
}

/** The bands of three lines or more that the words of a band centered between x1 and x2 make. */
function bandPart(band: Band, x1: number, x2: number): Band[] {
  const lines = band.lines
    .map((l) => l.words.filter((w) => box.centerX(w.box) > x1 && box.centerX(w.box) < x2))
    .filter((words) => words.length > 0)
    .map(lineOfWords);
  return findBands(lines).filter((b) => b.lines.length >= 3);
}

/**
 * The band without a column that holds a postal address (address.ts) over half its text or more: the parts to
 * its left and right, each a candidate table of its own; null when no column does. An address beside labels and
 * values (a payment advice's `To:` block, a letter's foot of address, contacts and bank) is layout.
 */
function besideAddress(band: Band): Band[] | null {
  const columns = columnsBetween(band.lines, band.gaps);
  const grid = gridOf(band.lines, columns);
  for (let c = 0; c < columns.length; c++) {
    const cells = grid.rows.map((row) => cellText(row[c])).filter((text) => text !== "");
    const address = addressLines(cells);
    if (!address || address.count < 3 || address.count < 0.5 * cells.length) continue;
    const left = c > 0 ? (columns[c - 1].x2 + columns[c].x1) / 2 : Number.NEGATIVE_INFINITY;
    const right = c + 1 < columns.length ? (columns[c].x2 + columns[c + 1].x1) / 2 : Number.POSITIVE_INFINITY;
    return [
      ...bandPart(band, Number.NEGATIVE_INFINITY, left),
      ...bandPart(band, right, Number.POSITIVE_INFINITY),
    ];
  }
  return null;
}

/** A grid under one copy of a repeated header (repeated-header.ts), its words in its columns by their middles. */
function headerGrid(grid: HeaderGrid<TextPiece>): Grid {
  const { columns } = grid;
  return {
    columns,
    rows: grid.rows.map((words) =>
      columns.map((c) => words.filter((w) => box.centerX(w.box) >= c.x1 && box.centerX(w.box) < c.x2)),
    ),
    rowBoxes: grid.rows.map((words) => ({
      y1: Math.min(...words.map((w) => w.box.y1)),
      y2: Math.max(...words.map((w) => w.box.y2)),
    })),
  };
}

/**
 * Whether each column of the grid sits in a box of its own (a filled rectangle holding its words and none of the
 * other columns'): cards side by side, laid out in columns, not one table.
 */
function inSeparateBoxes(grid: Grid, rects: readonly Box[]): boolean {
  const words = grid.columns.map((_, c) => grid.rows.flatMap((row) => row[c]));
  const boxes = new Set<Box>();
  for (let c = 0; c < grid.columns.length; c++) {
    const own = words[c];
    const others = words.filter((_, k) => k !== c).flat();
    const holder = rects.find(
      (r) =>
        own.filter((w) => box.containsCenter(r, w.box)).length >= 0.8 * own.length &&
        !others.some((w) => box.containsCenter(r, w.box)),
    );
    if (!holder || boxes.has(holder)) return false;
    boxes.add(holder);
  }
  return true;
}

export interface AlignedOptions {
  /** Areas to leave out, e.g. tables already found from ruling lines. */
  exclude?: readonly Box[];
}

/**
 * Tables of aligned text without ruling lines. `lines` are the page's text lines as the layout stage grouped its
 * runs, when it has them; lines at the same height are read as one row here (a row's cells may be separate lines
 * there), so they only choose which runs to consider. Without them, all the page's runs are.
 *
 * @example
 * const tables = detectAlignedTables(page, undefined, { exclude: ruled.map((t) => t.box) });
 */
export function detectAlignedTables(
  page: PageGeometry,
  lines?: readonly (readonly TextRun[])[],
  options: AlignedOptions = {},
): DetectedTable[] {
  const exclude = options.exclude ?? [];
  const keep = (run: TextRun) =>
    !run.vertical && hasVisibleText(run.text) && !exclude.some((b) => box.containsCenter(b, run.box, 1));
  const candidates = (lines ? lines.flat() : page.runs).filter(keep);
  // Grids side by side under copies of one header are read first, each a table; the rest is banded without them.
  const allLines = wordLines(candidates);
  const tables = headerGrids(allLines).flatMap((grid) => tableOf(headerGrid(grid)) ?? []);
  const textLines =
    tables.length === 0
      ? allLines
      : wordLines(
          candidates.filter((run) => !tables.some((table) => box.containsCenter(table.box, run.box, 1))),
        );
  const bandTables = (found: Band): DetectedTable[] =>
    splitAtGutters(found, textLines, page.width).flatMap((band): DetectedTable[] => {
      const parts = besideAddress(band);
      if (parts) return parts.flatMap(bandTables);
      return tableColumns(band).flatMap((grid) => {
        if (inSeparateBoxes(grid, page.rects)) return [];
        const table = tableOf(joinHeaderLines(mergeContinuations(joinCurrencySigns(grid))));
        return table ? [table] : [];
      });
    });
  const twoRow: DetectedTable[] = [];
  for (const found of findBands(textLines, true)) {
    // Two lines are a table only as a header row over one row of values (see two-row.ts).
    const columns = found.lines.length === 2 ? twoRowColumns(found.lines) : null;
    const grid = columns ? gridOf(found.lines, columns) : null;
    const pair = grid && !inSeparateBoxes(grid, page.rects) ? tableOf(grid) : null;
    if (pair) twoRow.push(pair);
    if (found.lines.length < 3) continue;
    const whole = bandTables(found);
    // Groups that make no table together may each be one (a table, then aligned lines of another kind).
    const parts =
      whole.length === 0 && found.bridged
        ? findBands(found.lines).flatMap((part) => (part.lines.length >= 3 ? bandTables(part) : []))
        : [];
    tables.push(...whole, ...parts);
  }
  // A line shared with a table of more rows (a band that starts one line earlier and stops short) is that table's.
  return [
    ...tables,
    ...twoRow.filter(
      (pair) => !tables.some((t) => box.overlapY(t.box, pair.box) > 0 && box.overlapX(t.box, pair.box) > 0),
    ),
  ];
}
