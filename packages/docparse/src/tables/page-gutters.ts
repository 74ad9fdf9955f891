/** A stretch of x. */
interface Span {
  x1: number;
  x2: number;
}

/** A text line as the gutter test reads it: its words, their stretches, its height and its font size. */
interface SegmentLine {
  words: readonly { text: string; box: Span }[];
  segments: readonly Span[];
  y1: number;
  y2: number;
  fontSize: number;
}

/** Points: how far apart two line ends (or starts) may be and still be one edge: a justified margin. */
const EDGE_TOLERANCE = 1;

/** The fewest lines that end (or start) at one x for a margin to count as a column's edge. */
const EDGE_LINES = 3;

/** Ems: the shortest stretch of a line before the gutter that counts as a full line of prose. */
const FULL_LINE_EMS = 10;

/**
 * Whether a gap of a band of aligned lines is a gutter between columns of the page, however narrow: a strip that
 * no line crosses from far above the band to far below it (half the height of the page's text or more), with
 * justified prose on its left (several lines of a column's width ending at one x, its right margin) and lines
 * starting at one x on its right (the next column's left margin). Lines of the columns that happen to share
 * baselines look like a table's rows; the table they make must not cross the gutter. The columns of a table
 * are not told for page columns: its cells do not run the page's height, or do not end in a justified margin.
 */
export function isPageGutter(gap: Span, band: readonly SegmentLine[], all: readonly SegmentLine[]): boolean {
  const first = all.indexOf(band[0]);
  const last = all.indexOf(band[band.length - 1]);
  if (first < 0 || last < 0) return false;
  const pageTop = Math.min(...all.map((l) => l.y1));
  const pageBottom = Math.max(...all.map((l) => l.y2));
  // The band's gap is wider than the page's gutter where the band's lines fall short of their column's margin:
  // the gutter is looked for at each x of the gap between the ends of lines (and at its edges).
  const edges = new Set([gap.x1, gap.x2]);
  for (const line of all)
    for (const s of line.segments) for (const x of [s.x1, s.x2]) if (x > gap.x1 && x < gap.x2) edges.add(x);
  const xs = [...edges].sort((a, b) => a - b);
  for (let k = 0; k + 1 < xs.length; k++) {
    const at = (xs[k] + xs[k + 1]) / 2;
    const crosses = (line: SegmentLine) => line.segments.some((s) => s.x1 < at && s.x2 > at);
    // The stretch of lines around the band that leave the strip open.
    let top = first;
    while (top > 0 && !crosses(all[top - 1])) top--;
    let bottom = last;
    while (bottom + 1 < all.length && !crosses(all[bottom + 1])) bottom++;
    if (all[bottom].y2 - all[top].y1 < 0.5 * (pageBottom - pageTop)) continue;
    if (columnEdges(all.slice(top, bottom + 1), at)) return true;
  }
  return false;
}

/**
 * Whether the lines beside a strip at `at` show two columns' margins: several full lines of prose, each saying
 * something else, ending at one x before it (a justified right margin; the same label set again down a table's
 * column is no margin), and several lines starting at one x after it (the next column's left margin).
 */
function columnEdges(lines: readonly SegmentLine[], at: number): boolean {
  const full: { end: number; text: string }[] = [];
  const starts: number[] = [];
  for (const line of lines) {
    const before = line.segments.filter((s) => s.x2 <= at);
    const after = line.segments.find((s) => s.x1 >= at);
    const length = before.length > 0 ? runLength(before, line.fontSize) : 0;
    if (length >= FULL_LINE_EMS * line.fontSize) {
      const end = before[before.length - 1].x2;
      const text = line.words
        .filter((w) => w.box.x1 >= end - length - 0.5 && w.box.x2 <= end + 0.5)
        .map((w) => w.text)
        .join(" ");
      full.push({ end, text });
    }
    if (after) starts.push(after.x1);
  }
  const margin = steadyEdge(full.map((f) => f.end));
  const texts = new Set(full.filter((f) => f.end >= margin.from && f.end <= margin.to).map((f) => f.text));
  return texts.size >= EDGE_LINES && steadyEdge(starts).count >= EDGE_LINES;
}

/**
 * Points: how far the text before a strip runs back from it without a wider gap than a justified line's word
 * spaces (an em and a half): a line of prose spread to its column's width breaks into several segments.
 */
function runLength(segments: readonly Span[], size: number): number {
  let start = segments[segments.length - 1].x1;
  for (let k = segments.length - 2; k >= 0 && start - segments[k].x2 < 1.5 * size; k--)
    start = segments[k].x1;
  return segments[segments.length - 1].x2 - start;
}

/** The most values that lie within the edge tolerance of one another (how many lines share one margin), and where. */
function steadyEdge(values: readonly number[]): { count: number; from: number; to: number } {
  const sorted = [...values].sort((a, b) => a - b);
  let best = { count: 0, from: 0, to: 0 };
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to] - sorted[from] > EDGE_TOLERANCE) from++;
    if (to - from + 1 > best.count) best = { count: to - from + 1, from: sorted[from], to: sorted[to] };
  }
  return best;
}
