/**
 * How well a label names a schema field, for offline extraction: each field's label variants (its name split from
 * snake_case/camelCase, with the names of the objects it sits in, its title, the aliases its description quotes,
 * and for table columns common header words), and the scores of a label against them.
 */
import { lexiconLabels } from "./lexicon.ts";
import type { Pair } from "./pairs.ts";
import { mainLabelTerms } from "./pairs.ts";
import type { JsonSchema } from "./schema.ts";
import { labelTerms, normalizeText } from "./terms.ts";
import { hasFormCheck } from "./typed-value.ts";
import { parseDate, parseNumber } from "./values.ts";

/** The least label score for a pair to fill a field. */
export const LABEL_MATCH_THRESHOLD = 0.75;
/** Words that name what a label is about: one more of them makes a label name another thing. */
const HEAD_NOUNS = new Set([
  "numb",
  "date",
  "name",
  "id",
  "code",
  "amount",
  "total",
  "typ",
  "count",
  "rate",
  "tim",
]);
/** Words that turn an amount or a date into another one. */
const MEANING_QUALIFIERS = new Set([
  "net",
  "gross",
  "sub",
  "previou",
  "prior",
  "estimat",
  "budget",
  "target",
  "minimum",
  "maximum",
  "min",
  "max",
  "averag",
  "old",
  "new",
  "start",
  "end",
  "last",
  "first",
  "next",
]);

/** The score of a label holding a field's whole name and one other word. */
const CONTAINING_LABEL_SCORE = 0.76;
/** The score of a label that is part of one field's name and of no other field's at its level. */
export const PARTIAL_NAME_SCORE = 0.8;

export interface FieldSpec {
  pointer: string;
  name: string;
  schema: JsonSchema;
  /** Label-term variants the field answers to: its name (alone and with its parents' names), title, aliases. */
  variants: Set<string>[];
  /** Content terms of the field's name and description. */
  described: Set<string>;
  nameTerms: Set<string>;
  /** Every term of the variants and the description. */
  anyTerm: Set<string>;
  /** Terms of the objects the field sits in (for scope). */
  parentTerms: Set<string>;
}

/** Aliases a description quotes: 'Inv #', "Invoice No.", and phrases after "also called/labelled/known as". */
function descriptionAliases(description: unknown): string[] {
  if (typeof description !== "string") return [];
  const aliases: string[] = [];
  // Quoted words only: an apostrophe inside a word ("the invoice's number") opens or closes nothing.
  const quoted = /(?<![\p{L}\p{N}])["“'‘]([^"”'’“‘]{1,40})["”'’](?![\p{L}\p{N}])/gu;
  for (const match of description.matchAll(quoted)) aliases.push(match[1]);
  for (const match of description.matchAll(
    /\b(?:also (?:called|labell?ed|known as|shown as)|labell?ed|aka)\s+([\p{L}\p{N} #./-]{1,40})/giu,
  )) {
    aliases.push(match[1].split(/\s+(?:or|and)\s+|,/)[0]);
  }
  return aliases;
}

/**
 * Column-header words of common table vocabularies (line items, figures by region), by the property they name.
 * Used for table columns only, where the table's other matched columns already vouch for the reading.
 */
const COLUMN_SYNONYMS: Record<string, string[]> = {
  quantity: ["qty", "units", "count", "pcs", "hours", "no of units"],
  amount: ["total", "line total", "sum", "extended price", "extended", "net amount", "line amount"],
  description: ["item", "product", "service", "details", "article"],
  unit_price: ["price", "rate", "unit cost", "cost", "each", "price per unit", "unit rate"],
  price: ["unit price", "rate", "unit cost"],
  revenue: ["sales", "turnover"],
  growth: ["change", "yoy"],
  name: ["item", "product"],
};

export function fieldSpec(
  pointer: string,
  name: string,
  schema: JsonSchema,
  parents: string[],
  columns = false,
): FieldSpec {
  const own = labelTerms(name);
  const parentTerms = new Set(parents.flatMap((parent) => labelTerms(parent)));
  const variants: Set<string>[] = [new Set(own)];
  if (parents.length > 0) variants.push(new Set([...parentTerms, ...own]));
  if (typeof schema.title === "string") variants.push(new Set(labelTerms(schema.title)));
  for (const alias of descriptionAliases(schema.description)) variants.push(new Set(labelTerms(alias)));
  for (const synonym of lexiconLabels(name)) variants.push(new Set(labelTerms(synonym)));
  if (columns) {
    const key = normalizeText(name).replace(/ /g, "_");
    for (const synonym of COLUMN_SYNONYMS[key] ?? []) variants.push(new Set(labelTerms(synonym)));
  }
  const described = new Set([
    ...own,
    ...(typeof schema.description === "string" ? labelTerms(schema.description) : []),
  ]);
  const kept = variants.filter((variant) => variant.size > 0);
  return {
    pointer,
    name,
    schema,
    variants: kept,
    described,
    anyTerm: new Set([...described, ...kept.flatMap((variant) => [...variant])]),
    nameTerms: new Set(own),
    parentTerms,
  };
}

/** Name words a value can stand in for: "Due: 2024-05-01" names `due_date`, "Invoice: INV-7" `invoice_number`. */
export function impliedByValue(term: string, raw: string, schema: JsonSchema): boolean {
  switch (term) {
    case "date":
      return parseDate(raw) !== undefined;
    case "numb":
      return /\d/.test(raw);
    case "name":
      // A name: one to four capitalised words ("Maria Garcia", "Acme Corp"), not a phrase or a sentence.
      return /^\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,3}$/u.test(raw) && !/\.$/.test(raw);
    case "status":
    case "type":
    case "kind":
    case "categori":
      return Array.isArray(schema.enum);
    case "amount":
    case "valu":
      return parseNumber(raw) !== undefined;
    default:
      return false;
  }
}

/** Label words that qualify rather than name ("Total Revenue" is the revenue): they count a fifth as extra. */
const SOFT_MODIFIERS = new Set(["total", "overall", "grand", "final", "gross"]);

/**
 * How well a label names a field, 0..1. For each variant: 1 when the label's terms are the variant's; otherwise
 * 0.95 × common / (common + missing + extra), where a variant term the label lacks is not missing when the context
 * (the partition's headings, the pair's scope) or the value supplies it ("Date" under an INVOICE title for
 * `invoice_date`, "Due: 2024-05-01" for `due_date`), and a label term the variant lacks is not extra when the
 * context has it (a qualifier such as "total" counts a fifth). A label whose terms all appear in the field's
 * description, not all in its name, sharing one with its name or naming two, scores 0.8 ("Issue Date" for `invoice_date` described as "the date the invoice was issued"). A field
 * inside an object whose name neither the label nor its scope mentions is discounted.
 */
export function labelScore(
  pair: Pair,
  field: FieldSpec,
  context: Set<string>,
  raw: string,
  otherNames: readonly Set<string>[] = [],
  /** Score as if the value supplied every word it could: an upper bound, to skip typing hopeless values. */
  optimistic = false,
): number {
  const label = new Set(pair.labelTerms);
  if (label.size === 0) return 0;
  let best = 0;
  for (const variant of field.variants) {
    let common = 0;
    for (const term of label) if (variant.has(term)) common++;
    if (common === 0) continue;
    if (common === label.size && common === variant.size) {
      best = 1;
      break;
    }
    let missing = 0;
    for (const term of variant) {
      if (
        !label.has(term) &&
        !context.has(term) &&
        !pair.scope.has(term) &&
        !(optimistic || impliedByValue(term, raw, field.schema))
      ) {
        missing++;
      }
    }
    let extra = 0;
    for (const term of label) {
      if (!variant.has(term) && !context.has(term)) extra += SOFT_MODIFIERS.has(term) ? 0.2 : 1;
    }
    best = Math.max(best, (0.95 * common) / (common + missing + extra));
    // A label holding the whole variant and one word more ("Street Address" for `address`) is a near match when
    // the word does not make it something else: no other field's word, no head noun ("Bill Number" is not the
    // bill-to party), no qualifier that changes the amount ("Net Total"). A field whose value is checked by its
    // form (email, phone, web address) may take any one word more ("Email Address").
    if (missing === 0 && common === variant.size && extra > 0 && extra <= 1) {
      const word = [...label].find((term) => !variant.has(term) && !context.has(term)) ?? "";
      const harmless =
        !HEAD_NOUNS.has(word) &&
        !MEANING_QUALIFIERS.has(word) &&
        !otherNames.some((name) => name !== field.nameTerms && name.has(word));
      // ...and the value is short: "Department of Education: Collaborate with..." is a sentence, not a department.
      const short = optimistic || raw.split(/\s+/).length <= 8;
      if ((harmless || hasFormCheck(field.name)) && short) best = Math.max(best, CONTAINING_LABEL_SCORE);
    }
  }
  const inDescription = [...label].every((term) => field.described.has(term));
  const namesOne = [...label].some((term) => field.nameTerms.has(term));
  // Only when the description adds something: a label that is part of the name ("Invoice" for `invoice_number`)
  // is scored by the name alone.
  const withinName = [...label].every((term) => field.nameTerms.has(term));
  if (inDescription && !withinName && (namesOne || label.size >= 2)) best = Math.max(best, 0.8);
  if (
    field.parentTerms.size > 0 &&
    ![...field.parentTerms].some((term) => label.has(term) || pair.scope.has(term))
  ) {
    best *= 0.85;
  }
  return best;
}

/**
 * Whether a label names a field's head word (the last of its name: `date` in `report_date`), or the value stands
 * in for it ("Invoice: INV-7" for `invoice_number`): "Invoice To: Acme Corp" does not name `invoice_number`.
 */
export function headNamed(pair: Pair, field: FieldSpec, raw: string): boolean {
  const head = [...field.nameTerms].at(-1);
  return head === undefined || pair.labelTerms.includes(head) || impliedByValue(head, raw, field.schema);
}

/**
 * How well a column header names a property: the label score without context, or 0.8 when the header holds
 * every term of one of the property's variants ("Item Description" for `description`).
 */
export function headerScore(header: string, field: FieldSpec, known?: Set<string>): number {
  // Read against the columns' words when given: "Ext. Price", "Sub Total".
  const terms = known ? schemaLabelTerms(header, mainLabelTerms(header), known) : mainLabelTerms(header);
  const headerTerms = new Set(terms);
  if (field.variants.some((variant) => [...variant].every((term) => headerTerms.has(term)))) {
    return Math.max(0.8, headerScoreExact(header, terms, field));
  }
  return headerScoreExact(header, terms, field);
}

function headerScoreExact(header: string, terms: string[], field: FieldSpec): number {
  const pair: Pair = {
    label: header,
    labelTerms: terms,
    value: "",
    kind: "table",
    page: 1,
    bbox: null,
    source: "",
    order: 0,
    scope: new Set(),
  };
  return labelScore(pair, { ...field, parentTerms: new Set() }, new Set(), "");
}

/** Whether the letters of `short` appear in `long` in order, starting with its first ("dept" in "department"). */
function abbreviates(short: string, long: string): boolean {
  if (long.length <= short.length || short[0] !== long[0]) return false;
  let at = 1;
  for (const letter of short.slice(1)) {
    at = long.indexOf(letter, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/** Whether two words differ by one letter added, dropped, changed, or two neighbours swapped. */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  const [restA, restB] = [a.slice(start), b.slice(start)];
  if (restA.slice(1) === restB.slice(1) || restA.slice(1) === restB || restA === restB.slice(1)) return true;
  return (
    restA.length >= 2 && restA[0] === restB[1] && restA[1] === restB[0] && restA.slice(2) === restB.slice(2)
  );
}

/**
 * A label's terms read against the schema's vocabulary (`known`: every term of its fields' variants): two words
 * that together are one known term are that term ("Sub Total", "Head Count"), and an abbreviation (a word
 * written with a dot, "Ref.", or with no vowel after its first letter, "Dt", "Mgr") that stands for exactly one
 * known term with the same first letter is that term; a word of five letters or more one edit from exactly one
 * known term of five or more is that term (a typo or an OCR slip: "Invocie", "Adress"). Terms already known are
 * kept as they are.
 */
export function schemaLabelTerms(label: string, labelTermsOfLabel: string[], known: Set<string>): string[] {
  const result = [...labelTermsOfLabel];
  const replace = (from: string[], to: string) => {
    const index = result.indexOf(from[0]);
    if (index < 0 || !from.every((term) => result.includes(term))) return;
    for (const term of from) result.splice(result.indexOf(term), 1);
    result.splice(Math.min(index, result.length), 0, to);
  };
  const main = label.replace(/\([^)]*\)/g, " ");
  const raw = main.match(/[\p{L}]+\.?/gu) ?? [];
  for (let i = 0; i + 1 < raw.length; i++) {
    const [a, b] = [raw[i].replace(/\.$/, ""), raw[i + 1].replace(/\.$/, "")];
    const joined = labelTerms(`${a}${b}`.toLowerCase());
    if (joined.length !== 1 || !known.has(joined[0])) continue;
    const parts = [...labelTerms(a), ...labelTerms(b)];
    if (parts.length === 2 && !parts.every((part) => known.has(part))) replace(parts, joined[0]);
  }
  for (const word of raw) {
    const bare = word.replace(/\.$/, "").toLowerCase();
    const dotted = word.endsWith(".");
    const vowelless = /^[a-z][^aeiouy]+$/.test(bare);
    if (bare.length < 2 || bare.length > 5 || !(dotted || vowelless)) continue;
    const [term] = labelTerms(bare);
    if (term === undefined || known.has(term)) continue;
    const expansions = [...known].filter((candidate) => abbreviates(bare, candidate));
    if (expansions.length === 1) replace([term], expansions[0]);
  }
  for (const term of [...result]) {
    if (term.length < 5 || known.has(term)) continue;
    const near = [...known].filter((candidate) => candidate.length >= 5 && oneEditApart(term, candidate));
    if (near.length === 1) replace([term], near[0]);
  }
  return result;
}
