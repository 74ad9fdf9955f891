import { NOTE_MARK } from "./bullet-marks.ts";
import type { Line } from "./lines.ts";

/** A note's marker: a number of one to three digits of any script, or a reference sign; a raised letter too (`LETTER_MARKER`). */
const MARKER = new RegExp(`^${NOTE_MARK}$`, "u");

/**
 * Whether a line opens a note: its first run is a marker set smaller than the text that follows it on the line
 * (a superscript `1` before `Inspect sealed transmissions…`), as each note under a page's rule begins. Notes set
 * one after the other are separate notes, not one paragraph; a marker in running text follows its word and never
 * opens a line. A right-to-left line opens at its right.
 */
export function opensNote(line: Line): boolean {
  // A right-to-left note opens at its right: its marker is the rightmost run.
  const runs = [...line.runs].sort((a, b) =>
    line.dir === "rtl" ? b.box.x2 - a.box.x2 : a.box.x1 - b.box.x1,
  );
  if (runs.length < 2) return false;
  const [marker, next] = runs;
  const mark = marker.text.trim();
  const letter = LETTER_MARKER.test(mark);
  if (!MARKER.test(mark) && !letter) return false;
  if (!/\p{L}/u.test(next.text)) return false;
  if (marker.fontSize > next.fontSize * 0.9 || marker.box.y1 > next.box.y1 + 0.5) return false;
  // A letter is a note's marker only set as a superscript, its baseline well above the text's.
  return !letter || marker.box.y2 < next.box.y2 - next.fontSize * 0.2;
}

/**
 * A lowercase letter marks the notes of a table or a box (LaTeX's minipage notes, `a`, `b`), set as a superscript
 * before each note's text.
 */
const LETTER_MARKER = /^\p{Ll}$/u;
