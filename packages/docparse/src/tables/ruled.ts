import type { Box } from "../model.ts";
import {
  box,
  type DetectedTable,
  type PageGeometry,
  type Rule,
  type TextRun,
} from "../paginated/geometry.ts";
import {
  columnStats,
  columnsBetween,
  gridOf,
  type Interval,
  isProse,
  majorityGaps,
  sharedGaps,
  type WordLine,
  wordLines,
} from "./aligned.ts";
import { alignedRowCuts } from "./aligned-rows.ts";
import {
  assignRuns,
  bandIndex,
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
import { listColumns } from "./list-columns.ts";
import { namedColumns } from "./named-columns.ts";

/**
 * Tables drawn with ruling lines: full grids (cells boxed by horizontal and vertical rules, merged cells where an
 * inner rule is missing) and horizontally ruled tables in the booktabs style (top rule, header rule, bottom rule,
 * columns only by alignment). Columns a grid leaves unruled and rows a band of rules holds several of are found
 * from the text, with the same whitespace rivers as aligned.ts.
 */

/** Rules closer than this are one line; segments of one line with a smaller gap are one segment. */
const SNAP = 2;
const JOIN_GAP = 3;
const LINE_GAP = 4;
/** How much of a lattice edge a rule must cover to separate the two cells. */
const EDGE_COVER = 0.6;

/** A merged ruling line: `pos` is its y (horizontal) or x (vertical), [a, b] its extent along the other axis. */
interface Segment {
  pos: number;
  a: number;
  b: number;
  width: number;
}

/** Collinear rules joined: positions within SNAP are one line, pieces with gaps under JOIN_GAP one segment. */
function mergeSegments(rules: readonly Rule[], orientation: "h" | "v"): Segment[] {
  const raw: Segment[] = [];
  for (const r of rules) {
    if (r.orientation !== orientation) continue;
    raw.push(
      orientation === "h"
        ? { pos: (r.y1 + r.y2) / 2, a: Math.min(r.x1, r.x2), b: Math.max(r.x1, r.x2), width: r.width }
        : { pos: (r.x1 + r.x2) / 2, a: Math.min(r.y1, r.y2), b: Math.max(r.y1, r.y2), width: r.width },
    );
  }
  raw.sort((p, q) => p.pos - q.pos);
  const merged: Segment[] = [];
  let i = 0;
  while (i < raw.length) {
    let j = i + 1;
    while (j < raw.length && raw[j].pos - raw[j - 1].pos <= SNAP) j++;
    const group = raw.slice(i, j).sort((p, q) => p.a - q.a);
    let current: Segment | null = null;
    let count = 0;
    let posSum = 0;
    const flush = () => {
      if (current && current.b - current.a >= 2) merged.push({ ...current, pos: posSum / count });
    };
    for (const s of group) {
      if (current && s.a <= current.b + JOIN_GAP) {
        current.b = Math.max(current.b, s.b);
        current.width = Math.max(current.width, s.width);
        count++;
        posSum += s.pos;
        continue;
      }
      flush();
      current = { ...s };
      count = 1;
      posSum = s.pos;
    }
    flush();
    i = j;
  }
  return merged;
}

/** Groups of rules touching each other (horizontal and vertical segments that cross or meet within SNAP). */
function connectedGroups(hs: readonly Segment[], vs: readonly Segment[]): { hs: Segment[]; vs: Segment[] }[] {
  const parent = Array.from({ length: hs.length + vs.length }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const byX = vs.map((v, i) => ({ v, i })).sort((p, q) => p.v.pos - q.v.pos);
  const xs = byX.map((e) => e.v.pos);
  hs.forEach((h, hi) => {
    for (let k = lowerBound(xs, h.a - SNAP); k < byX.length && byX[k].v.pos <= h.b + SNAP; k++) {
      const { v, i } = byX[k];
      if (h.pos >= v.a - SNAP && h.pos <= v.b + SNAP) parent[find(hi)] = find(hs.length + i);
    }
  });
  const groups = new Map<number, { hs: Segment[]; vs: Segment[] }>();
  const group = (i: number) => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) {
      g = { hs: [], vs: [] };
      groups.set(root, g);
    }
    return g;
  };
  hs.forEach((h, i) => {
    group(i).hs.push(h);
  });
  vs.forEach((v, i) => {
    group(hs.length + i).vs.push(v);
  });
  return [...groups.values()];
}

function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Distinct line positions: the segments clustered by position, each cluster with its segments. Lines closer than
 * LINE_GAP (a double rule, a cell's shading beside its border) are one: no row or column is that thin.
 */
function lines(segments: readonly Segment[]): { pos: number; segments: Segment[] }[] {
  const sorted = [...segments].sort((p, q) => p.pos - q.pos);
  const out: { pos: number; segments: Segment[] }[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.pos - last.segments[last.segments.length - 1].pos < LINE_GAP) last.segments.push(s);
    else out.push({ pos: s.pos, segments: [s] });
  }
  for (const line of out) line.pos = line.segments.reduce((sum, s) => sum + s.pos, 0) / line.segments.length;
  return out;
}

/** The share of [a, b] covered by segments. */
function covered(segments: readonly Segment[], a: number, b: number): number {
  if (b <= a) return 0;
  let total = 0;
  for (const s of segments) total += Math.max(0, Math.min(b, s.b) - Math.max(a, s.a));
  return total / (b - a);
}

/**
 * Horizontal runs bucketed by the lattice slot holding their center: `slots[r * cols + c]`. Runs outside are
 * left out; vertical runs too (text columns and rows are read from horizontal text).
 */
function bucketRuns(runs: readonly TextRun[], xs: readonly number[], ys: readonly number[]): TextRun[][] {
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
function runsIn(
  runs: readonly TextRun[],
  area: { x1: number; y1: number; x2: number; y2: number },
): TextRun[] {
  return runs.filter((r) => hasVisibleText(r.text) && box.containsCenter(area, r.box));
}

/**
 * What a table's frame is before the text refines it: column and row boundaries, for each whether a ruling line
 * draws it (the others come from text alignment), and the rules that do.
 */
interface Frame {
  xs: number[];
  /** Rules drawn at xs[i], or null where the boundary comes from text alignment. */
  xRules: (Segment[] | null)[];
  ys: number[];
  yRules: Segment[][];
  /** Whether the first interior rule spanning the whole table is a booktabs header rule (rows above are headers). */
  booktabs: boolean;
}

/** Whether a ruled boundary xs[i] separates the cells between y0 and y1. */
function ruledV(frame: Frame, i: number, y0: number, y1: number): boolean {
  const rules = frame.xRules[i];
  return rules !== null && covered(rules, y0, y1) >= EDGE_COVER;
}

/**
 * Columns the rules leave out: inside each ruled column, whitespace rivers shared by all its own cells (cells not
 * merged with a neighbour) become boundaries, when at least two cells really split at them and each side holds
 * text in at least two cells.
 */
function addTextColumns(frame: Frame, runs: readonly TextRun[]): void {
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
    const gaps =
      split.length >= 6 && split.length * 2 >= all.length
        ? mergeGaps(sharedGaps(all), majorityGaps(split))
        : all.length >= 2
          ? sharedGaps(all)
          : [];
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
 * Columns of a list's frame (one ruled cell holding a whole list): whitespace rivers its lines share, or most of
 * its lines split at, as addTextColumns finds them over cells, each line taken as a cell.
 */
function addListColumns(frame: Frame, runs: readonly TextRun[]): void {
  const all = wordLines(runs);
  const split = all.filter((line) => line.segments.length >= 2);
  const gaps =
    split.length >= 6 && split.length * 2 >= all.length
      ? mergeGaps(sharedGaps(all), majorityGaps(split))
      : sharedGaps(all);
  const [left, right] = [frame.xs[0], frame.xs[frame.xs.length - 1]];
  const cuts = gaps.map((g) => (g.x1 + g.x2) / 2).filter((x) => x > left + 2 && x < right - 2);
  if (
    cuts.length === 0 ||
    !textColumnsHold(
      all.map((line) => [line]),
      cuts,
    )
  )
    return;
  frame.xs = [left, ...cuts, right];
  frame.xRules = [frame.xRules[0], ...cuts.map(() => null), frame.xRules[frame.xRules.length - 1]];
}

/** Two lists of gaps as one, a gap of the second left out where it overlaps one of the first. */
function mergeGaps(first: readonly Interval[], second: readonly Interval[]): Interval[] {
  const extra = second.filter((g) => !first.some((f) => f.x1 < g.x2 && f.x2 > g.x1));
  return [...first, ...extra].sort((a, b) => a.x1 - b.x1);
}

function textColumnsHold(cells: readonly WordLine[][], cuts: readonly number[]): boolean {
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

interface RowWords {
  y0: number;
  y1: number;
  words: TextPiece[];
}

/**
 * Text rows inside one band between two horizontal boundaries. The band splits at its text lines when every line
 * stands apart (no line straddles two others, as a label centered beside a pair of rows does); a line with text
 * in one column only, under text in that column, continues the row above (a wrapped cell), unless that column is
 * the first in the line's reading direction (the last for right-to-left text): a row's label column. Returns the inner boundaries; none when the band holds fewer than two rows of two or more cells.
 */
function textRowCuts(lines: readonly WordLine[], xs: readonly number[]): number[] {
  if (lines.length < 2) return [];
  const cuts: number[] = [];
  let groupColumns = new Set<number>();
  let multi = 0;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const columns = new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
    if (k > 0) {
      const prev = lines[k - 1];
      const overlap = Math.min(prev.y2, line.y2) - Math.max(prev.y1, line.y1);
      const smaller = Math.min(prev.y2 - prev.y1, line.y2 - line.y1);
      if (overlap > 0.3 * smaller) return [];
      const [only] = columns;
      const rtl = line.words.filter((w) => w.dir === "rtl").length * 2 > line.words.length;
      const label = rtl ? xs.length - 2 : 0;
      const continues =
        (columns.size === 1 && only !== label && groupColumns.has(only)) ||
        wrapsOn(prev, line, xs, lines) ||
        (runsAcross(prev, xs) && runsAcross(line, xs));
      if (!continues) {
        cuts.push((Math.min(prev.y2, line.y1) + Math.max(prev.y2, line.y1)) / 2);
        if (groupColumns.size >= 2) multi++;
        groupColumns = new Set();
      }
    }
    for (const c of columns) groupColumns.add(c);
  }
  if (groupColumns.size >= 2) multi++;
  return multi >= 2 ? cuts : [];
}

/**
 * A line of prose set across the band's columns (a declaration under a form's item table): it crosses an inner
 * column boundary with no column gap there. Two such lines in a row are one paragraph, not a row per line.
 */
function runsAcross(line: WordLine, xs: readonly number[]): boolean {
  if (line.words.length === 0) return false;
  const left = Math.min(...line.words.map((w) => w.box.x1));
  const right = Math.max(...line.words.map((w) => w.box.x2));
  const inner = xs.slice(1, -1).filter((x) => x > left && x < right);
  return inner.length > 0 && inner.every((x) => !columnGapAt(line.words, x, left, right));
}

/**
 * A band whose every column holds running text (see `isProse`): paragraphs side by side in one ruled cell each, a
 * column of do's beside a column of don'ts, not rows.
 */
function proseBand(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  const columns = new Map<number, TextPiece[][]>();
  for (const line of bandLines) {
    const cells = new Map<number, TextPiece[]>();
    for (const w of line.words) {
      const c = bandIndex(xs, box.centerX(w.box));
      cells.set(c, [...(cells.get(c) ?? []), w]);
    }
    for (const [c, cell] of cells) columns.set(c, [...(columns.get(c) ?? []), cell]);
  }
  if (columns.size === 0) return false;
  for (const cells of columns.values()) {
    const left = Math.min(...cells.map((cell) => cell[0].box.x1));
    const right = Math.max(...cells.map((cell) => cell[cell.length - 1].box.x2));
    const words = cells.reduce((n, cell) => n + cell.reduce((m, w) => m + w.text.split(/\s+/).length, 0), 0);
    const full = cells.filter(
      (cell) => cell[cell.length - 1].box.x2 - cell[0].box.x1 >= 0.8 * (right - left),
    ).length;
    if (!isProse({ filled: cells.length, words, full, numeric: 0, markers: 0 })) return false;
  }
  return true;
}

/**
 * A band ruled around a group of rows (a rule every five rows of a statistics table, a box around a ledger's
 * entries, a price sheet's group under its name): lines each with text in the same three columns or more and a
 * number among them, two or more of them or one under the group's heading. A row whose cells wrap has lines with
 * text in fewer columns than its first (the number, the amount, the date stand on one line only).
 */
function rowGroup(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  if (bandLines.length < 2) return false;
  const keys = bandLines.map((line) =>
    [...new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))))].sort((a, b) => a - b),
  );
  // A heading over the group may come first: its name in the label column, set out to the left of the rows'
  // labels, perhaps a note at the row's end.
  const left = (line: WordLine) => Math.min(...line.words.map((w) => w.box.x1));
  const heading =
    keys[0][0] === 0 &&
    keys[0].length <= 2 &&
    keys[1].length >= 3 &&
    left(bandLines[0]) < left(bandLines[1]) - 2;
  const rows = heading ? keys.slice(1) : keys;
  const lines = heading ? bandLines.slice(1) : bandLines;
  // Each a row of data, with a number in it: lines of words alone in the same columns are a wrapped header.
  const data = lines.every((line) => line.words.some((w) => isNumeric(w.text)));
  return data && rows[0].length >= 3 && rows.every((k) => k.join() === rows[0].join());
}

/**
 * The top band of a table is its header of wrapped labels, one row, when its lines hold words and no numbers and
 * its label column (the first in the lines' reading direction) has text on the first line only while other
 * columns go on below it: rows of data stacked in one band would each have a label.
 */
function wrappedHeader(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  if (bandLines.length < 2) return false;
  const words = bandLines.flatMap((line) => line.words);
  if (words.some((w) => isNumeric(w.text))) return false;
  const rtl = words.filter((w) => w.dir === "rtl").length * 2 > words.length;
  const label = rtl ? xs.length - 2 : 0;
  const columns = (line: WordLine) => new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
  const [first, ...rest] = bandLines.map(columns);
  return first.has(label) && first.size >= 2 && rest.every((cols) => !cols.has(label));
}

/**
 * The columns of band r its rules leave open above or below (a cell running on past the band), when others are
 * closed on both sides and a vertical rule sets the open ones apart (none otherwise: the band is read whole).
 */
function openColumns(frame: Frame, r: number): Set<number> {
  const { xs, yRules } = frame;
  const open = new Set<number>();
  for (let c = 0; c < xs.length - 1; c++) {
    const above = covered(yRules[r], xs[c], xs[c + 1]) >= EDGE_COVER;
    const below = covered(yRules[r + 1], xs[c], xs[c + 1]) >= EDGE_COVER;
    if (!above || !below) open.add(c);
  }
  if (open.size === xs.length - 1) return new Set();
  // Only a cell boxed apart counts: a vertical rule divides each open column from a closed neighbour.
  for (let i = 1; i < xs.length - 1; i++) {
    if (open.has(i - 1) !== open.has(i) && !ruledV(frame, i, frame.ys[r], frame.ys[r + 1])) return new Set();
  }
  return open;
}

/**
 * The lines of a band with the words of its open columns left out: a cell that runs on past the band (a chart
 * boxed beside the table) is not one of its rows.
 */
function closedLines(
  bandLines: readonly WordLine[],
  xs: readonly number[],
  open: ReadonlySet<number>,
): readonly WordLine[] {
  if (open.size === 0) return bandLines;
  const out: WordLine[] = [];
  for (const line of bandLines) {
    const words = line.words.filter((w) => !open.has(bandIndex(xs, box.centerX(w.box))));
    if (words.length === 0) continue;
    if (words.length === line.words.length) {
      out.push(line);
      continue;
    }
    const y1 = Math.min(...words.map((w) => w.box.y1));
    const y2 = Math.max(...words.map((w) => w.box.y2));
    out.push({ ...line, words, y1, y2 });
  }
  return out;
}

/**
 * Whether every cell of `line` goes on with the text of the line above in its column (see `wrapsFrom`): lines
 * wrapped in parallel, as the paragraphs of boxes side by side are, make one row, not a row per line.
 */
function wrapsOn(prev: WordLine, line: WordLine, xs: readonly number[], band: readonly WordLine[]): boolean {
  const inColumn = (l: WordLine, c: number) => l.words.filter((w) => bandIndex(xs, box.centerX(w.box)) === c);
  const columns = new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
  if (columns.size === 0) return false;
  for (const c of columns) {
    const all = band.flatMap((l) => inColumn(l, c));
    const left = Math.min(...all.map((w) => w.box.x1));
    const right = Math.max(...all.map((w) => w.box.x2));
    if (!wrapsFrom(inColumn(prev, c), inColumn(line, c), left, right)) return false;
  }
  return true;
}

/**
 * Whether words of a row stand on both sides of x, between left and right, with no word within a column gap
 * (three quarters of an em) across x: two cells that happen to lack the rule between them.
 */
function columnGapAt(words: readonly TextPiece[], x: number, left: number, right: number): boolean {
  let before = Number.NEGATIVE_INFINITY;
  let after = Number.POSITIVE_INFINITY;
  let size = 0;
  for (const w of words) {
    const cx = box.centerX(w.box);
    if (cx <= left || cx >= right) continue;
    if (w.box.x1 < x && w.box.x2 > x) return false;
    if (w.box.x2 <= x) before = Math.max(before, w.box.x2);
    else after = Math.min(after, w.box.x1);
    size = Math.max(size, w.fontSize);
  }
  return Number.isFinite(before) && Number.isFinite(after) && after - before >= 0.75 * size;
}

/**
 * Stretches of one text line's words no more than 0.55 em apart (word spaces, not the gap between two cells), for
 * the words of a row: each line of the row apart.
 */
function stretches(words: readonly TextPiece[]): (Interval & { words: TextPiece[] })[] {
  const out: (Interval & { words: TextPiece[] })[] = [];
  for (const line of groupLines(words)) {
    let current: (Interval & { words: TextPiece[] }) | null = null;
    for (const w of line) {
      if (current && w.box.x1 - current.x2 <= 0.55 * w.fontSize) {
        current.x2 = Math.max(current.x2, w.box.x2);
        current.words.push(w);
      } else {
        current = { x1: w.box.x1, x2: w.box.x2, words: [w] };
        out.push(current);
      }
    }
  }
  return out;
}

/**
 * Whether a stretch of words breaks at boundary xs[i] between two words each inside its own column and centered
 * on that column's text (`middles`, see columnMiddles): the sub-headers of a tightly set multi-level header
 * (`Rhythm`, `With- drawal`, `Folk method` under their group), not a label running across the columns.
 */
function centeredApart(
  words: readonly TextPiece[],
  xs: readonly number[],
  middles: readonly number[],
  i: number,
): boolean {
  if (words.some((w) => w.box.x1 < xs[i] && w.box.x2 > xs[i])) return false;
  const left = words.filter((w) => w.box.x2 <= xs[i]).at(-1);
  const right = words.find((w) => w.box.x1 >= xs[i]);
  const centered = (w: TextPiece | undefined, c: number) =>
    w !== undefined &&
    w.box.x1 >= xs[c] &&
    w.box.x2 <= xs[c + 1] &&
    Math.abs(box.centerX(w.box) - middles[c]) <= 0.1 * (xs[c + 1] - xs[c]);
  return centered(left, i - 1) && centered(right, i);
}

/** Per column, the middle of the extent of the words that lie wholly inside it (its middle, with none). */
function columnMiddles(words: readonly TextPiece[], xs: readonly number[]): number[] {
  return xs.slice(0, -1).map((a, c) => {
    const b = xs[c + 1];
    const inside = words.filter((w) => w.box.x1 >= a && w.box.x2 <= b);
    if (inside.length === 0) return (a + b) / 2;
    return (Math.min(...inside.map((w) => w.box.x1)) + Math.max(...inside.map((w) => w.box.x2))) / 2;
  });
}

/**
 * The table of a frame: text rows added inside bands that hold several aligned lines, then the lattice, with
 * ruled boundaries present where their rules cover the edge and text boundaries present unless text crosses them
 * or a single text is centered over the columns they divide (a spanning header).
 */
function frameTable(
  frame: Frame,
  runs: readonly TextRun[],
  method: DetectedTable["method"],
): DetectedTable | null {
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
  const plans = bands.map((band, r) => {
    const open = openColumns(frame, r);
    const bandLines = closedLines(band, xs, open);
    const many =
      !(r === 0 && baseRows >= 3 && wrappedHeader(bandLines, xs)) &&
      ((bandLines.length >= 3 && bandLines.length >= 2 * typical) ||
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
  });
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

/** A grid of horizontal and vertical rules: boundaries from the rules, with the outer edges where no rule is drawn. */
function gridFrame(hs: readonly Segment[], vs: readonly Segment[]): Frame | null {
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

/**
 * Boundaries less than PADDING apart with no text between them are one: a shaded cell painted as padding strips
 * beside a content area cut in pieces (one per line of a wrapped header) leaves the strip's edge and the pieces'
 * edges a few points apart, and no column or row that thin holds nothing. The boundary whose rules cover more of
 * the table stays, with the rules of both; at the table's sides, the outer one.
 */
function mergeSlivers(frame: Frame, runs: readonly TextRun[]): void {
  const texts = runs.filter((r) => !r.vertical);
  const merge = (
    pos: number[],
    rules: (Segment[] | null)[],
    span: [number, number],
    center: (b: Box) => number,
  ) => {
    for (let i = 0; i + 1 < pos.length; ) {
      const [a, b] = [pos[i], pos[i + 1]];
      const empty = !texts.some((r) => center(r.box) > a && center(r.box) < b);
      if (b - a >= PADDING || !empty) {
        i++;
        continue;
      }
      const cover = (k: number) => covered(rules[k] ?? [], span[0], span[1]);
      const keep = i === 0 ? i : i + 1 === pos.length - 1 ? i + 1 : cover(i) >= cover(i + 1) ? i : i + 1;
      const drop = keep === i ? i + 1 : i;
      rules[keep] = [...(rules[keep] ?? []), ...(rules[drop] ?? [])];
      pos.splice(drop, 1);
      rules.splice(drop, 1);
    }
  };
  const [x1, x2] = [frame.xs[0], frame.xs[frame.xs.length - 1]];
  const [y1, y2] = [frame.ys[0], frame.ys[frame.ys.length - 1]];
  merge(frame.xs, frame.xRules, [y1, y2], box.centerX);
  merge(frame.ys, frame.yRules, [x1, x2], box.centerY);
}

/**
 * Horizontal boundaries drawn by nothing but the edges of fills, with text on one side only in the columns they
 * divide: a cell's shading painted in two pieces (the lines of text, then the padding under them) is one cell,
 * not a row of text over an empty row. A boundary with text on both sides, or drawn by a stroked rule, stays.
 */
function dropFillSeams(frame: Frame, runs: readonly TextRun[]): void {
  const { xs, ys, yRules } = frame;
  const texts = runs.filter((r) => !r.vertical);
  for (let j = 1; j + 1 < ys.length; ) {
    const rules = yRules[j];
    const columns: [number, number][] = [];
    for (let c = 0; c + 1 < xs.length; c++) {
      if (covered(rules, xs[c], xs[c + 1]) >= EDGE_COVER) columns.push([xs[c], xs[c + 1]]);
    }
    const holdsText = (y0: number, y1: number) =>
      texts.some((r) => {
        const [cx, cy] = [box.centerX(r.box), box.centerY(r.box)];
        return cy > y0 && cy < y1 && columns.some(([a, b]) => cx > a && cx < b);
      });
    const seam =
      rules.length > 0 &&
      rules.every((s) => s.width === 0) &&
      columns.length > 0 &&
      holdsText(ys[j - 1], ys[j]) !== holdsText(ys[j], ys[j + 1]);
    if (!seam) {
      j++;
      continue;
    }
    ys.splice(j, 1);
    yRules.splice(j, 1);
  }
}

/** Share of the lattice's inner edges a rule draws: high for tables, low for diagrams of boxes and connectors. */
function ruledShare(frame: Frame): number {
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

/** The table of one group of connected rules, or null (too few ruled edges, too little text, boxes side by side). */
function groupTable(
  group: { hs: Segment[]; vs: Segment[] },
  pageRuns: readonly TextRun[],
): DetectedTable | null {
  const frame = gridFrame(group.hs, group.vs);
  if (!frame || ruledShare(frame) < 0.6) return null;
  const area = {
    x1: frame.xs[0],
    y1: frame.ys[0],
    x2: frame.xs[frame.xs.length - 1],
    y2: frame.ys[frame.ys.length - 1],
  };
  const runs = runsIn(pageRuns, area);
  mergeSlivers(frame, runs);
  dropFillSeams(frame, runs);
  addTextColumns(frame, runs);
  const table = frameTable(frame, runs, "ruled");
  // One ruled row holding fewer than three rows of text is boxes side by side (cards, a title over a
  // paragraph in each), not a table: a table shows rows of cells, ruled or aligned over several lines.
  return table && (frame.ys.length > 2 || table.numRows >= 3) ? table : null;
}

/**
 * The tables of a group of rules framing lists side by side (see listFrames): each ruled column a table of its
 * own when it reads as one; null when the group frames no such lists.
 */
function listTables(
  group: { hs: Segment[]; vs: Segment[] },
  pageRuns: readonly TextRun[],
): DetectedTable[] | null {
  const frame = gridFrame(group.hs, group.vs);
  if (!frame || ruledShare(frame) < 0.6) return null;
  const lists = listFrames(frame, pageRuns);
  if (!lists) return null;
  const tables: DetectedTable[] = [];
  for (const list of lists) {
    const runs = runsIn(pageRuns, frameBox(list));
    addListColumns(list, runs);
    const table = frameTable(list, runs, "ruled");
    if (table && table.numRows >= 3) tables.push(table);
  }
  return tables;
}

/**
 * The tables of one group of connected rules. A frame around the page's content (a drawing sheet's border joined
 * to its title block, a form's outline) is no table when it makes none or its largest cell takes half its area (a
 * nearly empty frame): the grids inside it, its border taken away, are the tables, when there are any.
 */
function groupTables(
  group: { hs: Segment[]; vs: Segment[] },
  page: PageGeometry,
  peeled: number,
): DetectedTable[] {
  const lists = listTables(group, page.runs);
  if (lists) return lists;
  const table = groupTable(group, page.runs);
  if (peeled >= MAX_PEELS || !framesPage(group, page) || (table && !mostlyOneCell(table))) {
    return table ? [table] : [];
  }
  const inner = withoutBorder(group).flatMap((g) =>
    g.vs.length > 0 && g.hs.length > 0 ? groupTables(g, page, peeled + 1) : [],
  );
  return inner.length > 0 ? inner : table ? [table] : [];
}

/** Whether one cell of a table covers half its area or more. */
function mostlyOneCell(table: DetectedTable): boolean {
  const area = (b: Box) => Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);
  const whole = area(table.box);
  return whole > 0 && table.cells.some((cell) => area(cell.box) >= 0.5 * whole);
}

/** How many borders are taken off a frame in turn (a sheet's trim line, then its drawing frame). */
const MAX_PEELS = 2;

/** Whether a group of rules spans most of the page both ways: a frame around the page's content. */
function framesPage(group: { hs: Segment[]; vs: Segment[] }, page: PageGeometry): boolean {
  const width = Math.max(...group.hs.map((s) => s.b)) - Math.min(...group.hs.map((s) => s.a));
  const height = Math.max(...group.vs.map((s) => s.b)) - Math.min(...group.vs.map((s) => s.a));
  return width >= 0.6 * page.width && height >= 0.6 * page.height;
}

/**
 * The groups of rules left when the border of a group is taken away: the rules that run along nine tenths of its
 * width or height (a frame's sides; a title block's top line running from side to side goes with them) no longer
 * join what lies inside. Each group gets back the pieces of those rules that cross or bound it (the frame's side
 * that is a title block's edge).
 */
function withoutBorder(group: { hs: Segment[]; vs: Segment[] }): { hs: Segment[]; vs: Segment[] }[] {
  const width = Math.max(...group.hs.map((s) => s.b)) - Math.min(...group.hs.map((s) => s.a));
  const height = Math.max(...group.vs.map((s) => s.b)) - Math.min(...group.vs.map((s) => s.a));
  const longH = group.hs.filter((s) => s.b - s.a >= 0.9 * width);
  const longV = group.vs.filter((s) => s.b - s.a >= 0.9 * height);
  if (longH.length === 0 && longV.length === 0) return [];
  const hs = group.hs.filter((s) => !longH.includes(s));
  const vs = group.vs.filter((s) => !longV.includes(s));
  const clip = (long: readonly Segment[], lo: number, hi: number, a: number, b: number): Segment[] =>
    long
      .filter((s) => s.pos >= lo - SNAP && s.pos <= hi + SNAP)
      .map((s) => ({ ...s, a: Math.max(s.a, a), b: Math.min(s.b, b) }))
      .filter((s) => s.b - s.a > 2);
  return connectedGroups(hs, vs).map((inner) => {
    const all = [...inner.hs, ...inner.vs];
    const left = Math.min(...inner.hs.map((s) => s.a), ...inner.vs.map((s) => s.pos));
    const right = Math.max(...inner.hs.map((s) => s.b), ...inner.vs.map((s) => s.pos));
    const top = Math.min(...inner.vs.map((s) => s.a), ...inner.hs.map((s) => s.pos));
    const bottom = Math.max(...inner.vs.map((s) => s.b), ...inner.hs.map((s) => s.pos));
    if (all.length === 0) return inner;
    return {
      hs: [...inner.hs, ...clip(longH, top, bottom, left, right)],
      vs: [...inner.vs, ...clip(longV, left, right, top, bottom)],
    };
  });
}

/**
 * Horizontally ruled tables: rules of the same extent stacked down the page (top, header, bottom) with text
 * between them that falls into columns; shorter rules inside (cmidrules) divide header rows.
 */
function booktabsTables(hs: readonly Segment[], runs: readonly TextRun[]): DetectedTable[] {
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
    for (let k = 1; k < stack.length; k++) {
      const band = runsIn(runs, {
        x1: first.a - tol,
        y1: stack[k - 1].pos,
        x2: first.b + tol,
        y2: stack[k].pos,
      });
      if (band.length === 0 || !bandIsTabular(wordLines(band))) break;
      end = k;
    }
    if (end === 0) continue;
    const rules = stack.slice(0, end + 1);
    for (const s of rules) used.add(s);
    const top = rules[0].pos;
    const bottom = rules[rules.length - 1].pos;
    const area = { x1: first.a - tol, y1: top, x2: first.b + tol, y2: bottom };
    const inside = runsIn(runs, area);
    const textLines = wordLines(inside);
    const multi = textLines.filter((l) => l.segments.length >= 2);
    if (multi.length < 2) continue;
    const gaps = sharedGaps(multi).filter((g) => g.x1 > first.a - tol && g.x2 < first.b + tol);
    if (gaps.length === 0 || !columnsReadAsTable(textLines, gaps, rules.length)) continue;
    const partial = sorted.filter(
      (s) =>
        s.pos > top + SNAP &&
        s.pos < bottom - SNAP &&
        !rules.includes(s) &&
        s.a >= first.a - tol &&
        s.b <= first.b + tol,
    );
    for (const s of partial) used.add(s);
    const yLines = lines([...rules, ...partial]);
    const textCuts = gaps.map((g) => (g.x1 + g.x2) / 2);
    const cuts = underlinedColumns(partial, first, textCuts, textLines) ?? textCuts;
    const frame: Frame = {
      xs: [
        Math.min(first.a, ...inside.map((r) => r.box.x1)),
        ...cuts,
        Math.max(first.b, ...inside.map((r) => r.box.x2)),
      ],
      xRules: [[], ...cuts.map(() => null), []],
      ys: yLines.map((l) => l.pos),
      yRules: yLines.map((l) => l.segments),
      booktabs: rules.length >= 3,
    };
    const table = frameTable(frame, inside, "ruled");
    // Between a top and a bottom rule alone (no header rule) sits many a code listing or boxed note: ask for rows.
    if (table && (rules.length >= 3 || rowsOfSeveralCells(table) >= 3)) tables.push(table);
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

function rowsOfSeveralCells(table: DetectedTable): number {
  const perRow = new Map<number, number>();
  for (const cell of table.cells) if (cell.text !== "") perRow.set(cell.row, (perRow.get(cell.row) ?? 0) + 1);
  return [...perRow.values()].filter((n) => n >= 2).length;
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

/** Rectangles closer than this are taken to touch; one thinner than PADDING across is a cell's padding strip. */
const ABUT = 0.6;
const PADDING = 8;

/**
 * Padding strips joined to the fill they touch along a whole side: word processors paint a cell as its padding
 * strips and its content area side by side, and read apart, those seams would cut each column in three. Fills
 * of whole cells that touch stay apart: their common edge is where a colour changes, a cell boundary.
 */
function joinAbutting(rects: readonly Box[]): Box[] {
  let current = rects.map((r) => ({ ...r }));
  for (const axis of ["x", "y"] as const) {
    // Side by side along x (same top and bottom), then stacked along y (same left and right).
    const key = (r: Box) =>
      axis === "x"
        ? `${Math.round(r.y1 / ABUT)}:${Math.round(r.y2 / ABUT)}`
        : `${Math.round(r.x1 / ABUT)}:${Math.round(r.x2 / ABUT)}`;
    const groups = new Map<string, Box[]>();
    for (const r of current) {
      const k = key(r);
      const group = groups.get(k);
      if (group) group.push(r);
      else groups.set(k, [r]);
    }
    const next: Box[] = [];
    for (const group of groups.values()) {
      const start = (r: Box) => (axis === "x" ? r.x1 : r.y1);
      const end = (r: Box) => (axis === "x" ? r.x2 : r.y2);
      group.sort((a, b) => start(a) - start(b));
      const isThin = (r: Box) => end(r) - start(r) < PADDING;
      // A strip joins the fill beside it, never another strip: between two strips (one cell's right padding,
      // the next one's left) runs the boundary of the two cells.
      let merged: Box | null = null;
      let previous: Box | null = null;
      for (const r of group) {
        if (
          merged &&
          previous &&
          Math.abs(start(r) - end(previous)) <= ABUT &&
          isThin(previous) !== isThin(r)
        ) {
          if (axis === "x") merged.x2 = Math.max(merged.x2, r.x2);
          else merged.y2 = Math.max(merged.y2, r.y2);
        } else {
          merged = { ...r };
          next.push(merged);
        }
        previous = r;
      }
    }
    current = next;
  }
  return current;
}

/**
 * The edges of filled rectangles, as rules of width 0: tables drawn as shaded cells (a colored header row, striped
 * rows) have their boundaries there. Rectangles covering much of the page are backgrounds, not cells.
 */
function rectEdges(page: PageGeometry): Rule[] {
  const limit = 0.3 * page.width * page.height;
  const rects = joinAbutting(page.rects)
    .filter((r) => box.area(r) <= limit && box.width(r) >= 4 && box.height(r) >= 4)
    .sort((a, b) => box.area(b) - box.area(a));
  // Thousands of rectangles are a drawing, not a table's cells.
  if (rects.length > 1000) return [];
  const edges: Rule[] = [];
  for (let k = 0; k < rects.length; k++) {
    const r = rects[k];
    // A rectangle inside a larger one highlights text within a cell: its edges are no cell boundaries.
    let inside = false;
    for (let m = 0; m < k && !inside; m++) {
      const o = rects[m];
      inside = r.x1 >= o.x1 - 1 && r.y1 >= o.y1 - 1 && r.x2 <= o.x2 + 1 && r.y2 <= o.y2 + 1;
    }
    if (inside) continue;
    edges.push(
      { x1: r.x1, y1: r.y1, x2: r.x2, y2: r.y1, width: 0, orientation: "h" },
      { x1: r.x1, y1: r.y2, x2: r.x2, y2: r.y2, width: 0, orientation: "h" },
      { x1: r.x1, y1: r.y1, x2: r.x1, y2: r.y2, width: 0, orientation: "v" },
      { x1: r.x2, y1: r.y1, x2: r.x2, y2: r.y2, width: 0, orientation: "v" },
    );
  }
  return edges;
}

function frameBox(frame: Frame): Box {
  return {
    x1: frame.xs[0],
    y1: frame.ys[0],
    x2: frame.xs[frame.xs.length - 1],
    y2: frame.ys[frame.ys.length - 1],
  };
}

/**
 * A frame whose ruled columns, in some band between two rules, are lists of their own (see listColumns): that
 * band's columns as frames of their own, to be read one after the other; null for a frame of one table.
 */
function listFrames(frame: Frame, runs: readonly TextRun[]): Frame[] | null {
  const cols = frame.xs.length - 1;
  for (let r = 0; r + 1 < frame.ys.length; r++) {
    const [y0, y1] = [frame.ys[r], frame.ys[r + 1]];
    const bounds = [0];
    for (let i = 1; i < cols; i++) if (ruledV(frame, i, y0, y1)) bounds.push(i);
    bounds.push(cols);
    if (bounds.length < 3) continue;
    const parts = bounds.slice(1).map((b, k) => {
      const a = bounds[k];
      const area = { x1: frame.xs[a], y1: y0, x2: frame.xs[b], y2: y1 };
      return { a, b, runs: runsIn(runs, area).filter((run) => !run.vertical) };
    });
    if (!listColumns(parts.map((part) => part.runs))) continue;
    // Under a ruled row naming each of the columns (`Do's` over `Don'ts`), the lists are a table's cells.
    if (r > 0) {
      const [h0, h1] = [frame.ys[r - 1], y0];
      const ruledAbove = bounds.slice(1, -1).every((i) => ruledV(frame, i, h0, h1));
      const named = parts.every(
        ({ a, b }) => runsIn(runs, { x1: frame.xs[a], y1: h0, x2: frame.xs[b], y2: h1 }).length > 0,
      );
      if (ruledAbove && named) return null;
    }
    return parts.map(({ a, b }) => ({
      xs: [frame.xs[a], frame.xs[b]],
      xRules: [frame.xRules[a] ?? [], frame.xRules[b] ?? []],
      ys: [y0, y1],
      yRules: [frame.yRules[r], frame.yRules[r + 1]],
      booktabs: false,
    }));
  }
  return null;
}

/**
 * Tables drawn with ruling lines on a page, top to bottom.
 *
 * @example
 * const tables = detectRuledTables(page); // [{ method: "ruled", numRows: 5, numCols: 3, cells: [...] }]
 */
export function detectRuledTables(page: PageGeometry): DetectedTable[] {
  const rules = [...page.rules, ...rectEdges(page)];
  if (rules.length < 2) return [];
  const hs = mergeSegments(rules, "h");
  const vs = mergeSegments(rules, "v");
  const tables: DetectedTable[] = [];
  const loose: Segment[] = [];
  for (const group of connectedGroups(hs, vs)) {
    if (group.vs.length === 0) loose.push(...group.hs);
    else if (group.hs.length > 0) tables.push(...groupTables(group, page, 0));
  }
  tables.push(...booktabsTables(loose, page.runs));
  return tables.sort((a, b) => a.box.y1 - b.box.y1 || a.box.x1 - b.box.x1);
}
