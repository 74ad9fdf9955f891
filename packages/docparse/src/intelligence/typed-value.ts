/**
 * Reading a pair's value text as a schema field's type, and checking that it suits what the field's name says it
 * holds; undefined when it does not, so the field stays null.
 */
import { type JsonSchema, schemaType } from "./schema.ts";
import { labelTerms } from "./terms.ts";
import { matchEnum, parseBoolean, parseDate, parseNumber } from "./values.ts";

const EMPTY_VALUES = new Set([
  "",
  "-",
  "—",
  "–",
  "n/a",
  "na",
  "n.a.",
  "none",
  "null",
  "not applicable",
  "tbd",
  "?",
]);

/** The checked option of a checkbox group ("☐ Single ☑ Married" → "Married"), or undefined. */
function checkedOption(text: string): string | undefined {
  const checked = [...text.matchAll(/(?:[☑☒✓✔]|\[\s?[xX✓✔]\s?\]|\(\s?[xX]\s?\))\s*([^☐☑☒✓✔[(]+)/gu)];
  if (checked.length !== 1) return undefined;
  return checked[0][1].trim();
}

function hasCheckboxes(text: string): boolean {
  return /[☐☑☒]|\[\s?[xX✓✔]?\s?\]/u.test(text);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL_LIKE = /^(?:https?:\/\/|www\.)\S+$/i;

/**
 * Whether a value suits what a field's name says it holds: an email address for `email`, a number of six digits or
 * more for a phone, a web address for a URL, and no email or web address for a postal address.
 */
const NAME_WORDS = new Map<string, Set<string>>();

/** The label terms of a field name, computed once per name. */
function nameWords(name: string): Set<string> {
  let words = NAME_WORDS.get(name);
  if (words === undefined) {
    words = new Set(labelTerms(name));
    if (NAME_WORDS.size < 10_000) NAME_WORDS.set(name, words);
  }
  return words;
}

export function hasFormCheck(name: string): boolean {
  const words = nameWords(name);
  return ["email", "phon", "fax", "mobil", "url", "websit"].some((word) => words.has(word));
}

function plausible(raw: string, name: string): boolean {
  const words = nameWords(name);
  if (words.has("email")) return EMAIL.test(raw);
  if (words.has("phon") || words.has("fax") || words.has("mobil")) {
    return (
      (raw.match(/\d/g) ?? []).length >= 6 && !/[a-z]{4,}/i.test(raw.replace(/\b(?:ext|tel|fax)\b/gi, ""))
    );
  }
  if (words.has("url") || words.has("websit"))
    return URL_LIKE.test(raw) || /^[\w-]+(?:\.[\w-]+)+(?:\/\S*)?$/.test(raw);
  if (words.has("address")) return !EMAIL.test(raw) && !URL_LIKE.test(raw);
  return true;
}

export function isDateField(name: string, schema: JsonSchema): boolean {
  const format = schema.format;
  if (format === "date" || format === "date-time") return true;
  return /(?:^|[_\s-])date$|Date$|^date/.test(name) || /\bdate\b/i.test(String(schema.description ?? ""));
}

/** A value text read as the schema's type, or undefined when it is not one. */
export function typedValue(text: string, schema: JsonSchema, name: string): unknown {
  const raw = text.trim().replace(/\s+/g, " ");
  if (EMPTY_VALUES.has(raw.toLowerCase())) return undefined;
  if (!plausible(raw, name)) return undefined;
  const type = schemaType(schema);
  if (Array.isArray(schema.enum)) {
    const options = schema.enum.filter((option) => option !== null);
    const choice = hasCheckboxes(raw) ? checkedOption(raw) : raw;
    return choice === undefined ? undefined : matchEnum(choice, options);
  }
  switch (type) {
    case "number":
    case "integer": {
      const value = parseNumber(raw);
      if (value === undefined || (type === "integer" && !Number.isInteger(value))) return undefined;
      return value;
    }
    case "boolean": {
      if (hasCheckboxes(raw) && raw.replace(/[☐☑☒✓✔[\]\sxX()]/gu, "") !== "") {
        const choice = checkedOption(raw);
        return choice === undefined ? undefined : parseBoolean(choice);
      }
      return parseBoolean(raw);
    }
    case "string":
    case null: {
      if (isDateField(name, schema)) {
        const date = parseDate(raw);
        if (date !== undefined) return schema.format === "date-time" ? `${date}T00:00:00Z` : date;
        if (schema.format === "date" || schema.format === "date-time") return undefined;
      }
      if (hasCheckboxes(raw)) return checkedOption(raw);
      return raw;
    }
    default:
      return undefined;
  }
}

/**
 * The value text of a `Label: value` pair as far as it reads as the field's type. Text run on from the next line
 * ("Paid: Yes Thank you for your business") is cut to the longest leading run of at most four words that is a
 * number, date or yes/no; other types take the whole text.
 */
export function typedPrefix(text: string, schema: JsonSchema, name: string): string {
  const type = schemaType(schema);
  const dateLike = type === "string" && isDateField(name, schema);
  if (!["number", "integer", "boolean"].includes(type ?? "") && !dateLike) return text;
  if (typedValue(text, schema, name) !== undefined) return text;
  const tokens = text.trim().split(/\s+/);
  for (let k = Math.min(4, tokens.length - 1); k >= 1; k--) {
    const prefix = tokens.slice(0, k).join(" ");
    if (typedValue(prefix, schema, name) !== undefined) return prefix;
  }
  return text;
}
