/**
 * Column labels set over a ruled grid, outside its top rule (a timetable's day names over its boxed cells, a
 * chart's category names over its columns): the grid's first row is then no header, the labels are. They are
 * taken into the table as a header row when the line just over the top rule holds one label over each ruled
 * column (every column but one labelled, three or more), no word of it crossing a column rule, no number among
 * them, and nothing of the line standing beside the grid (a caption or a sentence above a grid is none of that).
 */
import type { TextRun } from "../paginated/geometry.ts";
import { wordLines } from "./aligned.ts";
import { isNumeric } from "./cells.ts";
import { type Frame, runsIn } from "./ruled-frame.ts";

/** The labels' line ends at most this many ems above the top rule. */
const RULE_GAP = 1.5;
/** How far, in points, a word may reach over a column rule and still stand in its column (ink over a hairline). */
const TOLERANCE = 1;

/**
 * Adds the labels over a grid's top rule to its frame as a first band, the column rules drawn up through it (the
 * labels stand apart as the columns below do, however close two long names come). Returns whether it did.
 */
export function addLabelsOverGrid(frame: Frame, pageRuns: readonly TextRun[]): boolean {
  const cols = frame.xs.length - 1;
  if (cols < 3 || frame.ys.length < 3) return false;
  const x1 = frame.xs[0];
  const x2 = frame.xs[cols];
  const top = frame.ys[0];
  const inside = wordLines(runsIn(pageRuns, { x1, y1: frame.ys[0], x2, y2: frame.ys[1] }));
  const size = Math.max(8, ...inside.map((l) => l.fontSize));
  const near = wordLines(
    runsIn(pageRuns, { x1: 0, y1: top - 4 * size, x2: Number.POSITIVE_INFINITY, y2: top }),
  );
  const line = near.filter((l) => l.y2 <= top + TOLERANCE).at(-1);
  if (!line || top - line.y2 > RULE_GAP * line.fontSize) return false;
  if (line.words.some((w) => w.box.x1 < x1 - TOLERANCE || w.box.x2 > x2 + TOLERANCE)) return false;
  if (line.words.some((w) => isNumeric(w.text))) return false;
  const labelled = new Set<number>();
  for (const word of line.words) {
    let c = -1;
    for (let i = 0; i < cols; i++) {
      if (word.box.x1 >= frame.xs[i] - TOLERANCE && word.box.x2 <= frame.xs[i + 1] + TOLERANCE) c = i;
    }
    if (c < 0) return false;
    labelled.add(c);
  }
  if (labelled.size < 3 || labelled.size < cols - 1) return false;
  // Labels stand apart, most a column gap from the next; the words of a sentence run on a word space apart.
  if (line.segments.length < Math.ceil(labelled.size / 2)) return false;
  const labelsTop = line.y1 - 1;
  frame.xRules = frame.xRules.map((rules, i) =>
    rules && i > 0 && i < cols ? [...rules, { pos: frame.xs[i], a: labelsTop, b: top, width: 0 }] : rules,
  );
  frame.ys = [labelsTop, ...frame.ys];
  frame.yRules = [[], ...frame.yRules];
  frame.headerBand = true;
  // The old top rule closes the header, as a booktabs header rule does.
  frame.booktabs = true;
  return true;
}
