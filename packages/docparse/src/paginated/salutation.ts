import type { Line } from "./lines.ts";

/**
 * A letter's salutation or closing by its shape (`Dear Mrs. Abc,`, `Sehr geehrte Damen und Herren,`, `To Whom it
 * May Concern:`, `Yours sincerely,`): a short left-to-right line, six words at most, opening in a capital and
 * ending in a comma or a colon.
 */
function salutationShaped(line: Line): boolean {
  if (line.dir !== "ltr" || line.vertical) return false;
  if (!/^\p{Lu}/u.test(line.text) || !/[,:]$/.test(line.text)) return false;
  return line.text.length <= 50 && line.text.split(/\s+/).length <= 6;
}

/** The width `line`'s first word takes, from the line's width per character. */
function firstWordWidth(line: Line): number {
  const word = /^\S+/.exec(line.text)?.[0] ?? "";
  return ((line.box.x2 - line.box.x1) * word.length) / Math.max(1, line.text.length);
}

/**
 * True when `line` was ended by hand before `next`: `next`'s first word would have fitted, with a space, in the
 * room `line` leaves before the widest of the lines ends, or `next` is no wider than `line` (a name under
 * `Best regards,`). A line wrapped for width leaves no such room.
 */
function endedBefore(line: Line, next: Line, after: Line | undefined): boolean {
  if (next.box.x2 <= line.box.x2) return true;
  const right = Math.max(next.box.x2, after ? after.box.x2 : next.box.x2);
  return firstWordWidth(next) < right - line.box.x2 - line.fontSize * 0.25;
}

/**
 * True when a salutation or closing stands between `last` and `next` and parts them: `last` is a block of that one
 * line (the paragraph ends after it) or `next` is one (a paragraph starts with it), the two set at one left edge
 * and the line ended by hand, with a gap as wide as the page's line gap and half the type size at least. On a
 * letter of few lines, its paragraphs of one line each a blank line apart, the page's median gap is the blank
 * line, and a wider gap no longer tells where a paragraph ends: the date, the salutation, a one-line paragraph
 * and the closing would read as one. A paragraph's short first line ending in a comma goes on at the line gap.
 */
export function salutationApart(
  block: readonly Line[],
  next: Line,
  after: Line | undefined,
  lineGap: number,
): boolean {
  const last = block[block.length - 1];
  const size = Math.max(last.fontSize, next.fontSize);
  if (Math.abs(next.box.x1 - last.box.x1) > size * 0.5) return false;
  const wide = (upper: Line, lower: Line) =>
    lower.box.y1 - upper.box.y2 >= Math.max(lineGap, size * 0.5) - size * 0.1;
  if (!wide(last, next)) return false;
  if (block.length === 1 && salutationShaped(last) && endedBefore(last, next, after)) return true;
  return (
    salutationShaped(next) &&
    after !== undefined &&
    Math.abs(after.box.x1 - next.box.x1) <= size * 0.5 &&
    wide(next, after) &&
    endedBefore(next, after, undefined)
  );
}
