import type { Box } from "../model.ts";
import type { Gap } from "./geometry.ts";

/** A title beside columns is set at least this many times as tall as the page's usual text. */
const TITLE_RATIO = 2;
/** A title centred over columns is set at least this many times as tall as the page's usual text. */
const CENTRED_TITLE_RATIO = 1.2;
/** A centred line's middle is within this share of the region's width from the region's middle. */
const CENTRED = 0.05;
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

/**
 * A title centred over a region of columns (a form's or an invoice's title over its sender and recipient blocks):
 * the text above the region's first horizontal gap, set larger than the page's usual text (`textSize`), its
 * middle at the page's middle (`pageMiddle`; without it, the region's), narrower than the region, nothing beside
 * it. A column cut whose gutter passes beside it (the title overhangs the right column's left edge but not the
 * left column's text) would read it with the right column, after the left one; it is read first. `gaps` are the
 * region's horizontal gaps. Returns the title's elements and the rest, or null.
 */
export function centredTitle<T extends Element>(
  elements: readonly T[],
  gaps: readonly Gap[],
  textSize: number,
  pageMiddle: number | undefined,
): [T[], T[]] | null {
  if (gaps.length === 0) return null;
  const first = gaps.reduce((a, b) => (b.start < a.start ? b : a));
  const title = elements.filter((e) => e.box.y2 <= first.start);
  const rest = elements.filter((e) => e.box.y2 > first.start);
  if (title.length === 0 || rest.length === 0 || title.some((e) => e.float || e.aside)) return null;
  const text = elements.filter((e) => !e.float && !e.aside);
  const left = Math.min(...text.map((e) => e.box.x1));
  const right = Math.max(...text.map((e) => e.box.x2));
  const x1 = Math.min(...title.map((e) => e.box.x1));
  const x2 = Math.max(...title.map((e) => e.box.x2));
  const width = right - left;
  if (x2 - x1 >= width * 0.8) return null;
  // Centred on the page (a region cut out of a page, whose middle is not the page's) or else on the region.
  const middle = pageMiddle ?? (left + right) / 2;
  if (Math.abs((x1 + x2) / 2 - middle) > Math.max(width, 2 * Math.abs(middle - left)) * CENTRED) return null;
  if (!title.every((e) => e.box.y2 - e.box.y1 >= textSize * CENTRED_TITLE_RATIO)) return null;
  return [title, rest];
}
