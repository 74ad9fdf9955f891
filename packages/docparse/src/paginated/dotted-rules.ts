import type { TextRun } from "./geometry.ts";

/** Dots a run must hold to be a dotted rule rather than an ellipsis or a few points. */
const MIN_DOTS = 8;

/**
 * A dotted rule set as text: a run running up or down the page made of nothing but points (`. . . . …`), as a
 * brochure typesets the fold and cut lines between its panels. It is a line drawn with a font, not text: read,
 * it becomes a paragraph of points between the panels' text. Leaders in a contents line run along it, not across
 * the page, and keep their points.
 */
export function dottedRule(run: TextRun): boolean {
  if (run.vertical !== true) return false;
  const text = run.text.replace(/\s+/g, "");
  return text.length >= MIN_DOTS && /^[.·•…]+$/u.test(text);
}
