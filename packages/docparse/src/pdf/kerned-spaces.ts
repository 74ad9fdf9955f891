import type { WorkerEdit } from "./worker-edit.ts";

/**
 * Space glyphs kerned back to nothing. A producer may draw a space glyph and move back its whole width in the same
 * `TJ` (XeTeX sets Persian's zero-width non-joiner so: `می‌خواهید`, the space of `0003` and a kern of 167 units
 * taking back its 167): the page shows no gap, and pdftotext reads one word. pdf.js reads a space glyph as a
 * space before the next glyph unless the gap it leaves is under 0.03 em, but a gap of exactly nothing puts the
 * next glyph where the last one ended, a case its position check returns from before that test: such a space was
 * kept, while one leaving a thousandth of an em was dropped. Here a glyph drawn exactly where the last one ended
 * forgets a space glyph drawn between them, as a narrower gap than 0.03 em does; without a space glyph between
 * them nothing changes (only a space seen last adds one).
 */
export const KERNED_SPACE_EDITS: readonly WorkerEdit[] = [
  {
    why: "a space glyph whose width a kern takes back whole (the next glyph drawn where the last one ended) is no word space, as one leaving less than 0.03 em is not",
    find: `      if (lastPosX === posX && lastPosY === posY) {
        return true;
      }`,
    replace: `      if (lastPosX === posX && lastPosY === posY) {
        resetLastChars();
        return true;
      }`,
  },
];
