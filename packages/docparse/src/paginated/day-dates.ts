/**
 * Dates written day first with a period after the day (`30. Juni 2008`, `1. Januar`, `22. August 2022`, `3. maj
 * 2021`), as German, the Nordic languages, Czech or Finnish write them. At a line's start the day looks like an
 * ordered list's `30.`; read as one, the day becomes a marker and the line a list item of its own. A day (31 at
 * most) with its period is a date's day, not an enumerator, when a month's name follows it, any capitalised word
 * and then a year in the same line, or a month's number with its period and a year (`05. 02. 2019`).
 */

/**
 * Month names of the languages that write `1. Monat`: German (and Austrian), Danish, Norwegian; Czech and Finnish in
 * the form a date takes. Names that are also common words elsewhere (`mars`) are left to the rule of a year.
 */
const MONTHS = [
  "januar|jänner|februar|feber|märz|april|mai|juni|juli|august|september|oktober|november|dezember",
  "marts|maj|desember|december",
  "ledna|února|března|dubna|května|června|července|srpna|září|října|listopadu|prosince",
  "tammikuuta|helmikuuta|maaliskuuta|huhtikuuta|toukokuuta|kesäkuuta|heinäkuuta|elokuuta|syyskuuta|lokakuuta|marraskuuta|joulukuuta",
].join("|");

/**
 * What follows a day's `30.` in a date: a month's name (any case, abbreviated with a period or not) ending the
 * word, a capitalised word and a year (`Juni 2008`, `Brumaire 1799`), or a month's number with its period and a
 * year (`05. 02. 2019`, as a reference's `besucht am` date wraps onto a line of its own; an item numbered `5.`
 * goes on in words, not in a second number and a year). Written as a lookahead's body, for the list-marker
 * pattern to refuse the day as an enumerator.
 */
export const AFTER_DAY = String.raw`\s+(?:(?i:${MONTHS})(?![\p{L}\d])|(?i:jan|feb|mär|apr|jun|jul|aug|sept?|okt|nov|dez)\.|\p{Lu}\p{Ll}{2,11}\.?,?\s+(?:1[5-9]|20)\d\d(?!\d)|(?:0?[1-9]|1[0-2])\.\s?(?:1[5-9]|20)\d\d(?!\d))`;

/** A day of the month with the period that closes it, at a text's start. */
export const DAY = String.raw`(?:0?[1-9]|[12]\d|3[01])\.`;

const DAY_DATE = new RegExp(`^${DAY}${AFTER_DAY}`, "u");

/**
 * True when the text opens with a date written day first (`30. Juni 2008`).
 *
 * @example opensWithDayDate("30. Juni 2008") // true; opensWithDayDate("3. Results of 2019") // false
 */
export function opensWithDayDate(text: string): boolean {
  return DAY_DATE.test(text);
}
