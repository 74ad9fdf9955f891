import type { Box, PageSize } from "../model.ts";

/** A block of the page as the test sees it (furniture.ts's candidates). */
interface PageBlock {
  box: Box;
  pageSize: PageSize;
  text: string;
  sideways?: boolean;
}

/** A memo's head field (`TO:`, `From:`, `Subject:`, `Re:`, `Date:`, `CC:`), or the word `MEMORANDUM` alone. */
const MEMO_FIELD = /^(?:(?:to|from|subject|re|date|cc|attn)\s*[:;]|memorandum\b)/i;

/**
 * Whether `c`, a block in the page's top band, heads a letter or memo: one of the next blocks below it on its
 * page (`samePage`), in the page's upper half, opens with a memo's head field. The line above `FROM:` on a typed
 * memo is its letterhead (`SUGAR RESEARCH FOUNDATION, INC.`): the document's own head, not a running head, however
 * small OCR reads it. Running heads of reports, journal lines and stamps are followed by body text, not by fields.
 */
export function headsMemo(c: PageBlock, samePage: readonly PageBlock[]): boolean {
  const half = c.pageSize.height * 0.5;
  const below = samePage
    .filter((o) => o !== c && !o.sideways && o.box.y1 >= c.box.y2 - 1 && o.box.y1 <= half)
    .sort((a, b) => a.box.y1 - b.box.y1)
    .slice(0, 4);
  return below.some((o) => MEMO_FIELD.test(o.text.trim()));
}
