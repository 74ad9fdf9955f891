import type { Box } from "../model.ts";

/** A folio or a part's number as a running head sets it: `8`, `Pt. 2`, `Page 14`, `§ 2.1`, `xii`. */
const FOLIO =
  /^(?:(?:p|pp|pg|page|pt|part|ch|chap|chapter|sec|section|§)\.?\s*)?(?:\d{1,4}(?:\.\d{1,3})?|[ivxlc]{1,6})$/i;

/** A block of a page as this rule sees it. */
export interface HeadCandidate {
  page: number;
  box: Box;
  text: string;
  fontSize: number;
}

/** The indexes of `items` per page, in their order: the page-by-page rules of furniture detection share it. */
export function indexesByPage(items: readonly { page: number }[]): Map<number, number[]> {
  const pages = new Map<number, number[]>();
  items.forEach((item, i) => {
    const list = pages.get(item.page);
    if (list) list.push(i);
    else pages.set(item.page, [i]);
  });
  return pages;
}

/**
 * A running head split across the top of the text (`Pt. 2` flush left, `5 CFR Ch. I (1-1-22 Edition)` flush
 * right): the page's first line of text holds exactly two short blocks, one at the text's left edge and one at
 * its right, far apart, one of them a folio or a part's number and the other set about the body's size
 * (`bodySize`), and the body starts clearly below. It is found
 * against the text's own frame, not the page's, so that a scan or a photograph with a wide border keeps it.
 * Returns the indexes of such blocks among `candidates`.
 */
export function splitRunningHeads(candidates: readonly HeadCandidate[], bodySize: number): number[] {
  const found: number[] = [];
  for (const indexes of indexesByPage(candidates).values()) {
    if (indexes.length < 4) continue;
    const boxes = indexes.map((i) => candidates[i].box);
    const left = Math.min(...boxes.map((b) => b.x1));
    const right = Math.max(...boxes.map((b) => b.x2));
    const top = Math.min(...boxes.map((b) => b.y1));
    const width = right - left;
    const first = indexes.filter((i) => candidates[i].box.y1 <= top + candidates[i].fontSize * 0.6);
    if (first.length !== 2) continue;
    const [a, b] = first.map((i) => candidates[i]).sort((p, q) => p.box.x1 - q.box.x1);
    const lineBottom = Math.max(a.box.y2, b.box.y2);
    const below = indexes.filter((i) => !first.includes(i)).map((i) => candidates[i].box.y1);
    const size = Math.max(a.fontSize, b.fontSize);
    const apart = Math.min(...below) - lineBottom >= size * 0.8;
    const flush = a.box.x1 <= left + width * 0.02 && b.box.x2 >= right - width * 0.02;
    const farApart = b.box.x1 - a.box.x2 >= width * 0.3;
    const short = a.text.length <= 60 && b.text.length <= 60;
    // One end a folio; the other set about the body's size (a slide's title beside its number is the slide's).
    const folio = FOLIO.test(a.text.trim()) ? a : FOLIO.test(b.text.trim()) ? b : null;
    const title = folio === a ? b : a;
    const plain = title.fontSize <= bodySize * 1.2 && (folio?.fontSize ?? 0) <= bodySize * 1.5;
    if (apart && flush && farApart && short && folio && plain) found.push(...first);
  }
  return found;
}
