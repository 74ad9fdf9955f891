import type { Box } from "../model.ts";
import { NOTE_MARK } from "./bullet-marks.ts";
import { furniturePattern } from "./furniture-patterns.ts";

/** A line opened by a note's mark and followed by words; one whose text starts with a capital. */
const MARKED = new RegExp(String.raw`^\s*${NOTE_MARK}\s*\S.*\p{L}`, "u");
const MARKED_SENTENCE = new RegExp(String.raw`^\s*${NOTE_MARK}\s*\p{Lu}`, "u");

/**
 * Footnotes at the foot of a page: two lines or more, each opened by a marker (`1`, `*`, `†`) and followed by
 * text, or one note wrapped over several lines, opened by its marker and ending a sentence of a dozen words or
 * more, or a one-line note: its marker, then a sentence of six words or more that no furniture pattern matches.
 * A block whose first line opens with a note mark set smaller and raised before its text (`¹ Majority Webpage`:
 * see note-marker.ts) is a note however short, as a superscript says what it is. They are content the body refers
 * to, not furniture, even when they sit in the bottom band.
 */
export function footnotes(c: { text: string; lines?: readonly string[]; noteMarked?: boolean }): boolean {
  if (c.noteMarked) return true;
  const lines = c.lines ?? [c.text];
  const marked = (line: string) => MARKED.test(line);
  if (lines.length === 1) {
    const text = lines[0].trim();
    const sentence = MARKED_SENTENCE.test(text) && /[.!?]["'”’“)]?$/.test(text);
    return sentence && marked(text) && text.split(/\s+/).length >= 6 && !furniturePattern(text);
  }
  if (lines.every(marked)) return true;
  const text = c.text.trim();
  return marked(lines[0]) && text.split(/\s+/).length >= 12 && /[.!?]["'”’)]?$/.test(text);
}

/** What `notesAtFoot` needs of a block. */
interface NoteCandidate {
  page: number;
  pageSize: { height: number };
  box: Box;
  noteMarked?: boolean;
}

/**
 * The footnotes at a page's foot, which a reader reads after the page's body: set under the column where the mark
 * stands, a note read in place would cut a sentence that runs on into the next column. A block counts when it
 * opens with a note mark set smaller and raised (note-marker.ts: the evidence a numbered list item or a bullet
 * read by OCR lacks), lies in the page's lower half, and no other block of content (furniture aside, other notes
 * aside) lies below it across its width. Returns indexes into `candidates`.
 */
export function notesAtFoot(
  candidates: readonly NoteCandidate[],
  furniture: (i: number) => boolean,
): Set<number> {
  const marked = candidates.flatMap((c, i) =>
    !furniture(i) && c.noteMarked && c.box.y1 > c.pageSize.height / 2 ? [i] : [],
  );
  const isNote = new Set(marked);
  // Nothing of the body below the note across its width.
  const atFoot = (i: number) =>
    !candidates.some(
      (o, j) =>
        o.page === candidates[i].page &&
        !isNote.has(j) &&
        !furniture(j) &&
        o.box.y1 >= candidates[i].box.y2 - 1 &&
        o.box.x1 < candidates[i].box.x2 &&
        o.box.x2 > candidates[i].box.x1,
    );
  return new Set(marked.filter(atFoot));
}
