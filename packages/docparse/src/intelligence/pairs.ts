/**
 * The label/value pairs a partition states, the raw material of offline extraction: `Label: value` text (several
 * on one line too), a label line followed by its value line, checkbox lines, key-value tables (label cells beside
 * value cells), one-row tables (header above value), and a heading with the prose under it. Each pair keeps where
 * it was read (page, box, source text) and the heading it sits under.
 */
import type { Box, DocItem, TableCell, TableItem, TextLine } from "../model.ts";
import { box } from "../paginated/geometry.ts";
import { labelTerms, terms } from "./terms.ts";

export type PairKind = "colon" | "table" | "checkbox" | "section" | "title";

export interface Pair {
  label: string;
  /** labelTerms(label). */
  labelTerms: string[];
  value: string;
  kind: PairKind;
  page: number;
  bbox: Box | null;
  /** The text the value was read from, as cited. */
  source: string;
  /** Document order, for ties. */
  order: number;
  /** Terms of the heading (or label-only line, or table caption) the pair sits under. */
  scope: Set<string>;
}

/** The terms of a label outside parentheses ("Annual income (USD)" → annual, income), or all when that is none. */
export function mainLabelTerms(label: string): string[] {
  const main = labelTerms(label.replace(/\([^)]*\)/g, " ").replace(/[%?]/g, " "));
  return main.length > 0 ? main : labelTerms(label);
}

/** A table as rows of cells (a spanning cell at its first row and column only). */
export function tableGrid(table: TableItem): (TableCell | null)[][] {
  const grid: (TableCell | null)[][] = Array.from({ length: table.numRows }, () =>
    Array.from({ length: table.numCols }, () => null),
  );
  for (const cell of table.cells) {
    if (cell.row < table.numRows && cell.col < table.numCols) grid[cell.row][cell.col] = cell;
  }
  return grid;
}

const NUMERIC = /^[\s$€£¥(+-]*\d[\d\s,.%)]*$/;

/** Rows at the top of a table that are headers: flagged, or a first row of text over rows holding numbers. */
export function headerRows(table: TableItem, grid: (TableCell | null)[][]): number {
  let flagged = 0;
  while (flagged < grid.length && grid[flagged].some((cell) => cell?.columnHeader)) flagged++;
  if (flagged > 0) return flagged;
  if (grid.length < 2) return 0;
  const first = grid[0].filter((cell) => cell !== null && cell.text.trim() !== "");
  const firstAllText =
    first.length === table.numCols && first.every((cell) => !NUMERIC.test(cell?.text ?? ""));
  const laterNumbers = grid
    .slice(1)
    .some((row) => row.some((cell) => cell !== null && NUMERIC.test(cell.text)));
  return firstAllText && (laterNumbers || table.numCols > 2) ? 1 : 0;
}

/** A label: a short run of words that starts with a letter and is not itself a sentence. */
function isLabel(text: string): boolean {
  const t = text.trim();
  const wordCount = t.split(/\s+/).length;
  // "Tel." and "Dependents?" are labels; a longer run ending in a full stop is a sentence.
  return (
    t.length > 0 &&
    t.length <= 60 &&
    /^[\p{L}#(]/u.test(t) &&
    wordCount <= 8 &&
    !(wordCount > 4 && /[.!]$/.test(t))
  );
}

const CHECK_MARK = /^(?:[☐☑☒]|\[\s?[xX✓✔]?\s?\])\s*/u;

/** Whether some field answers to these label terms (used to find where a label starts in run-on text). */
export type KnownLabel = (terms: string[]) => boolean;

/**
 * The label at the end of a first segment that is not itself a label: a sentence followed by a known label, as
 * where the layout ran a form's last line into the paragraph before it ("... true and complete. Signature Date").
 */
function sentenceTailLabel(first: string, known: KnownLabel): string {
  if (isLabel(first)) return first;
  const tokens = first.split(/\s+/);
  for (let k = Math.min(5, tokens.length - 1); k >= 1; k--) {
    const tail = tokens.slice(tokens.length - k);
    if (!/[.!?;]$/.test(tokens[tokens.length - k - 1])) continue;
    if (/^[\p{L}#(]/u.test(tail[0]) && known(mainLabelTerms(tail.join(" ")))) return tail.join(" ");
  }
  return first;
}

/**
 * Splits a line with one or more colons into label/value pairs. The text between two colons holds the value of
 * the first and the label of the second: split at a run of two or more spaces, a tab or `|` when there is one;
 * else at the longest trailing run of words (at most five) that a field answers to; else the label is the trailing
 * run of capitalised words (at most five, joined by small words like "of").
 */
export function colonPairs(
  line: string,
  known: KnownLabel = () => false,
  vocabulary: (term: string) => boolean = () => false,
): { label: string; value: string }[] {
  const parts = line.split(/:(?=\s|$)/u);
  if (parts.length < 2) return [];
  const pairs: { label: string; value: string }[] = [];
  let label = sentenceTailLabel(parts[0].trim(), known);
  for (let index = 1; index < parts.length; index++) {
    const segment = parts[index];
    let value = segment;
    let nextLabel = "";
    if (index < parts.length - 1) {
      // Bounded: the pattern backtracks over long run-on segments, which split by words below instead.
      const split = segment.length <= 300 ? /^(.*\S)(?:\s{2,}|\t|\s*\|\s*)(.+)$/su.exec(segment) : null;
      if (split) {
        value = split[1];
        nextLabel = split[2];
      } else {
        const tokens = segment.trim().split(/\s+/);
        let take = 0;
        // A segment that is all label, as where lines were run together ("Totals: Subtotal: £45.00"): the label
        // before it has no value.
        if (tokens.length <= 5 && /^[\p{L}#(]/u.test(tokens[0]) && known(mainLabelTerms(tokens.join(" ")))) {
          take = tokens.length;
        }
        for (let k = Math.min(5, tokens.length - 1); take === 0 && k >= 1; k--) {
          const start = tokens[tokens.length - k];
          if (/^[\p{L}#(]/u.test(start) && known(mainLabelTerms(tokens.slice(tokens.length - k).join(" ")))) {
            take = k;
            break;
          }
        }
        // A capitalised word just before the known part joins the label when the schema uses the word
        // ("Issue Date" where `invoice_date` is described as the date the invoice was issued).
        while (take > 0 && take < Math.min(5, tokens.length - 1)) {
          const before = tokens[tokens.length - take - 1];
          const beforeTerms = mainLabelTerms(before);
          if (!/^\p{Lu}/u.test(before) || beforeTerms.length === 0 || !beforeTerms.every(vocabulary)) break;
          take++;
        }
        if (take === 0) {
          // Capitalised words, with the small words labels join them by ("Date of Issue").
          for (let k = tokens.length - 1; k >= 1 && tokens.length - k <= 5; k--) {
            if (/^(?:[\p{Lu}#][\p{L}.#()'/&-]*|\([^)]*\))$/u.test(tokens[k])) take = tokens.length - k;
            else if (!/^(?:of|to|by|for|the|and|on|in|per|&)$/.test(tokens[k])) break;
          }
        }
        value = tokens.slice(0, tokens.length - take).join(" ");
        nextLabel = tokens.slice(tokens.length - take).join(" ");
      }
    }
    if (isLabel(label)) pairs.push({ label: label.trim(), value: value.trim() });
    label = nextLabel;
  }
  return pairs;
}

function textOf(item: DocItem): string | null {
  switch (item.label) {
    case "table":
    case "figure":
    case "code":
      return null;
    default:
      return item.text;
  }
}

/** Every pair of a partition's items, in document order. */
export function collectPairs(
  items: readonly DocItem[],
  known: KnownLabel = () => false,
  vocabulary: (term: string) => boolean = () => false,
): Pair[] {
  const pairs: Pair[] = [];
  let scope = new Set<string>();
  let pendingLabel: { label: string; item: DocItem } | null = null;
  const add = (pair: Omit<Pair, "order" | "labelTerms" | "scope">) => {
    pairs.push({ ...pair, labelTerms: mainLabelTerms(pair.label), order: pairs.length, scope });
  };
  const where = (item: DocItem) => ({ page: item.prov[0]?.page ?? 1, bbox: item.prov[0]?.bbox ?? null });
  const firstContent = items.find((other) => !other.furniture);
  const hasTitle = items.some((other) => other.label === "title");

  const columns = columnPairs(items, known);
  items.forEach((item, index) => {
    const rows = columns.get(item);
    if (rows) {
      // A column of labels read with the column of values beside it: one pair per row; the value column's own
      // text is not read again.
      for (const row of rows) add({ ...row, kind: "table", page: where(item).page });
      pendingLabel = null;
      return;
    }
    if (columns.has(item)) return;
    if (item.label === "section_header" || item.label === "title") {
      scope = new Set(terms(item.text));
      // The document's title answers a `title` field: a title item, else a first item that is a top heading
      // and not itself a field's label.
      const topHeading =
        item.label === "section_header" &&
        item.level === 1 &&
        firstContent === item &&
        !known(mainLabelTerms(item.text));
      if (item.label === "title" || (topHeading && !hasTitle)) {
        add({ label: "Title", value: item.text, kind: "title", ...where(item), source: item.text });
      }
      // A heading that states a pair, as a bold, larger "Total Due: $1,440.00" line set apart from the rest.
      for (const pair of headingPairs(item.text, known, vocabulary)) {
        add({ label: pair.label, value: pair.value, kind: "colon", ...where(item), source: item.text });
      }
      // A heading with the prose under it: a candidate for long text fields (summary, notes...).
      const body: DocItem[] = [];
      for (let at = index + 1; at < items.length; at++) {
        const next = items[at];
        if (next.label === "section_header" || next.label === "title") break;
        if (next.label === "text" || next.label === "list_item") body.push(next);
      }
      if (body.length > 0) {
        const value = body.map((next) => (next as { text: string }).text).join(" ");
        add({ label: item.text, value, kind: "section", ...where(body[0]), source: value });
      }
      pendingLabel = null;
      return;
    }
    if (item.label === "table") {
      addTablePairs(item, add, where(item).page, known);
      pendingLabel = null;
      return;
    }
    const text = textOf(item);
    if (text === null) return;
    for (const rawLine of text.split(/\n/)) {
      const line = rawLine.trim();
      if (line === "") continue;
      if (pendingLabel && colonPairs(line, known, vocabulary).length === 0) {
        add({ label: pendingLabel.label, value: line, kind: "colon", ...where(item), source: line });
        pendingLabel = null;
        continue;
      }
      pendingLabel = null;
      const check = CHECK_MARK.exec(line);
      if (check && !line.includes(":")) {
        // "☑ I agree": the mark is the value of the text after it.
        add({
          label: line.slice(check[0].length),
          value: check[0].trim(),
          kind: "checkbox",
          ...where(item),
          source: line,
        });
        continue;
      }
      const found = colonPairs(line, known, vocabulary);
      for (const pair of found) {
        add({ label: pair.label, value: pair.value, kind: "colon", ...where(item), source: line });
      }
      const last = found[found.length - 1];
      if (last && last.value === "") {
        // "Bill To:" on its own line: the lines after it are its value, and it scopes what follows.
        pendingLabel = { label: last.label, item };
        scope = new Set(terms(last.label));
      }
    }
  });
  return pairs;
}

/** Amounts, counts and percentages: what a label in a heading may be followed by without a colon. */
const HEADING_VALUE = /^(.*\p{L}.*?)\s+((?:[A-Z]{3}\s?)?[-(]?[$€£¥]?\s?\d[\d,.\s]*%?\)?(?:\s?[A-Z]{3})?)$/u;

/**
 * The pairs a heading states: `Label: value` (colonPairs), or a label some field answers to followed by an
 * amount or a number ("TOTAL DUE $1,440.00"). None for an ordinary heading.
 */
function headingPairs(
  text: string,
  known: KnownLabel,
  vocabulary: (term: string) => boolean,
): { label: string; value: string }[] {
  const found = colonPairs(text, known, vocabulary).filter((pair) => pair.value !== "");
  if (found.length > 0) return found;
  const split = HEADING_VALUE.exec(text.trim());
  if (!split || !isLabel(split[1]) || !known(mainLabelTerms(split[1]))) return [];
  return [{ label: split[1].trim(), value: split[2].trim() }];
}

/** A row read across a label column and a value column. */
type ColumnRow = Omit<Pair, "order" | "labelTerms" | "scope" | "kind" | "page">;

/** The lines of an item laid out on a page: a text block's lines, or a one-line heading. */
function linesOf(item: DocItem): TextLine[] | null {
  if (item.furniture) return null;
  if (item.label === "text" || item.label === "key_value_region") return item.lines ?? null;
  const bbox = item.prov[0]?.bbox;
  if (item.label === "section_header" && bbox && !item.text.includes("\n"))
    return [{ text: item.text, bbox }];
  return null;
}

/**
 * Label columns with their value columns: a block of text lines on a page and, to its left, the blocks of short
 * label lines beside it (a label column the layout cut in two at a gap included), every label line with a value
 * line on its baseline (a value wrapped over more lines continues the row above it). Two rows or more, or one
 * whose label a field answers to (a bold "TOTAL DUE" with its amount at the right margin). Keyed by the first of
 * the blocks in reading order (its rows); the others map to no rows (read through it).
 */
function columnPairs(items: readonly DocItem[], known: KnownLabel): Map<DocItem, ColumnRow[]> {
  const found = new Map<DocItem, ColumnRow[]>();
  const laid = items.flatMap((item) => {
    const lines = linesOf(item);
    const bbox = item.prov[0]?.bbox;
    return lines && lines.length > 0 && bbox ? [{ item, lines, bbox, page: item.prov[0].page }] : [];
  });
  const labelLike = laid.filter(({ lines }) => lines.every((line) => isLabel(line.text.replace(/:$/, ""))));
  for (const values of laid) {
    if (values.item.label === "section_header" || found.has(values.item)) continue;
    const right = values.bbox;
    const columns = labelLike.filter(
      ({ item, bbox, page }) =>
        item !== values.item &&
        !found.has(item) &&
        page === values.page &&
        bbox.x2 < right.x1 &&
        right.x1 - bbox.x2 <= 4 * (bbox.x2 - bbox.x1) + 72 &&
        bbox.y1 < right.y2 &&
        bbox.y2 > right.y1,
    );
    if (columns.length === 0) continue;
    const labels = columns.flatMap(({ lines }) => lines).sort((a, b) => a.bbox.y1 - b.bbox.y1);
    const rows = alignedRows(labels, values.lines);
    if (!rows) continue;
    if (rows.length < 2 && !known(mainLabelTerms(rows[0].label.text.replace(/:$/, "")))) continue;
    const involved = [...columns.map(({ item }) => item), values.item].sort(
      (a, b) => items.indexOf(a) - items.indexOf(b),
    );
    for (const item of involved) found.set(item, []);
    found.set(
      involved[0],
      rows.map(({ label, value }) => ({
        label: label.text.trim().replace(/:$/, ""),
        value: value.map((line) => line.text.trim()).join(" "),
        bbox: box.union(value.map((line) => line.bbox)),
        source: value.map((line) => line.text.trim()).join(" "),
      })),
    );
  }
  return found;
}

/**
 * The value lines of each label line, or null when the two columns do not line up: every label line needs a
 * value line on its baseline (centres within half a line), and a value line between two label lines belongs to
 * the one above it; value lines above the first label line mean another layout.
 */
function alignedRows(
  labels: readonly TextLine[],
  values: readonly TextLine[],
): { label: TextLine; value: TextLine[] }[] | null {
  const rows = labels.map((label) => ({ label, value: [] as TextLine[] }));
  const middle = (line: TextLine) => (line.bbox.y1 + line.bbox.y2) / 2;
  for (const value of values) {
    let row = -1;
    for (let k = 0; k < labels.length; k++) if (labels[k].bbox.y1 <= middle(value) + 1) row = k;
    if (row < 0) return null;
    rows[row].value.push(value);
  }
  for (const { label, value } of rows) {
    const tall = Math.max(1, label.bbox.y2 - label.bbox.y1);
    if (value.length === 0 || Math.abs(middle(value[0]) - middle(label)) > tall / 2) return null;
  }
  return rows;
}

function addTablePairs(
  table: TableItem,
  add: (pair: Omit<Pair, "order" | "labelTerms" | "scope">) => void,
  page: number,
  known: KnownLabel,
) {
  const grid = tableGrid(table);
  const headers = headerRows(table, grid);
  const cellPair = (labelCell: TableCell | null, valueCell: TableCell | null) => {
    if (!labelCell || !valueCell || !isLabel(labelCell.text) || valueCell.text.trim() === "") return;
    add({
      label: labelCell.text.trim().replace(/:$/, ""),
      value: valueCell.text.trim(),
      kind: "table",
      page,
      bbox: valueCell.bbox ?? table.prov[0]?.bbox ?? null,
      source: valueCell.text.trim(),
    });
  };
  // A two-row table is either a header row over a row of values or a key-value table: a first row holding
  // digits or an @ is values; otherwise the reading with more labels some field answers to wins (the header
  // reading on a tie when the first row is flagged as a header).
  const knownCount = (cells: (TableCell | null)[]) =>
    cells.filter((cell) => cell !== null && known(mainLabelTerms(cell.text))).length;
  const labelColumns = table.numCols === 2 ? [0] : table.numCols === 4 ? [0, 2] : [];
  const keyValue =
    labelColumns.length > 0 &&
    labelColumns.every((col) =>
      grid.every((row) => !row[col] || row[col]?.text.trim() === "" || isLabel(row[col]?.text ?? "")),
    );
  if (grid.length === 2) {
    const valueLike = grid[0].some((cell) => cell !== null && /[\d@]/.test(cell.text));
    const flagged = grid[0].some((cell) => cell?.columnHeader);
    // A one-column table is a header over its value when its header is flagged or a field's label.
    const single = table.numCols === 1 && (flagged || known(mainLabelTerms(grid[0][0]?.text ?? "")));
    const headerReading = !valueLike && (table.numCols > 1 || single);
    const kvKnown = keyValue ? knownCount(grid.flatMap((row) => labelColumns.map((col) => row[col]))) : -1;
    const headerKnown = headerReading ? knownCount(grid[0]) : -1;
    if (headerReading && (headerKnown > kvKnown || (headerKnown === kvKnown && flagged) || !keyValue)) {
      for (let col = 0; col < table.numCols; col++) cellPair(grid[0][col], grid[1][col]);
      return;
    }
  }
  // Key-value tables: label cells in even columns, values to their right (2 or 4 columns). A header row
  // ("Field | Value") gives a pair too, harmless since no field is named like that.
  if (keyValue) {
    for (const row of grid) for (const col of labelColumns) cellPair(row[col], row[col + 1]);
    return;
  }
  // Otherwise a row whose header cell (or whose only two filled cells) are a label and a value: row headers,
  // label rows of a key-value table read joined to another table, a totals row under line items.
  grid.forEach((row, index) => {
    const filled = row.filter((cell): cell is TableCell => cell !== null && cell.text.trim() !== "");
    if (index >= headers && row[0]?.rowHeader) cellPair(row[0], row[1] ?? null);
    else if (filled.length === 2) cellPair(filled[0], filled[1]);
  });
}
