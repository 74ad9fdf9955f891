import type { Box } from "../model.ts";
import { box, type Gap } from "./geometry.ts";

/**
 * A column gutter is wider than the word spaces of the lines it would separate. Where the page's usual text is
 * small (a poster's timetable in 5 pt type), the gutter width that separates its columns is smaller than a word
 * space of its large type: the words of a title in 14 pt, run by run, would open gutters between them and scatter
 * the title among the columns. A gap with two runs of one line on its sides, closer than half the height of the
 * smaller one (a word space is a quarter to a third of an em), is a space between words, not a gutter.
 */

/** A space narrower than this share of its runs' height is a word space. */
const WORD_SPACE = 0.5;
/** Points: how close a box's edge must be to a gap's edge to border it. */
const EDGE = 0.5;

/** The gaps that are not a word space of some line (see above). */
export function wordSpacesRemoved(gaps: Gap[], text: readonly Box[]): Gap[] {
  if (gaps.length === 0) return gaps;
  return gaps.filter((gap) => {
    const width = gap.end - gap.start;
    const before = text.filter((b) => Math.abs(b.x2 - gap.start) <= EDGE);
    const after = text.filter((b) => Math.abs(b.x1 - gap.end) <= EDGE);
    return !before.some((a) =>
      after.some((b) => {
        const smaller = Math.min(a.y2 - a.y1, b.y2 - b.y1);
        const overlap = box.overlapY(a, b);
        return overlap >= smaller * 0.5 && width < smaller * WORD_SPACE;
      }),
    );
  });
}
