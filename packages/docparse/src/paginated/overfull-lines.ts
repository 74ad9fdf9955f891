import type { Box } from "../model.ts";
import { box, type Gap } from "./geometry.ts";

/**
 * A line set past its column's edge (an overfull line: TeX leaves a long `\texttt` word that cannot break
 * standing out) runs into the gutter, or a little past it, in the blank between two lines of the next column.
 * The gutter is there above and below it, so such a line does not close it: the strip of whitespace, but for at
 * most two lines of the left column crossing it, is the gutter. A line crossing it is overfull when its row runs
 * in its own column at least four times as far as it reaches into the next, it is level with none of the next
 * column's text there, and the next column has a line starting at its edge a line's height above it and another
 * below it. A title or a line running across both columns reaches farther, or has no such lines beside it, and
 * still closes the gutter. Left-to-right pages only: the crossing line goes with the column it starts in.
 */

/** At most this many boxes at any x of the strip. */
const MAX_CROSSING = 2;
/** A crossing box reaches past the strip at most this share of how far its row runs before the strip. */
const FAR_SHARE = 0.25;
/** Boxes sharing this share of the smaller one's height or less are not level (descenders touching ascenders). */
const LEVEL = 0.15;

/**
 * Gutters of at least `minGutter` among `text` (a region's text boxes, which have no gutter of their own) that
 * only overfull lines of the left column cross.
 */
export function overfullGutters(text: readonly Box[], minGutter: number): Gap[] {
  if (text.length < 10) return [];
  const gutters: Gap[] = [];
  for (const strip of thinStrips(text, minGutter)) {
    const inStrip = text.filter((b) => b.x1 < strip.end && b.x2 > strip.start);
    const others = text.filter((b) => !inStrip.includes(b));
    const lines = inStrip.filter((b) => overfull(b, strip, others));
    if (lines.length === 0) continue;
    // The other boxes in the strip are lines of either column ending or starting in it: they narrow the gutter.
    let { start, end } = strip;
    let blocked = false;
    for (const b of inStrip) {
      if (lines.includes(b)) continue;
      if (b.x1 < strip.start && b.x2 < strip.end) start = Math.max(start, b.x2);
      else if (b.x2 > strip.end && b.x1 > strip.start) end = Math.min(end, b.x1);
      else blocked = true;
    }
    if (!blocked && end - start >= minGutter) gutters.push({ start, end });
  }
  return gutters;
}

/**
 * Strips at least `width` wide, between the first box's start and the last one's end, where at most MAX_CROSSING
 * boxes stand at any x (a sweep over the boxes' edges): the gutter, with the ragged ends of the lines beside it.
 */
function thinStrips(text: readonly Box[], width: number): Gap[] {
  const edges = text.flatMap((b) => [
    { x: b.x1, step: 1 },
    { x: b.x2, step: -1 },
  ]);
  edges.sort((a, b) => a.x - b.x || a.step - b.step);
  const strips: Gap[] = [];
  let count = 0;
  let start: number | null = null;
  for (const edge of edges) {
    const before = count;
    count += edge.step;
    if (before > MAX_CROSSING && count <= MAX_CROSSING) start = edge.x;
    else if (before <= MAX_CROSSING && count > MAX_CROSSING && start !== null) {
      if (edge.x - start >= width) strips.push({ start, end: edge.x });
      start = null;
    }
  }
  return strips;
}

/** Whether `line`, crossing `strip`, is an overfull line of the column left of it (see above). */
function overfull(line: Box, strip: Gap, others: readonly Box[]): boolean {
  const height = line.y2 - line.y1;
  if (line.x1 >= strip.start || height <= 0) return false;
  const row = others.filter(
    (b) => b.x2 <= strip.start && box.overlapY(b, line) >= 0.5 * Math.min(height, b.y2 - b.y1),
  );
  const rowStart = Math.min(line.x1, ...row.map((b) => b.x1));
  if (Math.max(0, line.x2 - strip.end) > FAR_SHARE * (strip.start - rowStart)) return false;
  const next = others.filter((b) => b.x1 >= strip.end);
  const level = (b: Box) => box.overlapY(b, line) > LEVEL * Math.min(height, b.y2 - b.y1);
  if (next.some((b) => b.x1 < line.x2 && level(b))) return false;
  // The next column's lines just above and just below it, starting at the column's edge.
  const atEdge = next.filter((b) => b.x1 <= strip.end + height && !level(b));
  const above = atEdge.some((b) => b.y2 <= line.y2 && line.y1 - b.y2 <= height);
  const below = atEdge.some((b) => b.y1 >= line.y1 && b.y1 - line.y2 <= height);
  return above && below;
}
