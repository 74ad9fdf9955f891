import { type Block, blockText } from "./blocks.ts";
import { opensWithDayDate } from "./day-dates.ts";

/**
 * The kind of enumerator a text opens with, followed by a space: `n1` for `3.` or `3)`, `n2` for `2.1`, `L` for
 * capitals or roman numerals (`A.`, `AB.`, `IV.`), `l` for small letters (`b)`); null for none, and for a date's
 * day (`30. Juni 2008`).
 */
export function enumeratorKind(text: string): string | null {
  if (opensWithDayDate(text)) return null;
  const number = /^\(?(\d{1,3}(?:\.\d{1,3})*)[.)]?\s/.exec(text);
  if (number) return `n${number[1].split(".").length}`;
  if (/^\(?[A-Z]{1,3}[.)]\s/.test(text)) return "L";
  if (/^\(?[a-z]{1,2}[.)]\s/.test(text)) return "l";
  return null;
}

/**
 * The place of a text's enumerator in its sequence: a number's last part (`2.3` → 3), letters counted as a
 * spreadsheet counts its columns (`A` → 1, `Z` → 26, `AM` → 39); null for none.
 */
export function enumeratorRank(text: string): number | null {
  const number = /^\(?(?:\d{1,3}\.)*(\d{1,3})[.)]?\s/.exec(text);
  if (number) return Number(number[1]);
  const letters = /^\(?([A-Z]{1,3}|[a-z]{1,2})[.)]\s/.exec(text);
  if (!letters) return null;
  return [...letters[1].toUpperCase()].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0);
}

/** The style a block is set in: its first line's size and whether every line is bold. */
function styleOf(block: Block): { size: number; bold: boolean } {
  return { size: block.lines[0].fontSize, bold: block.lines.every((line) => line.bold) };
}

/**
 * True when the numbered `block` is one item of a list of such items: the block read just before or after it
 * (`pageBlocks` in reading order) opens with an enumerator of the same kind, in the same size and weight (or
 * another weight when it is the next or last number of the sequence: `AL.` beside `AM.`), from the same left edge
 * (an em apart at most), or a later line of the block itself does. The items of a card on a
 * slide (`A. Secure Software…` over `B. Security Knowledge…`) are a list, not headings; a numbered heading stands
 * apart from the next of its rank, with its section's text between them.
 */
export function inNumberedList(block: Block, pageBlocks: readonly Block[]): boolean {
  const kind = enumeratorKind(blockText(block));
  if (kind === null) return false;
  if (block.lines.slice(1).some((line) => enumeratorKind(line.text) === kind)) return true;
  const at = pageBlocks.indexOf(block);
  if (at < 0) return false;
  const style = styleOf(block);
  return [pageBlocks[at - 1], pageBlocks[at + 1]].some((other) => {
    if (other === undefined || enumeratorKind(blockText(other)) !== kind) return false;
    const theirs = styleOf(other);
    if (Math.abs(theirs.size - style.size) > 0.5 || Math.abs(other.box.x1 - block.box.x1) > style.size)
      return false;
    if (theirs.bold === style.bold) return true;
    // Another weight (an item set all bold after one whose text is regular): the very next or last of the sequence.
    const mine = enumeratorRank(blockText(block));
    const next = enumeratorRank(blockText(other));
    return mine !== null && next !== null && Math.abs(mine - next) === 1;
  });
}
