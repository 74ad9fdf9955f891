import type { Box, PageSize } from "../model.ts";

/** A block as the rule sees it (a furniture candidate). */
interface Placed {
  box: Box;
  text: string;
  pageSize: PageSize;
}

/** The outer share of the page's width a corner takes, each side. */
const CORNER_WIDTH = 0.15;
/** A year: a number in display type a cover or a title page sets as its title (`2007`). */
const YEAR = /^(1[5-9]|20)\d\d$/;
/** Heights of the number: text this close under or beside it is what the number heads (a chapter's title). */
const APART = 3;

/**
 * A page number set in display type at a page's corner (a ledger's folio printed at 20 points over body text of
 * 9): a lone number, not a year, in the outer CORNER_WIDTH of the page's width on either side, with no other block
 * within APART of its heights below, above or beside it, nor repeated in a short label of its page. A number that
 * heads something (a chapter's big `1` over its title) has that text close by, or a label repeats it; a year in
 * display type is a cover's title. Either stays content.
 */
export function cornerFolio(c: Placed, samePage: readonly Placed[]): boolean {
  const text = c.text.trim();
  if (!/^\d{1,5}$/.test(text) || YEAR.test(text)) return false;
  const width = c.pageSize.width;
  if (c.box.x1 > width * CORNER_WIDTH && c.box.x2 < width * (1 - CORNER_WIDTH)) return false;
  // A chapter's number beside a label that repeats it (`1` over `Chapter 1.`) is the chapter's.
  const word = new RegExp(`(^|\\D)${text}(\\D|$)`);
  const label = (o: Placed) => o.text.trim().split(/\s+/).length <= 3 && word.test(o.text);
  if (samePage.some((o) => o !== c && label(o))) return false;
  const reach = APART * (c.box.y2 - c.box.y1);
  return !samePage.some(
    (o) =>
      o !== c &&
      o.box.x2 > c.box.x1 - reach &&
      o.box.x1 < c.box.x2 + reach &&
      o.box.y2 > c.box.y1 - reach &&
      o.box.y1 < c.box.y2 + reach,
  );
}
