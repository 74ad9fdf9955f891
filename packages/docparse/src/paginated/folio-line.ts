import type { Box, PageSize } from "../model.ts";
import { footnotes } from "./footnotes.ts";
import { box } from "./geometry.ts";

/** A block of a page as this rule sees it. */
export interface FolioLineCandidate {
  page: number;
  pageSize: PageSize;
  box: Box;
  text: string;
  fontSize: number;
  /** The block is on the page's first (last) line of text, set apart from what follows (precedes) it. */
  edge: "top" | "bottom" | null;
  caption?: boolean;
  lines?: readonly string[];
  noteMarked?: boolean;
}

/** Ends like a sentence or a clause; `et al.` closing a running head's authors does not. */
function sentenceEnd(text: string): boolean {
  const t = text.trim();
  return /[.!?,;:]["'”’)]?$/.test(t) && !/\bet al\.$/i.test(t);
}

/**
 * The rest of a folio's line: a page number at the page's top (foot) marks its line as the running head (foot),
 * and the blocks on that line with it are furniture too (a book's title across from its folio, `Author et al.:
 * Preprint submitted to X` beside `Page 1 of 3`, a newsletter's name and date between its volume line and the
 * page number). A block is on the line when it is level with the page number, or when both sit on the page's
 * first (last) line of text. The line must be at the page's edge, and the evidence asked of each block follows
 * how clearly the line stands apart: a line set apart from the body (`edge`) takes any block up to 1.2 × the body
 * and no longer than a long title line; a line in the top or bottom 8% that is not set apart (a spread whose
 * facing page starts its masthead higher than this page's head) takes only short blocks, no larger than the body
 * and no sentence. Footnotes and captions are content either way, and the page's title type (its largest, above
 * the body's size) is never a running head. `kinds` holds what was found so far; returns the indexes of the
 * blocks to add, with their kind.
 */
export function folioLineMates(
  candidates: readonly FolioLineCandidate[],
  kinds: ReadonlyMap<number, string>,
  bodySize: number,
): Map<number, "page_header" | "page_footer"> {
  const found = new Map<number, "page_header" | "page_footer">();
  const folios = [...kinds].filter(([, kind]) => kind === "page_number").map(([i]) => candidates[i]);
  if (folios.length === 0) return found;
  const largest = new Map<number, number>();
  for (const c of candidates) largest.set(c.page, Math.max(largest.get(c.page) ?? 0, c.fontSize));
  candidates.forEach((c, i) => {
    if (kinds.has(i) || c.caption) return;
    const height = c.pageSize.height;
    const top = c.box.y2 < height * 0.08;
    const bottom = c.box.y1 > height * 0.92;
    if (!top && !bottom && c.edge === null) return;
    // The page's title type, set larger than the body, is the page's own (a page set all in one size has none).
    if (c.fontSize >= (largest.get(c.page) ?? 0) && c.fontSize > bodySize * 1.05) return;
    const folio = folios.find(
      (f) =>
        f.page === c.page &&
        ((c.edge !== null && f.edge === c.edge) ||
          ((top || bottom) &&
            Math.abs(box.centerY(f.box) - box.centerY(c.box)) <= Math.max(f.fontSize, c.fontSize) * 0.5)),
    );
    if (!folio) return;
    const apart = c.edge !== null && folio.edge === c.edge;
    const short = apart
      ? c.fontSize <= bodySize * 1.2 && c.text.length <= 100
      : c.fontSize <= bodySize * 1.05 && c.text.length <= 60 && !sentenceEnd(c.text);
    if (!short) return;
    const foot = apart ? c.edge === "bottom" : bottom;
    if (foot && footnotes(c)) return;
    found.set(i, foot ? "page_footer" : "page_header");
  });
  return found;
}
