/**
 * Reading a value's text as the type its schema asks for: numbers (currency, thousands separators, parentheses
 * for negatives), dates (to ISO 8601), booleans (words and checkbox marks) and enums (nearest option). Each reader
 * returns undefined when the text is not a value of the type: the extractor then leaves the field null rather
 * than guess.
 */
import { normalizeText } from "./terms.ts";

const CURRENCY = /[$€£¥₹₩₽¢]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|CNY|SEK|NOK|DKK)\b/gi;

/**
 * The number a text states, or undefined. The text must be only the number, with optional currency, sign,
 * percent and unit words ("12 pcs", "3 hours"); "1,234.56", "1.234,56", "1 234,56" and "(12.00)" are read.
 */
export function parseNumber(text: string): number | undefined {
  let t = text.trim().replace(CURRENCY, "").trim();
  let negative = false;
  if (/^\(.*\)$/.test(t)) {
    negative = true;
    t = t.slice(1, -1).trim();
  }
  t = t.replace(/\s*(?:%|percent|pcs|units?|hours?|hrs?|days?|items?|kg|lbs?|each|ea)\.?$/i, "").trim();
  t = t.replace(CURRENCY, "").trim();
  if (/^[-−–]/.test(t)) {
    negative = !negative;
    t = t.slice(1).trim();
  }
  if (/-$/.test(t)) {
    negative = !negative;
    t = t.slice(0, -1).trim();
  }
  if (!/^\d[\d.,\u00a0\u202f' ]*$/.test(t)) return undefined;
  t = t.replace(/[\u00a0\u202f' ]/g, "");
  const lastDot = t.lastIndexOf(".");
  const lastComma = t.lastIndexOf(",");
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    // Both: the later one is the decimal mark.
    normalized = lastDot > lastComma ? t.replaceAll(",", "") : t.replaceAll(".", "").replace(",", ".");
  } else if (lastComma >= 0) {
    // Only commas: thousands when every group after the first has three digits ("1,234,567"), else decimal.
    normalized = /^\d{1,3}(?:,\d{3})+$/.test(t) ? t.replaceAll(",", "") : t.replace(",", ".");
  } else if (lastDot >= 0 && (t.match(/\./g) ?? []).length > 1) {
    // Several dots: thousands ("1.234.567").
    if (!/^\d{1,3}(?:\.\d{3})+$/.test(t)) return undefined;
    normalized = t.replaceAll(".", "");
  } else {
    normalized = t;
  }
  if (!/^\d+(?:\.\d+)?$/.test(normalized)) return undefined;
  const value = Number(normalized);
  if (!Number.isFinite(value)) return undefined;
  return negative ? -value : value;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;

function monthOf(name: string): number | undefined {
  const index = MONTHS.indexOf(name.slice(0, 3).toLowerCase() as (typeof MONTHS)[number]);
  return index < 0 ? undefined : index + 1;
}

function isoDate(year: number, month: number, day: number): string | undefined {
  if (year < 100) year += year < 70 ? 2000 : 1900;
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return undefined;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/**
 * The calendar date a text states, as `YYYY-MM-DD`, or undefined. Reads ISO dates, "March 5, 2024",
 * "5 March 2024", "05-Mar-2024", and numeric day/month/year: a numeric date whose order is ambiguous
 * (both parts ≤ 12) is read day-first when written with dots (European habit) and month-first otherwise.
 */
export function parseDate(text: string): string | undefined {
  const t = text
    .trim()
    .replace(/^(?:on|dated)\s+/i, "")
    .replace(/[.,]$/, "");
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+Z?)?$/.exec(t);
  if (m) return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(?:[A-Za-z]+,?\s+)?([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  if (m) {
    const month = monthOf(m[1]);
    return month === undefined ? undefined : isoDate(Number(m[3]), month, Number(m[2]));
  }
  m = /^(?:[A-Za-z]+,?\s+)?(\d{1,2})(?:st|nd|rd|th)?[\s-]+([A-Za-z]{3,9})\.?,?[\s-]+(\d{2,4})$/.exec(t);
  if (m) {
    const month = monthOf(m[2]);
    return month === undefined ? undefined : isoDate(Number(m[3]), month, Number(m[1]));
  }
  m = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{2}|\d{4})$/.exec(t);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[3]);
    const year = Number(m[4]);
    if (a > 12) return isoDate(year, b, a);
    if (b > 12) return isoDate(year, a, b);
    return m[2] === "." ? isoDate(year, b, a) : isoDate(year, a, b);
  }
  return undefined;
}

const TRUE_WORDS = new Set(["yes", "y", "true", "checked", "x", "on", "1", "☑", "☒", "✓", "✔", "[x]", "(x)"]);
const FALSE_WORDS = new Set(["no", "n", "false", "unchecked", "off", "0", "☐", "[ ]", "( )", "[]", "()"]);

/** A yes/no a text states: words (yes, no, true, false) or checkbox marks (☑ ☒ [x] vs ☐ [ ]). */
export function parseBoolean(text: string): boolean | undefined {
  const t = text.trim().toLowerCase().replace(/\.$/, "");
  if (TRUE_WORDS.has(t)) return true;
  if (FALSE_WORDS.has(t)) return false;
  return undefined;
}

/** Levenshtein distance, for the nearest enum option. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length];
}

function enumKey(value: string): string {
  return normalizeText(value)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The enum option a text names: equal once normalised, else the one option whose normalised form the text
 * contains as a whole word (or contains the text), else the nearest by edit distance within a fifth of its
 * length. Undefined when no option is close or two are equally close.
 */
export function matchEnum(text: string, options: readonly unknown[]): unknown {
  const key = enumKey(text);
  if (key === "") return undefined;
  const keyed = options.map((option) => ({ option, key: enumKey(String(option)) }));
  const equal = keyed.filter((entry) => entry.key === key);
  if (equal.length === 1) return equal[0].option;
  const padded = ` ${key} `;
  const contained = keyed.filter((entry) => entry.key !== "" && padded.includes(` ${entry.key} `));
  if (contained.length === 1) return contained[0].option;
  const containing = keyed.filter((entry) => ` ${entry.key} `.includes(padded));
  if (containing.length === 1) return containing[0].option;
  let best: { option: unknown; d: number } | null = null;
  let tie = false;
  for (const entry of keyed) {
    const d = distance(key, entry.key);
    if (d > Math.floor(Math.max(key.length, entry.key.length) / 5)) continue;
    if (best === null || d < best.d) {
      best = { option: entry.option, d };
      tie = false;
    } else if (d === best.d) tie = true;
  }
  return best && !tie ? best.option : undefined;
}
