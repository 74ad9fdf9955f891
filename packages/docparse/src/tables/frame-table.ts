/**
 * The table of a frame: rows added from the text inside bands, then the lattice of cells with ruled boundaries
 * where rules cover an edge and text boundaries where no text crosses them, and header rows read from the
 * ruling (a booktabs header rule, a stronger rule). Shared by grids, list frames and booktabs tables.
 */
import { box, type DetectedTable, type TextRun } from "../paginated/geometry.ts";
import { type WordLine, wordLines } from "./aligned.ts";
import { alignedRowCuts } from "./aligned-rows.ts";
import { assignRuns, bandIndex, finishTable, type Lattice, latticeRegions, runWords } from "./cells.ts";
import { joinFrameSigns } from "./currency.ts";
import { namedColumns } from "./named-columns.ts";
import { covered, EDGE_COVER, type Segment } from "./rule-segments.ts";
import { bucketRuns, type Frame, ruledV } from "./ruled-frame.ts";
import {
  centeredApart,
  closedLines,
  columnGapAt,
  columnMiddles,
  openColumns,
  proseBand,
  type RowWords,
  rowGroup,
  stretches,
  textRowCuts,
  wrappedHeader,
} from "./ruled-rows.ts";

/** The columns a line has text in. */
function lineColumns(line: WordLine, xs: readonly number[]): number {
  return new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box)))).size;
}

/** How many columns a row of the body fills: the median over the bands' first lines (0 without bands). */
function rowShape(bands: readonly (readonly WordLine[])[], xs: readonly number[]): number {
  const counts = bands
    .filter((band) => band.length > 0)
    .map((band) => lineColumns(band[0], xs))
    .sort((a, b) => a - b);
  return counts.length === 0 ? 0 : counts[counts.length >> 1];
}

/**
 * A band whose first line fills the columns a body row fills, and whose further lines each fill fewer (a
 * calendar's week: the day numbers across, then a day's notes under its number, in one or two columns): one
 * row whose cells go on over several lines, not a row per line. Rows stacked in one band for want of rules each
 * fill the row's columns.
 */
function cellsGoOn(bandLines: readonly WordLine[], xs: readonly number[], shape: number): boolean {
  if (shape < 2 || lineColumns(bandLines[0], xs) < shape) return false;
  return bandLines.slice(1).every((line) => lineColumns(line, xs) < shape);
}

/**
 * The table of a frame: text rows added inside bands that hold several aligned lines, then the lattice, with
 * ruled boundaries present where their rules cover the edge and text boundaries present unless text crosses them
 * or a single text is centered over the columns they divide (a spanning header).
 */
export function frameTable(
  ruled: Frame,
  runs: readonly TextRun[],
  method: DetectedTable["method"],
): DetectedTable | null {
  const frame = joinFrameSigns(ruled, runs);
  const { xs, xRules } = frame;
  const baseRows = frame.ys.length - 1;
  const ys: number[] = [frame.ys[0]];
  const yRules: (Segment[] | null)[] = [frame.yRules[0]];
  // For a boundary found from text, the columns it leaves whole (cells running on past the band).
  const cutOpen: Set<number>[] = [];
  const bandRuns = bucketRuns(runs, [xs[0], xs[xs.length - 1]], frame.ys);
  const bands = bandRuns.map((band) => wordLines(band));
  // Rows ruled one by one keep their lines together (wrapped cells); a band holding many more lines than the
  // others, or any band of a table with few rules, holds several rows.
  const typical = [...bands.map((b) => b.length)].sort((a, b) => a - b)[baseRows >> 1];
  const shape = rowShape(bands.slice(1), xs);
  const plans = bands.map((band, r) => {
    const open = openColumns(frame, r);
    const bandLines = closedLines(band, xs, open);
    const many =
      !(r === 0 && (frame.headerBand || (baseRows >= 3 && wrappedHeader(bandLines, xs)))) &&
      ((bandLines.length >= 3 && bandLines.length >= 2 * typical && !cellsGoOn(bandLines, xs, shape)) ||
        (baseRows <= 3 && bandLines.length >= 2 && !proseBand(bandLines, xs)) ||
        rowGroup(bandLines, xs));
    const textCuts = many ? textRowCuts(bandLines, xs) : [];
    // Rows ruled only between groups: entries aligned across columns beside a label set between them, under
    // the first band (a header's cells wrap in parallel).
    const aligned = textCuts.length === 0 && r > 0 ? alignedRowCuts(bandLines, xs) : null;
    return { open, textCuts, aligned };
  });
  // Groups hold different numbers of entries; bands that all hold the same number are rows ruled one by one,
  // their cells wrapped over as many lines.
  const groupSizes = new Set(plans.flatMap((p) => (p.aligned ? [p.aligned.cuts.length] : [])));
  const grouped = groupSizes.size > 1 || plans.filter((p) => p.aligned).length === 1;
  for (let r = 0; r < baseRows; r++) {
    const y1 = frame.ys[r + 1];
    const { open, textCuts } = plans[r];
    const aligned = grouped ? plans[r].aligned : null;
    const bandOpen = aligned ? new Set([...open, ...aligned.spanning]) : open;
    for (const cut of aligned?.cuts ?? textCuts) {
      if (cut > ys[ys.length - 1] + 1 && cut < y1 - 1) {
        ys.push(cut);
        yRules.push(null);
        cutOpen[ys.length - 1] = bandOpen;
      }
    }
    ys.push(y1);
    yRules.push(frame.yRules[r + 1]);
  }
  const rows = ys.length - 1;
  const cols = xs.length - 1;
  const rowWords: RowWords[] = [];
  for (let r = 0; r < rows; r++) rowWords.push({ y0: ys[r], y1: ys[r + 1], words: [] });
  for (const run of runs) {
    if (run.vertical) continue;
    const cy = box.centerY(run.box);
    if (cy < ys[0] || cy > ys[rows]) continue;
    rowWords[bandIndex(ys, cy)].words.push(...runWords(run));
  }
  const split = new Uint8Array((cols + 1) * rows);
  const middles = columnMiddles(
    rowWords.flatMap((row) => row.words),
    xs,
  );
  for (let r = 0; r < rows; r++) {
    const { y0, y1, words } = rowWords[r];
    for (let i = 1; i < cols; i++) {
      split[r * (cols + 1) + i] = xRules[i] ? (ruledV(frame, i, y0, y1) ? 1 : 0) : 1;
    }
    // A ruled column boundary whose rule stops short of this row (drawn in the header only) still divides it
    // where the row's words stand apart on both sides of it, a column gap wide: the body keeps the header's
    // columns. A text spanning the columns crosses the boundary or stands a word space from it, and stays one.
    // Beside an empty cell the words looked at reach to the row's ends: a ledger's name and description with
    // empty date columns between them are two cells. Not where the text over several columns that include the
    // empty one is centered over them and not set at a column's left edge (a spanning header): it stays one.
    const filled = (c: number) => words.some((w) => bandIndex(xs, box.centerX(w.box)) === c);
    const em = Math.max(1, ...words.map((w) => w.fontSize));
    const spanning = (i: number) => {
      for (let a = 0; a < i; a++) {
        for (let b = i + 1; b <= cols; b++) {
          if (b - a < 2) continue;
          const inside = words.filter((w) => box.centerX(w.box) > xs[a] && box.centerX(w.box) < xs[b]);
          if (inside.length === 0) continue;
          const x1 = Math.min(...inside.map((w) => w.box.x1));
          const x2 = Math.max(...inside.map((w) => w.box.x2));
          if (xs.some((x) => Math.abs(x1 - x) <= 0.75 * em)) continue;
          if (Math.abs((x1 + x2) / 2 - (xs[a] + xs[b]) / 2) <= 0.08 * (xs[b] - xs[a])) return true;
        }
      }
      return false;
    };
    for (let i = 1; i < cols; i++) {
      if (!xRules[i] || split[r * (cols + 1) + i] === 1) continue;
      const wide = (!filled(i - 1) || !filled(i)) && !spanning(i);
      const [left, right] = wide ? [xs[0], xs[cols]] : [xs[i - 1], xs[i + 1]];
      if (columnGapAt(words, xs[i], left, right)) split[r * (cols + 1) + i] = 1;
    }
    // Text boundaries: merged where a word crosses them, or a stretch of words set a word space apart (a title,
    // a section label) runs across them.
    for (const w of words) {
      for (let i = 1; i < cols; i++) {
        if (!xRules[i] && w.box.x1 < xs[i] - 2 && w.box.x2 > xs[i] + 2) split[r * (cols + 1) + i] = 0;
      }
    }
    for (const stretch of stretches(words)) {
      for (let i = 1; i < cols; i++) {
        if (xRules[i] || stretch.x1 >= xs[i] || stretch.x2 <= xs[i]) continue;
        if (!centeredApart(stretch.words, xs, middles, i)) split[r * (cols + 1) + i] = 0;
      }
    }
    // A text over a partial rule (a booktabs cmidrule) spans the columns the rule covers.
    for (const rule of yRules[r + 1] ?? []) {
      if (rule.b - rule.a >= 0.9 * (xs[cols] - xs[0])) continue;
      const over = words.filter((w) => box.centerX(w.box) > rule.a && box.centerX(w.box) < rule.b);
      if (over.length === 0 || new Set(over.map((w) => bandIndex(xs, box.centerX(w.box)))).size > 1) continue;
      for (let k = 1; k < cols; k++) {
        if (!xRules[k] && xs[k] > rule.a + 2 && xs[k] < rule.b - 2) split[r * (cols + 1) + k] = 0;
      }
    }
    // A single text centered over the text columns of a ruled cell (or of the whole table) spans them.
    let i = 0;
    while (i < cols) {
      let j = i + 1;
      while (j < cols && !xRules[j]) j++;
      if (j - i >= 2) {
        const inside = words.filter((w) => box.centerX(w.box) > xs[i] && box.centerX(w.box) < xs[j]);
        if (inside.length > 0) {
          const used = new Set(inside.map((w) => bandIndex(xs, box.centerX(w.box))));
          const x1 = Math.min(...inside.map((w) => w.box.x1));
          const x2 = Math.max(...inside.map((w) => w.box.x2));
          const centered = Math.abs((x1 + x2) / 2 - (xs[i] + xs[j]) / 2) <= 0.08 * (xs[j] - xs[i]);
          if (used.size === 1 && centered) {
            for (let k = i + 1; k < j; k++) split[r * (cols + 1) + k] = 0;
          }
        }
      }
      i = j;
    }
  }
  const lattice: Lattice = {
    xs,
    ys,
    drawn: (i) => xRules[i] !== null,
    vSplit: (i, r) => split[r * (cols + 1) + i] === 1,
    hSplit: (j, c) => {
      const rules = yRules[j];
      return rules === null ? !cutOpen[j]?.has(c) : covered(rules, xs[c], xs[c + 1]) >= EDGE_COVER;
    },
  };
  const { regions, owner } = latticeRegions(lattice);
  const contents = assignRuns(lattice, regions, owner, runs);
  // Mostly empty cells (a chart's grid) or long prose in them (a page laid out in boxes) make no table.
  const filled = contents.filter((c) => c.length > 0);
  if (filled.length < 0.25 * regions.length) return null;
  const words = filled.reduce((n, c) => n + c.reduce((m, p) => m + p.text.split(/\s+/).length, 0), 0);
  if (words > 40 * filled.length && !namedColumns(regions, contents, xs.length - 1)) return null;
  return finishTable({
    lattice,
    regions,
    contents,
    headerRows: headerRows(frame, lattice, ys, yRules),
    method,
    drawnGrid: drawnGrid(frame, ys, yRules),
  });
}

/**
 * Whether every boundary of the lattice is a rule: each row's top and bottom ruled across the whole table, each
 * column's sides ruled from its top to its bottom (a form's grid, not a header band over one open box).
 */
function drawnGrid(frame: Frame, ys: readonly number[], yRules: readonly (Segment[] | null)[]): boolean {
  const { xs } = frame;
  const [top, bottom] = [ys[0], ys[ys.length - 1]];
  return (
    xs.length >= 3 &&
    ys.length >= 3 &&
    yRules.every((rules) => rules !== null && covered(rules, xs[0], xs[xs.length - 1]) >= EDGE_COVER) &&
    xs.every((_, i) => ruledV(frame, i, top, bottom))
  );
}

/**
 * Header rows from the ruling: the rows above the first rule spanning the whole table, when that rule is a
 * booktabs header rule, is drawn stronger than the others, or closes several rows that only partial rules divide.
 */
function headerRows(
  frame: Frame,
  lattice: Lattice,
  ys: readonly number[],
  yRules: (Segment[] | null)[],
): number | null {
  const cols = lattice.xs.length - 1;
  const rows = ys.length - 1;
  const interior: { j: number; width: number }[] = [];
  for (let j = 1; j < rows; j++) {
    const rules = yRules[j];
    if (!rules) continue;
    let full = true;
    for (let c = 0; c < cols && full; c++) full = lattice.hSplit(j, c);
    if (full) interior.push({ j, width: Math.max(...rules.map((s) => s.width)) });
  }
  if (interior.length === 0) return null;
  const first = interior[0];
  if (first.j > rows / 2 + 0.5) return null;
  if (frame.booktabs) return first.j;
  const others = interior.slice(1).map((e) => e.width);
  const strong = others.length > 0 && first.width >= 1.4 * Math.max(...others);
  const closesSeveral = first.j >= 2 && yRules.slice(1, first.j).some((r) => r !== null);
  return strong || closesSeveral ? first.j : null;
}
