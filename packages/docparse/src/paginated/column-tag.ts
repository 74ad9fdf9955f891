import type { Box } from "../model.ts";
import { box, type Gap } from "./geometry.ts";
import { startLevelUnder } from "./later-column.ts";

/**
 * A short tag alone at the top of a column (a test's `[Points 5]`, a score or a mark set at the right end of the
 * line above the columns), level with the first line of the column beside it. The tag belongs to that line, which
 * stands above the columns (a question set across the page, its points at the right margin); but being level
 * with it, it makes both columns start together, so the gutter under them is taken first and the tag is read
 * after the whole column beside it. Told from a column's own heading by its place and its spacing: it starts past
 * its column's middle (a heading starts at the column's left edge or is centred), it is short, and its column's
 * next line stands well below it (at least a line's height, and farther than the line under the first line of
 * the column beside it). The region is then cut across at the first gap under the tag below which all the columns
 * start level, so the line, the tag and what follows them above the columns are read before the columns.
 */

/** A tag is no wider than this share of its column. */
const SHORT = 1 / 3;

/** The gap to cut at before the columns `parts` (their text boxes), or null when no column opens with a tag. */
export function gapUnderColumnTag(
  parts: readonly (readonly Box[])[],
  gaps: readonly Gap[],
  textSize: number,
): Gap | null {
  const texts = parts.filter((part) => part.length > 0);
  if (texts.length < 2) return null;
  const firsts = texts.map(firstLine);
  for (const [k, part] of texts.entries()) {
    const tag = firsts[k];
    const rest = part.filter((b) => !tag.includes(b));
    if (rest.length === 0) continue;
    const tagBox = box.union(tag);
    const column = box.union(part);
    if (tagBox.x1 < (column.x1 + column.x2) / 2) continue;
    if (tagBox.x2 - tagBox.x1 > (column.x2 - column.x1) * SHORT) continue;
    const below = Math.min(...rest.map((b) => b.y1)) - tagBox.y2;
    if (below < textSize) continue;
    // Level with the first line of a column beside it, whose own next line is nearer than the tag's.
    const beside = texts.some((other, j) => {
      if (j === k) return false;
      const line = box.union(firsts[j]);
      if (Math.min(line.y2, tagBox.y2) <= Math.max(line.y1, tagBox.y1)) return false;
      const under = other.filter((b) => !firsts[j].includes(b)).map((b) => b.y1 - line.y2);
      return under.length > 0 && Math.min(...under) * 2 < below;
    });
    if (!beside) continue;
    for (const gap of [...gaps].sort((a, b) => a.start - b.start)) {
      if (gap.start < tagBox.y2 || gap.end > tagBox.y2 + below) continue;
      if (startLevelUnder(texts, gap, textSize)) return gap;
    }
  }
  return null;
}

/** The boxes of a column's first line: those that start before its topmost box ends. */
function firstLine(part: readonly Box[]): Box[] {
  const top = part.reduce((a, b) => (b.y1 < a.y1 ? b : a));
  return part.filter((b) => b.y1 < top.y2);
}
