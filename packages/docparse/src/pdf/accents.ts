import type { TextRun } from "../paginated/geometry.ts";

/**
 * Accents drawn as glyphs of their own. TeX (and other typesetters without precomposed glyphs) draws `é` as the
 * spacing accent `´`, a move back, and `e`: pdf.js reads two runs, `´` and `e`, the second starting before the
 * first ends. Here such an accent and its letter become one NFC character, the two runs one run.
 */

/** Spacing accents (and combining marks drawn apart) with the combining mark each stands for. */
const MARKS: Record<string, string> = {
  "\u00B4": "\u0301", // acute
  "\u02CA": "\u0301",
  "\u0060": "\u0300", // grave
  "\u02CB": "\u0300",
  "\u02C6": "\u0302", // circumflex
  "\u02DC": "\u0303", // tilde
  "\u00AF": "\u0304", // macron
  "\u02C9": "\u0304",
  "\u02D8": "\u0306", // breve
  "\u02D9": "\u0307", // dot above
  "\u00A8": "\u0308", // diaeresis
  "\u02DA": "\u030A", // ring
  "\u02DD": "\u030B", // double acute
  "\u02C7": "\u030C", // caron
  "\u00B8": "\u0327", // cedilla
  "\u02DB": "\u0328", // ogonek
};
for (const mark of new Set(Object.values(MARKS))) MARKS[mark] = mark;

/**
 * Accents composed inside a run too, when they make one precomposed character with the letter after them: not
 * ` ^ ~ (code uses them) nor ´ (often typed for an apostrophe: `don´t`).
 */
const INLINE = /([\u00A8\u00AF\u00B8\u02C6-\u02DD])(\p{L})/gu;

/** Marks drawn below the letter: a dotless i keeps no dot to lose under them. */
const BELOW = new Set(["\u0327", "\u0328"]);

/** A letter with an accent mark, in NFC: the dotless ı and ȷ TeX puts under accents become i and j. */
export function withMark(letter: string, mark: string): string {
  const base = BELOW.has(mark) ? letter : letter.replace("\u0131", "i").replace("\u0237", "j");
  return (base + mark).normalize("NFC");
}

/** An accent glyph directly before its letter inside one run's text (`¨o` → `ö`). */
export function composeInline(text: string): string {
  if (!/[\u00A8\u00AF\u00B8\u02C6-\u02DD]/.test(text)) return text;
  return text.replace(INLINE, (pair: string, accent: string, letter: string) => {
    const composed = withMark(letter, MARKS[accent]);
    return [...composed].length === 1 ? composed : pair;
  });
}

/** The runs overlap along the line: the second starts before the first ends (a move back), on the same line. */
function overlaps(a: TextRun, b: TextRun): boolean {
  if (a.vertical || b.vertical || a.dir !== "ltr" || b.dir !== "ltr") return false;
  const size = Math.min(a.fontSize, b.fontSize);
  const sameLine = Math.min(a.box.y2, b.box.y2) - Math.max(a.box.y1, b.box.y1) > 0.3 * size;
  return sameLine && b.box.x1 < a.box.x2 - 0.05 * size && b.box.x2 > a.box.x2 - size;
}

function joined(a: TextRun, b: TextRun, text: string): TextRun {
  return {
    ...(a.text.length >= b.text.length ? a : b),
    ...(a.unmapped || b.unmapped ? { unmapped: true } : {}),
    text,
    box: {
      x1: Math.min(a.box.x1, b.box.x1),
      y1: Math.min(a.box.y1, b.box.y1),
      x2: Math.max(a.box.x2, b.box.x2),
      y2: Math.max(a.box.y2, b.box.y2),
    },
  };
}

/**
 * Runs in content order with accents drawn apart composed onto their letters: an accent ending a run over the
 * letter starting the next (drawn first, as TeX does), or an accent starting a run over the letter ending the
 * previous one (drawn after it). Runs that do not overlap are left alone: a spacing accent with room of its own
 * is a character of the text.
 */
export function composeAccents(runs: readonly TextRun[]): TextRun[] {
  const out: TextRun[] = [];
  for (const run of runs) {
    const previous = out.at(-1);
    if (previous && overlaps(previous, run)) {
      const before = [...previous.text];
      const after = [...run.text];
      const last = before[before.length - 1];
      const first = after[0];
      if (MARKS[last] && /\p{L}/u.test(first)) {
        out[out.length - 1] = joined(
          previous,
          run,
          before.slice(0, -1).join("") + withMark(first, MARKS[last]) + after.slice(1).join(""),
        );
        continue;
      }
      if (MARKS[first] && /\p{L}/u.test(last)) {
        out[out.length - 1] = joined(
          previous,
          run,
          before.slice(0, -1).join("") + withMark(last, MARKS[first]) + after.slice(1).join(""),
        );
        continue;
      }
    }
    out.push(run);
  }
  return out;
}

/**
 * TeX raises an accent over a capital (`À`, `É`) with moves of its own: the pen goes right to centre the accent,
 * draws it, and goes back to where the word's glyphs ended to draw the letter. pdf.js reads that first move as a
 * space: `FACOLT ` + `` ` `` + `A`, or `` FACOLT ` `` + `A`. Where the letter starts where the glyphs before the
 * accent end (`glyphEnds`, parallel to `runs`), that space is no word space and is dropped; a word space before
 * an accented capital leaves the letter a space's width further on, and is kept.
 */
export function withoutAccentKernSpaces(runs: readonly TextRun[], glyphEnds: readonly number[]): TextRun[] {
  const out = [...runs];
  for (let i = 0; i + 1 < out.length; i++) {
    const before = out[i];
    const end = glyphEnds[i];
    if (!Number.isFinite(end) || before.vertical || before.dir !== "ltr") continue;
    // The glyphs' end lies inside the item's box, or the advances read are not this item's.
    if (end < before.box.x1 || end > before.box.x2 + 0.05 * before.fontSize) continue;
    const near = (letter: TextRun) => Math.abs(letter.box.x1 - end) < 0.1 * before.fontSize;
    const inItem = /\s+(\S)$/u.exec(before.text);
    const next = out[i + 1];
    if (inItem && MARKS[inItem[1]] && /^\p{L}/u.test(next.text) && overlaps(before, next) && near(next)) {
      // The accent ends this item: `FACOLT `` ` `` over the next item's `A`.
      out[i] = { ...before, text: before.text.slice(0, inItem.index) + inItem[1] };
      continue;
    }
    const letter = out[i + 2];
    if (!letter || !/\s$/.test(before.text)) continue;
    const mark = next.text.trim();
    if ([...mark].length !== 1 || !MARKS[mark] || !/^\p{L}/u.test(letter.text) || !overlaps(next, letter))
      continue;
    if (near(letter)) out[i] = { ...before, text: before.text.trimEnd() };
  }
  return out;
}
