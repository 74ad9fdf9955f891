/**
 * Offline structured extraction: schema-guided key-value extraction over a partition's items, deterministic and
 * without a model. Precision over recall: a field whose label is not found, or whose value does not read as the
 * field's type, is null; nothing is invented.
 *
 * - Scalar fields: the document's label/value pairs (pairs.ts) are matched to each field by label terms against
 *   the field's name (snake_case/camelCase split), the names of the objects it sits in, aliases its description
 *   quotes ("also labelled 'Inv #'"), and common abbreviations (No./#/Num, Qty, Amt...). A match is kept when its
 *   score is at least LABEL_MATCH_THRESHOLD and the value reads as the field's type (numbers with currency and
 *   thousands separators, dates to ISO 8601, booleans and checkbox marks, enums by nearest option). Each field
 *   takes at most one pair and each pair serves at most one field, best scores first.
 * - Arrays of objects: the rows of tables whose column headers match at least two of the item's properties (or its
 *   only one); totals rows are left out.
 * - Arrays of scalars: a table column, the list under a matching heading, or a comma-separated value.
 * - Nested objects: recursively, their fields matched with the object's name as context.
 */
import type { Box, DocItem, ListItem, TableCell, TableItem } from "../model.ts";
import { collectPairs, headerRows, mainLabelTerms, type Pair, tableGrid } from "./pairs.ts";
import type { Partition } from "./partition.ts";
import { escapePointer, type JsonSchema, resolveSchema, schemaProperties, schemaType } from "./schema.ts";
import { labelTerms, normalizeText, terms } from "./terms.ts";
import { matchEnum, parseBoolean, parseDate, parseNumber } from "./values.ts";

/** Where an extracted value was read. `field` is a JSON pointer into the data. */
export interface Citation {
  field: string;
  page_number: number;
  bbox: Box | null;
  text: string;
}

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
const PARTIAL_NAME_SCORE = 0.8;

interface FieldSpec {
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

interface Found {
  value: unknown;
  citation: Omit<Citation, "field">;
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
  amount: ["total", "line total", "sum", "extended price", "net amount"],
  description: ["item", "product", "service", "details", "article"],
  unit_price: ["price", "rate", "unit cost", "cost"],
  price: ["unit price", "rate", "unit cost"],
  revenue: ["sales", "turnover"],
  growth: ["change", "yoy"],
  name: ["item", "product"],
};

function fieldSpec(
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
function impliedByValue(term: string, raw: string, schema: JsonSchema): boolean {
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
function labelScore(
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

function hasFormCheck(name: string): boolean {
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

function isDateField(name: string, schema: JsonSchema): boolean {
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
function typedPrefix(text: string, schema: JsonSchema, name: string): string {
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

/** Bounds on the schema walks: deeper than any schema the request validation admits, and a budget of nodes. */
const MAX_SCHEMA_DEPTH = 8;
const MAX_SCHEMA_NODES = 2000;

interface Extraction {
  /** Scalar fields met while walking the schema, filled together at the end. */
  scalars: { spec: FieldSpec; name: string; target: Record<string, unknown> }[];
  /** The objects the walk made for nested schemas (turned into null when nothing in them was found). */
  objectsMade: Set<object>;
  /** Objects extracted so far (bounded by MAX_SCHEMA_NODES). */
  objects: number;
  /** The name terms of every scalar field of the schema. */
  fieldNames: Set<string>[];
  pairs: Pair[];
  used: Set<Pair>;
  context: Set<string>;
  items: readonly DocItem[];
  citations: Citation[];
  usedTables: Set<TableItem>;
}

/** Fills the scalar fields of one object level: best label scores first, one pair per field and field per pair. */
/**
 * Whether a label names a field's head word (the last of its name: `date` in `report_date`), or the value stands
 * in for it ("Invoice: INV-7" for `invoice_number`): "Invoice To: Acme Corp" does not name `invoice_number`.
 */
function headNamed(pair: Pair, field: FieldSpec, raw: string): boolean {
  const head = [...field.nameTerms].at(-1);
  return head === undefined || pair.labelTerms.includes(head) || impliedByValue(head, raw, field.schema);
}

function fillScalars(
  fields: FieldSpec[],
  names: string[],
  state: Extraction,
  partialNames = true,
): Map<string, Found> {
  const candidates: { field: number; pair: Pair; score: number; value: unknown }[] = [];
  // A label that is part of exactly one field's name in the whole schema ("Date" where only `report_date` has
  // the word) names that field.
  const partials = new Map<Pair, number>();
  const partialOf = (pair: Pair): number => {
    if (!partialNames || pair.kind === "section" || pair.kind === "title" || pair.labelTerms.length === 0) {
      return -1;
    }
    let owner = partials.get(pair);
    if (owner === undefined) {
      const within = (name: Set<string>) => pair.labelTerms.every((term) => name.has(term));
      owner =
        state.fieldNames.filter(within).length === 1
          ? fields.findIndex((field) => within(field.nameTerms))
          : -1;
      partials.set(pair, owner);
    }
    return owner;
  };
  fields.forEach((field, index) => {
    for (const pair of state.pairs) {
      if (state.used.has(pair)) continue;
      if (pair.kind === "section" && schemaType(field.schema) !== "string") continue;
      if (pair.kind === "title" && !field.nameTerms.has("titl")) continue;
      // Only a label sharing a term with the field can score: skip the value typing for the rest.
      if (!pair.labelTerms.some((term) => field.anyTerm.has(term))) continue;
      const bound = labelScore(pair, field, state.context, pair.value, state.fieldNames, true);
      if (bound < LABEL_MATCH_THRESHOLD && partialOf(pair) !== index) continue;
      const raw = pair.kind === "colon" ? typedPrefix(pair.value, field.schema, names[index]) : pair.value;
      const value = typedValue(raw, field.schema, names[index]);
      if (value === undefined) continue;
      let score = labelScore(pair, field, state.context, raw.trim(), state.fieldNames);
      if (score < PARTIAL_NAME_SCORE && partialOf(pair) === index && headNamed(pair, field, raw.trim())) {
        const inScope = [...field.parentTerms].every(
          (term) => pair.scope.has(term) || pair.labelTerms.includes(term),
        );
        score = inScope ? PARTIAL_NAME_SCORE : PARTIAL_NAME_SCORE * 0.85;
      }
      // A heading names a long-text field only exactly ("Summary" for `summary`).
      if (score < LABEL_MATCH_THRESHOLD || (pair.kind === "section" && score < 1)) continue;
      candidates.push({ field: index, pair, score: pair.kind === "section" ? score * 0.9 : score, value });
    }
  });
  candidates.sort((a, b) => b.score - a.score || a.pair.order - b.pair.order);
  const filled = new Map<string, Found>();
  for (const candidate of candidates) {
    const field = fields[candidate.field];
    if (filled.has(field.pointer) || state.used.has(candidate.pair)) continue;
    state.used.add(candidate.pair);
    filled.set(field.pointer, {
      value: candidate.value,
      citation: { page_number: candidate.pair.page, bbox: candidate.pair.bbox, text: candidate.pair.source },
    });
  }
  return filled;
}

/**
 * How well a column header names a property: the label score without context, or 0.8 when the header holds
 * every term of one of the property's variants ("Item Description" for `description`).
 */
function headerScore(header: string, field: FieldSpec): number {
  const headerTerms = new Set(mainLabelTerms(header));
  if (field.variants.some((variant) => [...variant].every((term) => headerTerms.has(term)))) {
    return Math.max(0.8, headerScoreExact(header, field));
  }
  return headerScoreExact(header, field);
}

function headerScoreExact(header: string, field: FieldSpec): number {
  const pair: Pair = {
    label: header,
    labelTerms: mainLabelTerms(header),
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

const TOTALS_CELL =
  /^(?:sub-?total|total|grand total|tax|vat|gst|sales tax|amount due|balance due|balance)\b.{0,20}$/i;

/** Objects from the rows of tables whose headers match the item schema's properties. */
function tableObjects(
  itemSchema: JsonSchema,
  root: JsonSchema,
  pointer: string,
  state: Extraction,
): unknown[] | null {
  const properties = schemaProperties(itemSchema).map(([name, node]) => {
    const schema = resolveSchema(root, node);
    return { name, schema, spec: fieldSpec("", name, schema, [], true) };
  });
  const scalar = properties.filter(
    (property) => !["object", "array"].includes(schemaType(property.schema) ?? ""),
  );
  if (scalar.length === 0) return null;
  const rows: unknown[] = [];
  for (const item of state.items) {
    if (item.label !== "table" || state.usedTables.has(item)) continue;
    const grid = tableGrid(item);
    const headers = headerRows(item, grid);
    // Header rows: the table's own, else a row of text further down (a table joined under another one, as
    // PDF layouts sometimes read two tables that touch).
    const candidates: [number, number][] = headers > 0 ? [[0, headers]] : [];
    grid.forEach((row, index) => {
      const filled = row.filter((cell) => cell !== null && cell.text.trim() !== "");
      if (index >= headers && filled.length >= 2 && filled.every((cell) => !/\d/.test(cell?.text ?? ""))) {
        candidates.push([index, index + 1]);
      }
    });
    let columns = new Map<string, number>();
    let bodyStart = -1;
    for (const [start, end] of candidates) {
      const mapped = mapColumns(grid.slice(start, end), item.numCols, scalar);
      if (mapped.size >= Math.min(2, scalar.length)) {
        columns = mapped;
        bodyStart = end;
        break;
      }
    }
    if (bodyStart < 0) continue;
    state.usedTables.add(item);
    for (const row of grid.slice(bodyStart)) {
      const first = row.find((cell) => cell !== null && cell.text.trim() !== "");
      if (!first || TOTALS_CELL.test(first.text.trim())) continue;
      const filledCells = row.filter((cell) => cell !== null && cell.text.trim() !== "").length;
      if (filledCells < Math.min(2, columns.size)) continue;
      const index = rows.length;
      const object: Record<string, unknown> = {};
      for (const property of properties) {
        const col = columns.get(property.name);
        const cell: TableCell | null = col === undefined ? null : row[col];
        const value = cell ? typedValue(cell.text, property.schema, property.name) : undefined;
        object[property.name] = value === undefined ? emptyValue(property.schema) : value;
        if (value !== undefined && cell) {
          state.citations.push({
            field: `${pointer}/${index}/${escapePointer(property.name)}`,
            page_number: item.prov[0]?.page ?? 1,
            bbox: cell.bbox ?? item.prov[0]?.bbox ?? null,
            text: cell.text.trim(),
          });
        }
      }
      rows.push(object);
    }
  }
  return rows.length > 0 ? rows : null;
}

/** Each property to its best-matching column (a column serves one property), from the header rows' text. */
function mapColumns(
  headerRowsCells: (TableCell | null)[][],
  numCols: number,
  scalar: { name: string; spec: FieldSpec }[],
): Map<string, number> {
  const headerText = (col: number) =>
    headerRowsCells
      .map((row) => row[col]?.text ?? "")
      .join(" ")
      .trim();
  const scored: { name: string; col: number; score: number }[] = [];
  for (const property of scalar) {
    for (let col = 0; col < numCols; col++) {
      const score = headerScore(headerText(col), property.spec);
      if (score >= 0.5) scored.push({ name: property.name, col, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.col - b.col);
  const columns = new Map<string, number>();
  const taken = new Set<number>();
  for (const entry of scored) {
    if (columns.has(entry.name) || taken.has(entry.col)) continue;
    columns.set(entry.name, entry.col);
    taken.add(entry.col);
  }
  return columns;
}

/** A not-found value: null for every type (arrays and objects included). */
function emptyValue(_schema: JsonSchema): null {
  return null;
}

/** Scalars of an array field: the list under a heading naming it, else a comma-separated pair value. */
function scalarList(
  name: string,
  itemSchema: JsonSchema,
  pointer: string,
  state: Extraction,
): unknown[] | null {
  const nameTerms = new Set(terms(name));
  for (let index = 0; index < state.items.length; index++) {
    const item = state.items[index];
    if (item.label !== "section_header" && item.label !== "title") continue;
    const heading = terms(item.text);
    if (heading.length === 0 || !heading.every((term) => nameTerms.has(term))) continue;
    const list: ListItem[] = [];
    for (const next of state.items.slice(index + 1)) {
      if (next.label === "list_item") list.push(next);
      else if (list.length > 0 || next.label === "section_header" || next.label === "title") break;
    }
    const values = list.map((entry) => typedValue(entry.text, itemSchema, name));
    if (list.length > 0 && values.every((value) => value !== undefined)) {
      list.forEach((entry, position) => {
        state.citations.push({
          field: `${pointer}/${position}`,
          page_number: entry.prov[0]?.page ?? 1,
          bbox: entry.prov[0]?.bbox ?? null,
          text: entry.text,
        });
      });
      return values;
    }
  }
  return null;
}

function extractObject(
  root: JsonSchema,
  schema: JsonSchema,
  pointer: string,
  parents: string[],
  state: Extraction,
): Record<string, unknown> | null {
  // A schema nested past any the request validation admits (or referring to itself) ends in null, not a loop.
  if (parents.length > MAX_SCHEMA_DEPTH || ++state.objects > MAX_SCHEMA_NODES) return null;
  const result: Record<string, unknown> = {};
  state.objectsMade.add(result);
  const properties = schemaProperties(schema);
  for (const [name, node] of properties) {
    const child = resolveSchema(root, node);
    const childPointer = `${pointer}/${escapePointer(name)}`;
    const type = schemaType(child);
    if (type === "object") {
      result[name] = extractObject(root, child, childPointer, [...parents, name], state);
    } else if (type === "array") {
      const itemSchema = resolveSchema(root, child.items);
      const itemType = schemaType(itemSchema);
      let values: unknown[] | null = null;
      if (itemType === "object") values = tableObjects(itemSchema, root, childPointer, state);
      else {
        values = scalarList(name, itemSchema, childPointer, state);
        if (values === null) {
          const spec = fieldSpec(
            childPointer,
            name,
            { ...itemSchema, description: child.description },
            parents,
          );
          const found = fillScalars([spec], [name], state, false).get(childPointer);
          if (found && typeof found.value === "string") {
            const parts = found.value.split(/\s*[;,]\s*/).filter(Boolean);
            const typed = parts.map((part) => typedValue(part, itemSchema, name));
            if (typed.every((value) => value !== undefined)) {
              values = typed;
              typed.forEach((_, position) => {
                state.citations.push({ field: `${childPointer}/${position}`, ...found.citation });
              });
            }
          }
        }
      }
      result[name] = values;
    } else {
      result[name] = null;
      state.scalars.push({ spec: fieldSpec(childPointer, name, child, parents), name, target: result });
    }
  }
  return result;
}

/**
 * Fills every scalar field of the schema at once, whatever object it sits in, so that a field stated plainly
 * ("Name" for a top-level `name`) is not taken by a nested field that only shares its word; then turns nested
 * objects with nothing found into null.
 */
function fillAllScalars(state: Extraction): void {
  const fields = state.scalars.map((scalar) => scalar.spec);
  const filled = fillScalars(
    fields,
    state.scalars.map((scalar) => scalar.name),
    state,
  );
  for (const scalar of state.scalars) {
    const found = filled.get(scalar.spec.pointer);
    if (!found) continue;
    scalar.target[scalar.name] = found.value;
    state.citations.push({ field: scalar.spec.pointer, ...found.citation });
  }
}

function collapseEmpty(value: unknown, objects: Set<object>): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || !objects.has(value))
    return value;
  const record = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(record)) record[key] = collapseEmpty(child, objects);
  return Object.values(record).every((child) => child === null) ? null : record;
}

/** The name terms of every scalar field of a schema, nested ones and array items' included. */
function scalarFieldNames(root: JsonSchema): Set<string>[] {
  const names: Set<string>[] = [];
  let visited = 0;
  const visit = (node: unknown, name: string, depth: number) => {
    if (depth > MAX_SCHEMA_DEPTH || ++visited > MAX_SCHEMA_NODES) return;
    const schema = resolveSchema(root, node);
    const type = schemaType(schema);
    if (type === "object")
      for (const [child, childNode] of schemaProperties(schema)) visit(childNode, child, depth + 1);
    else if (type === "array") visit(schema.items, name, depth + 1);
    else if (name !== "") names.push(new Set(labelTerms(name)));
  };
  visit(root, "", 0);
  return names;
}

/** Every label term of a schema: its field names and the words of their descriptions. */
function schemaVocabulary(root: JsonSchema): Set<string> {
  const vocabulary = new Set<string>();
  let visited = 0;
  const visit = (node: unknown, depth: number) => {
    if (depth > MAX_SCHEMA_DEPTH || ++visited > MAX_SCHEMA_NODES) return;
    const schema = resolveSchema(root, node);
    if (typeof schema.description === "string")
      for (const term of labelTerms(schema.description)) vocabulary.add(term);
    for (const [name, child] of schemaProperties(schema)) {
      for (const term of labelTerms(name)) vocabulary.add(term);
      visit(child, depth + 1);
    }
    if (schema.items !== undefined) visit(schema.items, depth + 1);
  };
  visit(root, 0);
  return vocabulary;
}

/** The label variants of every field of a schema, nested ones included (to find labels in run-on text). */
function allVariants(root: JsonSchema): Set<string>[] {
  const variants: Set<string>[] = [];
  let visited = 0;
  const visit = (node: unknown, name: string, parents: string[], depth: number) => {
    if (depth > MAX_SCHEMA_DEPTH || ++visited > MAX_SCHEMA_NODES) return;
    const schema = resolveSchema(root, node);
    const type = schemaType(schema);
    if (type === "object") {
      for (const [child, childNode] of schemaProperties(schema)) {
        visit(childNode, child, name === "" ? parents : [...parents, name], depth + 1);
      }
    } else if (type === "array") visit(schema.items, name, parents, depth + 1);
    else if (name !== "") variants.push(...fieldSpec("", name, schema, parents).variants);
  };
  visit(root, "", [], 0);
  return variants;
}

/**
 * The data of a schema read from a partition, and where each value came from. Fields not found are null;
 * `citations` is empty unless asked for.
 *
 * @example
 * const { data } = extractStructured(partition, {
 *   type: "object",
 *   properties: { invoice_number: { type: "string" }, total: { type: "number" } },
 *   required: ["invoice_number", "total"],
 * }, { provideCitations: false });
 * // data: { invoice_number: "INV-001", total: 1234.5 } for a page reading "Invoice No: INV-001 ... Total: $1,234.50"
 */
export function extractStructured(
  partition: Partition,
  schema: JsonSchema,
  options: { provideCitations: boolean },
): { data: unknown; citations: Citation[] } {
  const items = partition.items;
  const context = new Set<string>();
  for (const item of items) {
    if (item.label === "title" || item.label === "section_header")
      for (const term of labelTerms(item.text)) context.add(term);
  }
  const variants = allVariants(schema);
  const vocabulary = schemaVocabulary(schema);
  // A run of words is a field's label when each of its words is in one variant of the field ("Date" for
  // `report_date`): used to tell where a label starts in run-on text.
  const known = (candidate: string[]) =>
    candidate.length > 0 && variants.some((variant) => candidate.every((term) => variant.has(term)));
  const state: Extraction = {
    scalars: [],
    objectsMade: new Set(),
    objects: 0,
    fieldNames: scalarFieldNames(schema),
    pairs: collectPairs(items, known, (term) => vocabulary.has(term)),
    used: new Set(),
    context,
    items,
    citations: [],
    usedTables: new Set(),
  };
  const root = resolveSchema(schema, schema);
  const skeleton = extractObject(schema, root, "", [], state) ?? {};
  fillAllScalars(state);
  // The root stays an object; nested objects with nothing found are null.
  for (const [key, child] of Object.entries(skeleton))
    skeleton[key] = collapseEmpty(child, state.objectsMade);
  const data = skeleton;
  const order = new Map<string, number>();
  const citations = options.provideCitations
    ? state.citations.filter((citation) => {
        const seen = order.has(citation.field);
        order.set(citation.field, 1);
        return !seen;
      })
    : [];
  return { data, citations };
}
