import type { Box } from "../model.ts";
import type { TextRun } from "../paginated/geometry.ts";

/**
 * Runs without those a viewer cannot see (`PageGraphics.hiddenText`: white text with nothing painted under it):
 * a run goes when its middle lies in such a box and the two span most of each other's width (visible text the
 * hidden text was drawn over, a cell's figure under a white label, stays). The graphics walk measures text with a
 * fixed ascent and descent, so a point of slack is allowed each way.
 */
export function withoutHiddenText(runs: readonly TextRun[], hidden: readonly Box[]): TextRun[] {
  if (hidden.length === 0) return [...runs];
  return runs.filter((run) => {
    const { x1, y1, x2, y2 } = run.box;
    const cx = (x1 + x2) / 2;
    const cy = (y1 + y2) / 2;
    return !hidden.some(
      (h) =>
        cx >= h.x1 - 1 &&
        cx <= h.x2 + 1 &&
        cy >= h.y1 - 1 &&
        cy <= h.y2 + 1 &&
        shared(run.box, h) >= (x2 - x1) * 0.8 &&
        shared(run.box, h) >= (h.x2 - h.x1) * 0.8,
    );
  });
}

/** How far two boxes share their horizontal extent, with a point of slack. */
function shared(a: Box, b: Box): number {
  return Math.min(a.x2, b.x2 + 1) - Math.max(a.x1, b.x1 - 1);
}
