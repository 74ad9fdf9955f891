import type { Box } from "../model.ts";
import { box, type Rule } from "./geometry.ts";

/** How far a rule may miss the corner it closes, in points (strokes overlap or stop short at corners). */
const CORNER = 2;

/**
 * The smallest box drawn around `b`: a rectangle of rules closing on each other around it (a stroked frame, a
 * form's field, a cell of a ruled grid), or a filled rectangle holding it. Null when `b` stands in no drawn box.
 * Rules closing the box may be longer than its sides (a grid's lines run on past a cell).
 */
export function drawnBoxAround(b: Box, rules: readonly Rule[], rects: readonly Box[]): Box | null {
  let best: Box | null = null;
  const take = (candidate: Box) => {
    if (best === null || box.area(candidate) < box.area(best)) best = candidate;
  };
  for (const rect of rects) {
    if (rect.x1 <= b.x1 + 1 && rect.y1 <= b.y1 + 1 && rect.x2 >= b.x2 - 1 && rect.y2 >= b.y2 - 1) take(rect);
  }
  const across = (r: Rule, x1: number, x2: number) =>
    Math.min(r.x1, r.x2) <= x1 + CORNER && Math.max(r.x1, r.x2) >= x2 - CORNER;
  const down = (r: Rule, y1: number, y2: number) =>
    Math.min(r.y1, r.y2) <= y1 + CORNER && Math.max(r.y1, r.y2) >= y2 - CORNER;
  const horizontal = rules.filter((r) => r.orientation === "h" && across(r, b.x1, b.x2));
  const vertical = rules.filter((r) => r.orientation === "v" && down(r, b.y1, b.y2));
  const tops = horizontal.filter((r) => r.y1 <= b.y1 + 1);
  const bottoms = horizontal.filter((r) => r.y1 >= b.y2 - 1);
  for (const top of tops) {
    for (const bottom of bottoms) {
      const sides = vertical.filter((r) => down(r, top.y1, bottom.y1));
      // The nearest sides that the top and bottom rules both reach.
      const reached = sides.filter((r) => across(top, r.x1, r.x1) && across(bottom, r.x1, r.x1));
      const left = Math.max(...reached.filter((r) => r.x1 <= b.x1 + 1).map((r) => r.x1));
      const right = Math.min(...reached.filter((r) => r.x1 >= b.x2 - 1).map((r) => r.x1));
      if (Number.isFinite(left) && Number.isFinite(right))
        take({ x1: left, y1: top.y1, x2: right, y2: bottom.y1 });
    }
  }
  return best;
}
