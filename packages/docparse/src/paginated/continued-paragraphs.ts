import type { Box } from "../model.ts";
import type { Block } from "./blocks.ts";
import { pastFloats } from "./float-breaks.ts";
import { box } from "./geometry.ts";

/** A page entry as layout gives them: a block of text, or a table, figure... that this rule passes over. */
type Entry = { kind: string; box: Box; block?: Block };

function isBlock(entry: Entry | undefined): entry is Entry & { kind: "block"; block: Block } {
  return entry?.kind === "block" && entry.block !== undefined;
}

/**
 * A paragraph broken at the foot of a column goes on at the head of the next one: in reading order its second
 * part is the next block, or comes after the footnotes set at the first column's foot. It is one paragraph when
 * the first part ends inside a word (a letter and a hyphen) or inside a sentence (no closing punctuation) and the
 * second opens with a small letter in the same type size, higher up the page (the next column's top, or under the
 * floats set there: see float-breaks.ts). The footnotes and floats between them are read after the paragraph, so
 * that they no longer cut it (and the hyphenated word is joined, as at any line end).
 */
export function joinContinuedParagraphs<E extends Entry>(entries: readonly E[]): E[] {
  const out = [...entries];
  for (let i = 0; i < out.length; i++) {
    const first = out[i];
    if (!isBlock(first)) continue;
    const last = first.block.lines[first.block.lines.length - 1];
    const text = last.text.trimEnd();
    const brokenWord = /\p{Ll}[-\u2010]$/u.test(text);
    const brokenSentence = /[\p{Ll},]$/u.test(text);
    if (!brokenWord && !brokenSentence) continue;
    // Footnotes (smaller type, opened by a mark) may stand between the two parts: at most a few of them.
    let j = i + 1;
    while (j < out.length && j <= i + 3 && footnote(out[j], last.fontSize)) j++;
    // The second part: in the same type, opening with a small letter, at the next column's top (above the first
    // part's last line and to its right), or below the floats (figures, listings, captions) set there.
    const continues = (entry: Entry): boolean => {
      if (!isBlock(entry)) return false;
      const head = entry.block.lines[0];
      if (!/^\p{Ll}/u.test(head.text) || Math.abs(head.fontSize - last.fontSize) > 0.5) return false;
      return head.box.y2 < last.box.y1 && head.box.x1 >= last.box.x1 + box.width(last.box) * 0.5;
    };
    if (!continues(out[j])) j = pastFloats(out, j, first.box.x2, continues);
    const next = out[j];
    if (j < 0 || !isBlock(next)) continue;
    const lines = [...first.block.lines, ...next.block.lines];
    const merged = box.union(lines.map((line) => line.box));
    const notes = out.slice(i + 1, j);
    out.splice(i, j - i + 1, { kind: "block", block: { lines, box: merged }, box: merged } as E, ...notes);
  }
  return out;
}

/** A footnote block: set clearly smaller than the body text it interrupts, and opened by a note mark. */
function footnote(entry: Entry, bodySize: number): boolean {
  if (!isBlock(entry)) return false;
  const head = entry.block.lines[0];
  return head.fontSize < bodySize * 0.92 && /^(?:[*∗†‡§¶]|\d{1,2}(?!\d))/u.test(head.text);
}
