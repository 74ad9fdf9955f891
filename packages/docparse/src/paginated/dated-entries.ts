import { opensWithDayDate } from "./day-dates.ts";
import type { Line } from "./lines.ts";

/**
 * A date or a time opening a line, then a space: `04/08`, `4/8/2015`, `14.03.` and `14.03.2021` (day and month
 * closed by a period, so a section number `1.2` is none), `2015-04-08`, `09:30`.
 */
const OPENING_DATE =
  /^(?:\d{1,2}\/\d{1,2}(?:\/\d{2,4})?|\d{1,2}\.\d{1,2}\.(?:\d{2,4})?|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})(?=\s)/;

/** True when the text opens with a date or time written in figures, or a day-first date (`14. Jan. 2019`). */
export function opensWithDate(text: string): boolean {
  return OPENING_DATE.test(text) || opensWithDayDate(text);
}

/**
 * True when `next` opens a dated entry of its own: a programme's, a diary's or a log's lines each open with a date
 * or a time (`04/15 My Very Own Science: The Better Way` under `04/08 Other Sciences: …`), and a line opening with
 * one at the edge where the block's first line opens with one, or left of it, starts the next entry, however close
 * the lines are set. An entry's own text wraps under its text, right of its date, and a sentence wrapping onto a
 * line that starts with a date has no date at its own start.
 */
export function opensDatedEntry(first: Line, next: Line): boolean {
  const size = Math.max(first.fontSize, next.fontSize);
  if (next.box.x1 > first.box.x1 + size * 0.5) return false;
  return opensWithDate(first.text) && opensWithDate(next.text);
}
