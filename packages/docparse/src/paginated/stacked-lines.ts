import type { Box } from "../model.ts";
import { box } from "./geometry.ts";

/**
 * Whether boxes stand on more than one line though their heights overlap: small print set solid (7 pt type on a
 * 7 pt pitch) draws boxes taller than the distance between baselines, so no whitespace runs between its lines.
 * Two boxes are on different lines when they share less than half the smaller one's height (runs of one line,
 * a superscript beside its word included, share more).
 */
export function stackedLines(boxes: readonly Box[]): boolean {
  if (boxes.length < 2) return false;
  const sorted = [...boxes].sort((a, b) => a.y1 + a.y2 - (b.y1 + b.y2));
  const first = sorted[0];
  for (const other of sorted.slice(1)) {
    const overlap = box.overlapY(first, other);
    const smaller = Math.min(first.y2 - first.y1, other.y2 - other.y1);
    if (smaller > 0 && overlap < smaller * 0.5) return true;
  }
  return false;
}
