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

/** Lines of an address: short, none a sentence. */
const ADDRESS_LINE = 40;

/**
 * Whether a block at the page's top is an address of three short lines or more (a sender's street, town and
 * country set at a letter's top right): the letter's own head, content, however small it is set. A running head
 * is one line, or two, or a title stacked a word a line (`SUSTAINABILITY` / `REPORT` / `2020`); an address's
 * lines name a street and its number, a postal code and a town, a country: words side by side on all its lines
 * but one, and a number among them.
 */
export function addressHead(lines: readonly string[]): boolean {
  const texts = lines.map((line) => line.trim());
  if (texts.length < 3 || !texts.some((text) => /\d/.test(text))) return false;
  if (!texts.every((text) => text.length <= ADDRESS_LINE && !/[.!?]$/.test(text))) return false;
  return texts.filter((text) => /\S\s+\S/.test(text)).length >= texts.length - 1;
}
