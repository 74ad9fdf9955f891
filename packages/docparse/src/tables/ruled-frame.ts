/**
 * The frame of a ruled table: column and row boundaries, from the rules of a grid, plus columns the rules leave
 * out, found from the text's whitespace rivers inside each ruled column (as aligned.ts finds them). Kept apart
 * from the lattice (frame-table.ts) because list frames and booktabs tables build frames of their own.
 */
import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import { majorityGaps, sharedGaps, type WordLine, wordLines } from "./aligned.ts";
import { bandIndex, hasVisibleText } from "./cells.ts";
import type { Interval } from "./grid.ts";
import { covered, EDGE_COVER, lines, type Segment, SNAP } from "./rule-segments.ts";

/**
 * Horizontal runs bucketed by the lattice slot holding their center: `slots[r * cols + c]`. Runs outside are
 * left out; vertical runs too (text columns and rows are read from horizontal text).
 */
export function bucketRuns(
  runs: readonly TextRun[],
  xs: readonly number[],
  ys: readonly number[],
): TextRun[][] {
  const cols = xs.length - 1;
  const slots: TextRun[][] = Array.from({ length: cols * (ys.length - 1) }, () => []);
  for (const run of runs) {
    if (run.vertical) continue;
    const cx = box.centerX(run.box);
    const cy = box.centerY(run.box);
    if (cx < xs[0] || cx > xs[cols] || cy < ys[0] || cy > ys[ys.length - 1]) continue;
    slots[bandIndex(ys, cy) * cols + bandIndex(xs, cx)].push(run);
  }
  return slots;
}

/** Runs whose center lies in a box. */
export function runsIn(
  runs: readonly TextRun[],
  area: { x1: number; y1: number; x2: number; y2: number },
): TextRun[] {
  return runs.filter((r) => hasVisibleText(r.text) && box.containsCenter(area, r.box));
}

/**
 * What a table's frame is before the text refines it: column and row boundaries, for each whether a ruling line
 * draws it (the others come from text alignment), and the rules that do.
 */
export interface Frame {
  xs: number[];
  /** Rules drawn at xs[i], or null where the boundary comes from text alignment. */
  xRules: (Segment[] | null)[];
  ys: number[];
  yRules: Segment[][];
  /** Whether the first interior rule spanning the whole table is a booktabs header rule (rows above are headers). */
  booktabs: boolean;
  /** Whether the first band is one row of header labels, wrapped or not (found over the first rule: header-above.ts). */
  headerBand?: boolean;
}

/** Whether a ruled boundary xs[i] separates the cells between y0 and y1. */
export function ruledV(frame: Frame, i: number, y0: number, y1: number): boolean {
  const rules = frame.xRules[i];
  return rules !== null && covered(rules, y0, y1) >= EDGE_COVER;
}

/**
 * Columns the rules leave out: inside each ruled column, whitespace rivers shared by all its own cells (cells not
 * merged with a neighbour) become boundaries, when at least two cells really split at them and each side holds
 * text in at least two cells.
 */
export function addTextColumns(frame: Frame, runs: readonly TextRun[]): void {
  const xs: number[] = [frame.xs[0]];
  const xRules: (Segment[] | null)[] = [frame.xRules[0]];
  const rows = frame.ys.length - 1;
  const cols = frame.xs.length - 1;
  const slots = bucketRuns(runs, frame.xs, frame.ys);
  for (let c = 0; c < cols; c++) {
    const left = frame.xs[c];
    const right = frame.xs[c + 1];
    const cells: WordLine[][] = [];
    for (let r = 0; r < rows; r++) {
      const y0 = frame.ys[r];
      const y1 = frame.ys[r + 1];
      const own = (c === 0 || ruledV(frame, c, y0, y1)) && (c === cols - 1 || ruledV(frame, c + 1, y0, y1));
      if (!own) continue;
      const inCell = slots[r * cols + c];
      if (inCell.length > 0) cells.push(wordLines(inCell));
    }
    const all = cells.flat();
    const split = all.filter((line) => line.segments.length >= 2);
    // With many lines split into cells, a river most of them keep is a column even where a title, a section
    // label or a wide header word crosses it (those span the columns they cross).
    // A river a cell's own lines both split and cross (a calendar day's number set right of its date, the day's
    // note running on under both) is that cell's layout, not a column: its text is one piece there.
    const gaps = (
      split.length >= 6 && split.length * 2 >= all.length
        ? mergeGaps(sharedGaps(all), majorityGaps(split))
        : all.length >= 2
          ? sharedGaps(all)
          : []
    ).filter((gap) => !cells.some((cell) => crossedInCell(cell, gap)));
    const cuts = gaps.map((g) => (g.x1 + g.x2) / 2).filter((x) => x > left + 2 && x < right - 2);
    if (cuts.length > 0 && textColumnsHold(cells, cuts)) {
      for (const x of cuts) {
        xs.push(x);
        xRules.push(null);
      }
    }
    xs.push(right);
    xRules.push(frame.xRules[c + 1]);
  }
  frame.xs = xs;
  frame.xRules = xRules;
}

/**
 * Whether a cell's first line, alone of its lines, has text on both sides of `gap`, and a later line runs across
 * the gap's middle: the cell's head (a date and a number set at its two edges) over text that fills the cell. A
 * band of several rows splits on most of its lines, a spanning label crossing among them.
 */
function crossedInCell(cell: readonly WordLine[], gap: Interval): boolean {
  const splits = (line: WordLine) =>
    line.segments.some((s) => s.x2 <= gap.x1) && line.segments.some((s) => s.x1 >= gap.x2);
  const middle = (gap.x1 + gap.x2) / 2;
  const [head, ...rest] = cell;
  return (
    head !== undefined &&
    splits(head) &&
    !rest.some(splits) &&
    rest.some((line) => line.segments.some((s) => s.x1 < middle && s.x2 > middle))
  );
}

/** Two lists of gaps as one, a gap of the second left out where it overlaps one of the first. */
export function mergeGaps(first: readonly Interval[], second: readonly Interval[]): Interval[] {
  const extra = second.filter((g) => !first.some((f) => f.x1 < g.x2 && f.x2 > g.x1));
  return [...first, ...extra].sort((a, b) => a.x1 - b.x1);
}

export function textColumnsHold(cells: readonly WordLine[][], cuts: readonly number[]): boolean {
  const bounds = [Number.NEGATIVE_INFINITY, ...cuts, Number.POSITIVE_INFINITY];
  const filled = new Array<number>(cuts.length + 1).fill(0);
  let splitCells = 0;
  for (const cell of cells) {
    const used = new Set<number>();
    for (const line of cell) for (const w of line.words) used.add(bandIndex(bounds, box.centerX(w.box)));
    for (const k of used) filled[k]++;
    if (used.size >= 2) splitCells++;
  }
  return splitCells >= 2 && filled.every((n) => n >= 2);
}

/** A grid of horizontal and vertical rules: boundaries from the rules, with the outer edges where no rule is drawn. */
export function gridFrame(hs: readonly Segment[], vs: readonly Segment[]): Frame | null {
  const hLines = lines(hs);
  const vLines = lines(vs);
  const xs = vLines.map((l) => l.pos);
  const xRules: (Segment[] | null)[] = vLines.map((l) => l.segments);
  const ys = hLines.map((l) => l.pos);
  const yRules: Segment[][] = hLines.map((l) => l.segments);
  const left = Math.min(...hs.map((s) => s.a));
  const right = Math.max(...hs.map((s) => s.b));
  const top = Math.min(...vs.map((s) => s.a));
  const bottom = Math.max(...vs.map((s) => s.b));
  if (left < xs[0] - SNAP) {
    xs.unshift(left);
    xRules.unshift([]);
  }
  if (right > xs[xs.length - 1] + SNAP) {
    xs.push(right);
    xRules.push([]);
  }
  if (top < ys[0] - SNAP) {
    ys.unshift(top);
    yRules.unshift([]);
  }
  if (bottom > ys[ys.length - 1] + SNAP) {
    ys.push(bottom);
    yRules.push([]);
  }
  if (xs.length < 2 || ys.length < 2 || xs.length * ys.length < 6) return null;
  return { xs, xRules, ys, yRules, booktabs: false };
}

/** Share of the lattice's inner edges a rule draws: high for tables, low for diagrams of boxes and connectors. */
export function ruledShare(frame: Frame): number {
  let edges = 0;
  let drawn = 0;
  const { xs, ys } = frame;
  for (let i = 1; i < xs.length - 1; i++) {
    for (let r = 0; r < ys.length - 1; r++) {
      edges++;
      if (ruledV(frame, i, ys[r], ys[r + 1])) drawn++;
    }
  }
  for (let j = 1; j < ys.length - 1; j++) {
    for (let c = 0; c < xs.length - 1; c++) {
      edges++;
      if (covered(frame.yRules[j], xs[c], xs[c + 1]) >= EDGE_COVER) drawn++;
    }
  }
  return edges === 0 ? 1 : drawn / edges;
}

export function frameBox(frame: Frame): Box {
  return {
    x1: frame.xs[0],
    y1: frame.ys[0],
    x2: frame.xs[frame.xs.length - 1],
    y2: frame.ys[frame.ys.length - 1],
  };
}
