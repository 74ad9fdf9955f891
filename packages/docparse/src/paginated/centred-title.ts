import type { Box } from "../model.ts";
import type { Gap } from "./geometry.ts";

/** A title's type is at least this many times as tall as the page's usual text. */
const TITLE_RATIO = 1.2;
/** A centred line's middle is within this share of the region's width from the region's middle. */
const CENTRED = 0.05;

/** What the rule looks at of a placed element (reading-order's Placed). */
interface Element {
  box: Box;
  float?: boolean;
  aside?: boolean;
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
  if (!title.every((e) => e.box.y2 - e.box.y1 >= textSize * TITLE_RATIO)) return null;
  return [title, rest];
}
