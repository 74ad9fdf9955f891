import type { Box } from "../model.ts";

/** A title's type is at least this many times as tall as the page's usual text. */
const TITLE_RATIO = 2;
/** A title is at least this many times as wide as it is tall. */
const WIDE = 6;

/** What the rule looks at of a placed element (reading-order's Placed). */
interface Element {
  box: Box;
  float?: boolean;
  aside?: boolean;
  card?: boolean;
}

/**
 * A region's title set beside the top of other content: text at least twice as tall as the page's usual text
 * (`textSize`; without it, the region's median text height), all of it of about that height (a title of two runs
 * or lines), starting no lower than any other text, table or card, yet sharing height with content that reaches
 * below its foot (a slide's title level with the top of its first column of cards). No cut across separates it, so a column cut would read it
 * after the column it stands beside; it is read first. Returns the title's elements and the rest, or null.
 */
export function titleBeside<T extends Element>(elements: readonly T[], textSize?: number): [T[], T[]] | null {
  const text = elements.filter((e) => !e.float && !e.aside && !e.card);
  if (text.length === 0) return null;
  const height = (e: T) => e.box.y2 - e.box.y1;
  const heights = text.map(height).sort((a, b) => a - b);
  const usual = textSize ?? heights[heights.length >> 1];
  const tallest = heights[heights.length - 1];
  if (!(usual > 0) || tallest < usual * TITLE_RATIO) return null;
  const title = text.filter((e) => height(e) >= tallest * 0.8);
  // A title is a line of words, several times as wide as it is tall: not a chapter's big number, nor a logo word,
  // nor big figures set apart across the page (a report's key numbers), its pieces no further apart than a word.
  const byX = [...title].sort((a, b) => a.box.x1 - b.box.x1);
  let reach = byX[0].box.x2;
  for (const e of byX.slice(1)) {
    if (e.box.x1 - reach > tallest) return null;
    reach = Math.max(reach, e.box.x2);
  }
  if (reach - byX[0].box.x1 < tallest * WIDE) return null;
  const rest = elements.filter((e) => !title.includes(e));
  const top = Math.min(...title.map((e) => e.box.y1));
  const bottom = Math.max(...title.map((e) => e.box.y2));
  const others = rest.filter((e) => !e.float && !e.aside);
  if (others.length === 0 || others.some((e) => e.box.y1 < top)) return null;
  // Beside a column: some content starts above the title's foot and reaches below it (a label beside a chapter's
  // title, within its height, is read with it as before).
  if (!others.some((e) => e.box.y1 < bottom && e.box.y2 > bottom)) return null;
  return [title, rest];
}
