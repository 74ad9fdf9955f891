import type { TableItem } from "../model.ts";

/** Least and greatest of a list of any length (spreading a long list into Math.min overflows the stack). */
const minOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
const maxOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

/**
 * The offline table summary: facts read off the table's cells, nothing inferred. It states the table's shape, its
 * caption, its column headers, and for each numeric column how many values it has, their least and greatest, and
 * their sum; a row labelled as a total is reported as the total the table states, and left out of the rest.
 */

/** A column is numeric when at least this share of its non-empty body cells read as numbers (and two do). */
const NUMERIC_SHARE = 0.6;
/** Headers named in the summary at most; a wider table says how many more. */
const MAX_NAMED_COLUMNS = 20;
/** A row whose first non-empty cell says this is a total row. */
const TOTAL_LABEL = /^(grand\s+)?(sub)?totals?\b|^sum\b|^gesamt|^total\s/i;

/**
 * A cell's text as a number: `1,234.5`, `$ 1 234`, `(12)` (negative), `-3.5%`, `12 %`, `€4.2`. Null when the text is
 * not one number (a date, a range, words).
 */
export function parseNumber(text: string): number | null {
  let t = text.trim();
  if (t === "" || t.length > 40) return null;
  let negative = false;
  if (/^\(.*\)$/.test(t)) {
    negative = true;
    t = t.slice(1, -1).trim();
  }
  t = t.replace(/^[-−–]\s*/, () => {
    negative = !negative;
    return "";
  });
  t = t.replace(/^[$€£¥₹]|^(USD|EUR|GBP|CHF)\s*/i, "").trim();
  t = t.replace(/^[-−–]\s*/, () => {
    negative = !negative;
    return "";
  });
  t = t.replace(/\s*(%|[$€£¥₹]|USD|EUR|GBP|CHF)$/i, "");
  // Thousands separators: commas or thin/normal spaces between groups of three digits.
  if (/^\d{1,3}([, \u202f\u00a0]\d{3})+(\.\d+)?$/.test(t)) t = t.replace(/[, \u202f\u00a0]/g, "");
  if (!/^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const value = Number(t);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

/** The decimals a number was written with, so a sum is stated to the same precision and not as 0.30000000000000004. */
function decimalsOf(text: string): number {
  const match = /\.(\d+)/.exec(text.replace(/,/g, ""));
  return match ? Math.min(match[1].length, 6) : 0;
}

/** A number as the summary states it: with the decimals its column is written with, without float noise. */
export function formatFigure(value: number, decimals: number): string {
  const rounded = Number(value.toFixed(decimals));
  return rounded.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
    useGrouping: false,
  });
}

export interface TableGridView {
  /** Rows of cell texts, spans filled into every slot they cover. */
  rows: string[][];
  /** How many leading rows are the header. */
  headerRows: number;
  /** One label per column: the header rows' texts joined, or `column N`. */
  headers: string[];
}

/** The table as a grid of texts with its header rows told apart from its body. */
export function tableGrid(table: Pick<TableItem, "numRows" | "numCols" | "cells">): TableGridView {
  const rows = Array.from({ length: table.numRows }, () => Array<string>(table.numCols).fill(""));
  const headerFlag = Array<boolean>(table.numRows).fill(true);
  const seen = Array<boolean>(table.numRows).fill(false);
  for (const cell of table.cells) {
    const text = cell.text.replace(/\s+/g, " ").trim();
    for (let row = cell.row; row < Math.min(cell.row + cell.rowSpan, table.numRows); row++) {
      seen[row] = true;
      if (!cell.columnHeader) headerFlag[row] = false;
      for (let col = cell.col; col < Math.min(cell.col + cell.colSpan, table.numCols); col++)
        rows[row][col] = text;
    }
  }
  let headerRows = 0;
  while (headerRows < table.numRows - 1 && seen[headerRows] && headerFlag[headerRows]) headerRows++;
  // No header marked: the first row serves as one when it has no numbers and the rows below do.
  if (headerRows === 0 && table.numRows > 1) {
    const numbers = (row: string[]) => row.filter((text) => parseNumber(text) !== null).length;
    const first = rows[0];
    if (numbers(first) === 0 && first.some((t) => t !== "") && rows.slice(1).some((row) => numbers(row) > 0))
      headerRows = 1;
  }
  const headers = Array.from({ length: table.numCols }, (_, col) => {
    const parts: string[] = [];
    for (let row = 0; row < headerRows; row++) {
      const text = rows[row][col];
      if (text && parts[parts.length - 1] !== text) parts.push(text);
    }
    return parts.join(" / ") || `column ${col + 1}`;
  });
  return { rows, headerRows, headers };
}

export interface NumericColumn {
  col: number;
  header: string;
  count: number;
  min: number;
  max: number;
  sum: number;
  decimals: number;
  /** The value in this column of the row labelled as a total, when the table has one. */
  statedTotal: number | null;
  /** The column holds years (its header says so, or it leads the table with distinct whole years): not summed. */
  years: boolean;
}

const YEAR_HEADER = /\b(year|yr|fy|jahr|année|año)s?\b/i;

function looksLikeYears(col: number, header: string, numbers: readonly number[]): boolean {
  const whole = numbers.every((n) => Number.isInteger(n) && n >= 1800 && n <= 2200);
  if (!whole) return false;
  return YEAR_HEADER.test(header) || (col === 0 && new Set(numbers).size === numbers.length);
}

/** The body rows labelled as totals (`Total`, `Subtotal`, `Sum`...), by index into the grid's rows. */
function totalRows(view: TableGridView): Set<number> {
  const out = new Set<number>();
  for (let row = view.headerRows; row < view.rows.length; row++) {
    const label = view.rows[row].find((text) => text !== "" && parseNumber(text) === null);
    if (label !== undefined && TOTAL_LABEL.test(label)) out.add(row);
  }
  return out;
}

/** The numeric columns of the table's body, with their figures. */
export function numericColumns(view: TableGridView): NumericColumn[] {
  const totals = totalRows(view);
  const width = view.rows[0]?.length ?? 0;
  const out: NumericColumn[] = [];
  for (let col = 0; col < width; col++) {
    const values: { value: number; text: string }[] = [];
    let nonEmpty = 0;
    let statedTotal: number | null = null;
    for (let row = view.headerRows; row < view.rows.length; row++) {
      const text = view.rows[row][col];
      // A cell spanning several columns (a section label) is not a value of each.
      if (text === "" || (col > 0 && view.rows[row][col - 1] === text && parseNumber(text) === null))
        continue;
      const value = parseNumber(text);
      if (totals.has(row)) {
        if (value !== null) statedTotal = value;
        continue;
      }
      nonEmpty++;
      if (value !== null) values.push({ value, text });
    }
    if (values.length < 2 || values.length < nonEmpty * NUMERIC_SHARE) continue;
    const numbers = values.map((entry) => entry.value);
    out.push({
      col,
      header: view.headers[col],
      count: values.length,
      min: minOf(numbers),
      max: maxOf(numbers),
      sum: numbers.reduce((a, b) => a + b, 0),
      decimals: maxOf(values.map((entry) => decimalsOf(entry.text))),
      statedTotal,
      years: looksLikeYears(col, view.headers[col], numbers),
    });
  }
  return out;
}

function quote(text: string): string {
  const short = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return `"${short}"`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * A factual summary of a table.
 *
 * @example
 * summarizeTableOffline(table);
 * // 'Table with 4 rows and 3 columns (1 header row, 3 body rows). Columns: "Item", "Qty", "Price". Numeric columns:
 * //  "Qty": 3 values from 1 to 5, sum 9; ...'
 */
export function summarizeTableOffline(table: TableItem): string {
  const view = tableGrid(table);
  const body = table.numRows - view.headerRows;
  const sentences: string[] = [];
  let shape = `Table with ${plural(table.numRows, "row")} and ${plural(table.numCols, "column")}`;
  if (view.headerRows > 0)
    shape += ` (${plural(view.headerRows, "header row")}, ${plural(body, "body row")})`;
  sentences.push(`${shape}.`);
  if (table.caption) sentences.push(`Caption: ${quote(table.caption)}.`);
  if (view.headerRows > 0) {
    const named = view.headers.slice(0, MAX_NAMED_COLUMNS).map(quote);
    const more = view.headers.length - named.length;
    sentences.push(`Columns: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`);
  }
  const numeric = numericColumns(view);
  if (numeric.length === 0) {
    sentences.push("No numeric columns.");
  } else {
    const parts = numeric.slice(0, MAX_NAMED_COLUMNS).map((column) => {
      const f = (value: number) => formatFigure(value, column.decimals);
      if (column.years)
        return `${quote(column.header)}: ${plural(column.count, "year")} from ${f(column.min)} to ${f(column.max)}`;
      let part = `${quote(column.header)}: ${plural(column.count, "value")} from ${f(column.min)} to ${f(column.max)}, sum ${f(column.sum)}`;
      if (column.statedTotal !== null) part += `, stated total ${f(column.statedTotal)}`;
      return part;
    });
    sentences.push(`Numeric columns: ${parts.join("; ")}.`);
  }
  const firstColumn = view.rows.slice(view.headerRows).map((row) => row[0] ?? "");
  const labels = firstColumn.filter((text) => text !== "" && parseNumber(text) === null);
  if (labels.length >= 2 && !numeric.some((column) => column.col === 0)) {
    const shown = labels.slice(0, 5).map(quote).join(", ");
    sentences.push(
      `Row labels include ${shown}${labels.length > 5 ? ` and ${labels.length - 5} more` : ""}.`,
    );
  }
  return sentences.join(" ");
}

/**
 * The parts of a table continued over pages as one table: their rows one after another, a part's leading rows
 * dropped when they repeat the first part's header (as merged_tables joins them).
 */
export function joinTables(parts: readonly TableItem[]): TableItem {
  const [first] = parts;
  const firstView = tableGrid(first);
  const header = Math.max(firstView.headerRows, 1);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((text, i) => text === b[i]);
  const cells: TableItem["cells"] = [];
  let offset = 0;
  parts.forEach((part, k) => {
    const view = k === 0 ? firstView : tableGrid(part);
    let skip = 0;
    if (k > 0 && part.numCols === first.numCols && part.numRows > header) {
      const repeats = Array.from({ length: header }, (_, r) => same(view.rows[r], firstView.rows[r])).every(
        Boolean,
      );
      if (repeats) skip = header;
    }
    for (const cell of part.cells) {
      if (cell.row < skip) continue;
      cells.push({ ...cell, row: cell.row - skip + offset, columnHeader: k === 0 && cell.columnHeader });
    }
    offset += part.numRows - skip;
  });
  return {
    ...first,
    numRows: offset,
    numCols: maxOf(parts.map((part) => part.numCols)),
    cells,
    prov: parts.flatMap((part) => part.prov),
  };
}
