/**
 * Offline structured extraction: schema-guided key-value extraction over a partition's items, deterministic and
 * without a model. Precision over recall: a field whose label is not found, or whose value does not read as the
 * field's type, is null; nothing is invented.
 *
 * - Scalar fields: the document's label/value pairs (pairs.ts) are scored against each field's label variants
 *   (label-match.ts: its name split from snake_case/camelCase, the objects it sits in, aliases its description
 *   quotes, abbreviations). A match is kept when its score is at least LABEL_MATCH_THRESHOLD and the value reads
 *   as the field's type and suits its name (typed-value.ts: numbers with currency and thousands separators, dates
 *   to ISO 8601, booleans and checkbox marks, enums by nearest option). All scalar fields of the schema, nested
 *   ones included, are filled together, best scores first: each field takes at most one pair and each pair serves
 *   at most one field.
 * - Arrays of objects: the rows of tables whose column headers match at least two of the item's properties (or its
 *   only one); totals rows are left out.
 * - Arrays of scalars: the list under a heading naming the field, or a comma- or semicolon-separated value.
 * - Nested objects: walked recursively (bounded); an object with nothing found is null.
 */
import type { Box, DocItem, ListItem, TableCell, TableItem } from "../model.ts";
import {
  type FieldSpec,
  fieldSpec,
  headerScore,
  headNamed,
  LABEL_MATCH_THRESHOLD,
  labelScore,
  PARTIAL_NAME_SCORE,
  schemaLabelTerms,
} from "./label-match.ts";
import { collectPairs, headerRows, type Pair, tableGrid } from "./pairs.ts";
import type { Partition } from "./partition.ts";
import { escapePointer, type JsonSchema, resolveSchema, schemaProperties, schemaType } from "./schema.ts";
import { labelTerms, terms } from "./terms.ts";
import { typedPrefix, typedValue } from "./typed-value.ts";

/** Where an extracted value was read. `field` is a JSON pointer into the data. */
export interface Citation {
  field: string;
  page_number: number;
  bbox: Box | null;
  text: string;
}

interface Found {
  value: unknown;
  citation: Omit<Citation, "field">;
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

/** Fills scalar fields: best label scores first, one pair per field and one field per pair. */
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
    const product = productColumns(grid.slice(bodyStart), item.numCols, scalar);
    for (const [name, col] of product) {
      for (const [other, taken] of columns) if (taken === col && other !== name) columns.delete(other);
      columns.set(name, col);
    }
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

const NUMBER_SCHEMA: JsonSchema = { type: "number" };
const isNumeric = (schema: JsonSchema) => ["number", "integer"].includes(schemaType(schema) ?? "");

/**
 * Line-item columns by their arithmetic: where one numeric column is the product of two others on the rows
 * (quantity × unit price = amount), those are the quantity, price and amount properties whatever the headers say
 * ("Unit Amount", "Amount Ordered"). The quantity is the column of whole numbers. Empty when the item has no such
 * three properties or no three columns agree on at least two rows and four in five of those that have numbers.
 */
function productColumns(
  body: (TableCell | null)[][],
  numCols: number,
  scalar: { name: string; schema: JsonSchema }[],
): Map<string, number> {
  const found = new Map<string, number>();
  const numeric = scalar.filter((property) => isNumeric(property.schema));
  const quantity = numeric.find((p) => /quantit|qty|units?$|count|hours/i.test(p.name));
  const price = numeric.find((p) => p !== quantity && /price|rate|cost/i.test(p.name));
  const amount = numeric.find(
    (p) => p !== quantity && p !== price && /amount|total|value|extended|sum/i.test(p.name),
  );
  if (!quantity || !price || !amount) return found;
  const rows = body.filter((row) => {
    const first = row.find((cell) => cell !== null && cell.text.trim() !== "");
    return first != null && !TOTALS_CELL.test(first.text.trim());
  });
  const values = Array.from({ length: numCols }, (_, col) =>
    rows.map((row) => {
      const value = row[col] ? typedValue(row[col].text, NUMBER_SCHEMA, "amount") : undefined;
      return typeof value === "number" ? value : null;
    }),
  );
  for (let i = 0; i < numCols; i++) {
    for (let j = i + 1; j < numCols; j++) {
      for (let k = 0; k < numCols; k++) {
        if (k === i || k === j) continue;
        let agree = 0;
        let counted = 0;
        rows.forEach((_, r) => {
          const [a, b, c] = [values[i][r], values[j][r], values[k][r]];
          if (a === null || b === null || c === null) return;
          counted++;
          if (Math.abs(a * b - c) <= Math.max(Math.abs(c) * 0.005, 0.011)) agree++;
        });
        if (agree < 2 || agree < counted * 0.8) continue;
        const whole = (col: number) => values[col].every((v) => v === null || Number.isInteger(v));
        // Both whole: the quantity is the column of smaller numbers.
        const sum = (col: number) => values[col].reduce<number>((total, v) => total + Math.abs(v ?? 0), 0);
        const iIsQuantity = whole(i) !== whole(j) ? whole(i) : sum(i) <= sum(j);
        found.set(quantity.name, iIsQuantity ? i : j);
        found.set(price.name, iIsQuantity ? j : i);
        found.set(amount.name, k);
        return found;
      }
    }
  }
  return found;
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
  const known = new Set(
    scalar.flatMap((property) => property.spec.variants.flatMap((variant) => [...variant])),
  );
  for (const property of scalar) {
    for (let col = 0; col < numCols; col++) {
      const score = headerScore(headerText(col), property.spec, known);
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
    for (let at = index + 1; at < state.items.length; at++) {
      const next = state.items[at];
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
  // Labels read against the schema's words: "Sub Total" is `subtotal`, "Dept." `department`.
  const knownTerms = new Set(variants.flatMap((variant) => [...variant]));
  const pairs = collectPairs(items, known, (term) => vocabulary.has(term));
  for (const pair of pairs) {
    pair.labelTerms = schemaLabelTerms(pair.label, pair.labelTerms, knownTerms);
    // A parenthesis of schema words qualifies a label that is no field's label without it ("Name (first)",
    // "Salary (annual)", but not "Subtotal (excl. tax)"); other ones are units or formats ("(USD)") and stay out.
    const inner = [...pair.label.matchAll(/\(([^)]*)\)/g)].flatMap((match) => labelTerms(match[1]));
    const whole = (candidate: Set<string>) =>
      candidate.size === new Set(pair.labelTerms).size &&
      pair.labelTerms.every((term) => candidate.has(term));
    if (inner.length > 0 && inner.every((term) => knownTerms.has(term)) && !variants.some(whole)) {
      pair.labelTerms = [...new Set([...pair.labelTerms, ...inner])];
    }
  }
  const state: Extraction = {
    scalars: [],
    objectsMade: new Set(),
    objects: 0,
    fieldNames: scalarFieldNames(schema),
    pairs,
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
