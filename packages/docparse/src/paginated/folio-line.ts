import type { Box, PageSize } from "../model.ts";
import { box } from "./geometry.ts";

/** A block of a page as this rule sees it. */
export interface FolioLineCandidate {
  page: number;
  pageSize: PageSize;
  box: Box;
  text: string;
  fontSize: number;
  caption?: boolean;
}

/**
 * The rest of a folio's line: a page number in the page's top (bottom) margin, its line's other blocks level with
 * it (a newsletter's name and date between its volume line and the page number, a book's title across from its
 * folio) are the running head (foot) too, when each is short, set no larger than the body (`bodySize`) and no
 * sentence. They are found even when the line is not set apart from what follows (a spread whose facing page
 * starts its title higher than this page's head), which the single-page rules of furniture.ts ask for.
 * `kinds` holds what was found so far; returns the indexes of the blocks to add, with their kind.
 */
export function folioLineMates(
  candidates: readonly FolioLineCandidate[],
  kinds: ReadonlyMap<number, string>,
  bodySize: number,
): Map<number, "page_header" | "page_footer"> {
  const found = new Map<number, "page_header" | "page_footer">();
  const folios = [...kinds].filter(([, kind]) => kind === "page_number").map(([i]) => candidates[i]);
  candidates.forEach((c, i) => {
    if (kinds.has(i) || c.caption) return;
    const height = c.pageSize.height;
    const top = c.box.y2 < height * 0.08;
    const bottom = c.box.y1 > height * 0.92;
    if (!top && !bottom) return;
    if (c.fontSize > bodySize * 1.05 || c.text.length > 60 || /[.!?,;:]["'”’)]?$/.test(c.text.trim())) return;
    const level = folios.some(
      (f) =>
        f.page === c.page &&
        Math.abs(box.centerY(f.box) - box.centerY(c.box)) <= Math.max(f.fontSize, c.fontSize) * 0.5,
    );
    if (level) found.set(i, top ? "page_header" : "page_footer");
  });
  return found;
}
