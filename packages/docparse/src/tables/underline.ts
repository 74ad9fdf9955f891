/**
 * Underlines: a horizontal rule drawn under one line of text, no longer than the text it marks (an amendment's
 * changed words, a link, a field's entry). It lies in the lower half of the line's glyph boxes, where a table's
 * rule, set clear of its rows' text with some padding, does not. Underlines stacked down a page (each of several
 * marked phrases at one left edge) are no booktabs table.
 */
import { box, type TextRun } from "../paginated/geometry.ts";
import type { Segment } from "./rule-segments.ts";

/** How far an underline may reach past its text's ends, points. */
const REACH = 1;

/** Whether the horizontal rule `s` underlines text of `runs`: the runs it crosses the lower half of span it. */
export function underlines(s: Segment, runs: readonly TextRun[]): boolean {
  const over = runs.filter(
    (r) =>
      s.pos >= box.centerY(r.box) &&
      s.pos <= r.box.y2 + REACH &&
      r.box.x2 > s.a &&
      r.box.x1 < s.b &&
      !r.vertical,
  );
  if (over.length === 0) return false;
  const left = Math.min(...over.map((r) => r.box.x1));
  const right = Math.max(...over.map((r) => r.box.x2));
  return s.a >= left - REACH && s.b <= right + REACH;
}
