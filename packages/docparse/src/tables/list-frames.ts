/**
 * Lists framed side by side: a ruled box whose columns are lists of their own (a column of do's beside one of
 * don'ts) is read as one list after the other, not as a table of rows across the columns; and the columns of a
 * single list's frame.
 */
import type { TextRun } from "../paginated/geometry.ts";
import { majorityGaps, sharedGaps, wordLines } from "./aligned.ts";
import { listColumns } from "./list-columns.ts";
import { type Frame, mergeGaps, ruledV, runsIn, textColumnsHold } from "./ruled-frame.ts";

/**
 * Columns of a list's frame (one ruled cell holding a whole list): whitespace rivers its lines share, or most of
 * its lines split at, as addTextColumns finds them over cells, each line taken as a cell.
 */
export function addListColumns(frame: Frame, runs: readonly TextRun[]): void {
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

/**
 * A frame whose ruled columns, in some band between two rules, are lists of their own (see listColumns): that
 * band's columns as frames of their own, to be read one after the other; null for a frame of one table.
 */
export function listFrames(frame: Frame, runs: readonly TextRun[]): Frame[] | null {
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
