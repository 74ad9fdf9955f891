/**
 * Postal address blocks: a street line (`23 Main Street`, `Ulrike-Gschwandtner-Straße 5`) followed, at most one
 * line further down, by a postcode line (`5020 Salzburg`, `MARINEVILLE NY 12123`, `London SW1A 1AA`). An address
 * set beside labels and values shares their lines, so the text aligns like a table's columns; but the block is one
 * text read down, not a column of cells (issue: columns of address blocks are layout, not a table).
 */

/** A street line: a house number before or after the street's name. */
const STREET =
  /^(?:\d{1,5}[a-z]?(?:[-/]\d{1,5}[a-z]?)?,?\s+\p{L}[\p{L}.'-]*(?:\s+\p{L}[\p{L}.'-]*)*|\p{L}[\p{L}.'-]*(?:\s+\p{L}[\p{L}.'-]*)*,?\s+\d{1,5}[a-z]?(?:[-/]\d{1,5}[a-z]?)?)$/iu;

/** A postcode line: a postcode before the town (European), or a state and ZIP or a British postcode after it. */
const POSTCODE =
  /^(?:(?:[A-Z]{1,2}-)?\d{4,5}\s+\p{Lu}[\p{L} .'-]*|\p{Lu}[\p{L} .'-]*,?\s+(?:[A-Z]{2}\s+\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}))$/u;

/**
 * The index of the first line of an address among consecutive lines of one column (`lines`, top to bottom, ""
 * for a line with no text in the column), and how many lines it takes (street to postcode, and a country line
 * after it); null when there is none.
 */
export function addressLines(lines: readonly string[]): { start: number; count: number } | null {
  for (let k = 0; k < lines.length; k++) {
    if (!STREET.test(lines[k].trim())) continue;
    for (let j = k + 1; j <= k + 2 && j < lines.length; j++) {
      if (lines[j].trim() === "") break;
      if (!POSTCODE.test(lines[j].trim())) continue;
      // A country line under the postcode belongs to the block; a name line over the street does too.
      const country = j + 1 < lines.length && /^\p{Lu}[\p{L} .'-]{1,40}$/u.test(lines[j + 1].trim()) ? 1 : 0;
      const name = k > 0 && lines[k - 1].trim() !== "" ? 1 : 0;
      return { start: k - name, count: j - k + 1 + country + name };
    }
  }
  return null;
}
