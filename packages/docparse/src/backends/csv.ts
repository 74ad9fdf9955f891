import type { FormatBackend } from "../backend.ts";
import {
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  ItemSink,
  type TableCell,
  type TableItem,
} from "../model.ts";
import { inputText } from "../text-decoding.ts";

/** Delimiters recognised, in the order they win a tie. */
const DELIMITERS = [",", ";", "\t", "|"] as const;

/** Lines looked at to choose the delimiter. */
const SAMPLE_LINES = 50;

/** More cells than this in one file is refused: a table that large is not read into one document. */
const MAX_CELLS = 5_000_000;

/**
 * Splits CSV text into records as RFC 4180 says: fields separated by `delimiter`, records by CRLF, LF or CR;
 * a field in double quotes may hold delimiters, line breaks and doubled quotes (`""`). A quote inside an
 * unquoted field is kept as text, as are characters after a closing quote. Stops after `maxRecords` records.
 */
export function splitRecords(
  text: string,
  delimiter: string,
  maxRecords = Number.POSITIVE_INFINITY,
): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let i = 0;
  const n = text.length;
  let fieldStart = true;
  while (i < n && records.length < maxRecords) {
    const ch = text[i];
    if (fieldStart && ch === '"') {
      // A quoted field.
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        if (close === -1) {
          field += text.slice(i);
          i = n;
          break;
        }
        field += text.slice(i, close);
        if (text[close + 1] === '"') {
          field += '"';
          i = close + 2;
        } else {
          i = close + 1;
          break;
        }
      }
      fieldStart = false;
      continue;
    }
    fieldStart = false;
    if (ch === delimiter) {
      record.push(field);
      field = "";
      fieldStart = true;
      i++;
    } else if (ch === "\n" || ch === "\r") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      fieldStart = true;
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (i >= n && (!fieldStart || field !== "" || record.length > 0)) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/**
 * The delimiter of a CSV text: of comma, semicolon, tab and pipe, the one that splits the first lines into the
 * same number (above one) of fields most consistently; a comma when none splits anything.
 */
export function detectDelimiter(text: string): string {
  let best: { delimiter: string; score: number } = { delimiter: ",", score: 0 };
  for (const delimiter of DELIMITERS) {
    const records = splitRecords(text, delimiter, SAMPLE_LINES).filter(
      (r) => !(r.length === 1 && r[0] === ""),
    );
    if (records.length === 0) continue;
    const counts = new Map<number, number>();
    for (const record of records) counts.set(record.length, (counts.get(record.length) ?? 0) + 1);
    let modeWidth = 1;
    let modeCount = 0;
    for (const [width, count] of counts) {
      if (count > modeCount || (count === modeCount && width > modeWidth)) {
        modeWidth = width;
        modeCount = count;
      }
    }
    if (modeWidth < 2) continue;
    // Consistency first (share of lines at the usual width), then the width itself.
    const score = modeCount / records.length + modeWidth / 10_000;
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

/**
 * CSV and TSV: one table. The delimiter is detected (comma, semicolon, tab or pipe; always tab for TSV),
 * quoting follows RFC 4180, the encoding is told by byte-order mark (UTF-8, UTF-16) or read as UTF-8 with a
 * Windows-1252 fallback. The first record is the header row; rows shorter than the widest are left with empty
 * cells, and empty lines are skipped.
 */
export const csvBackend: FormatBackend = {
  name: "csv",
  mimeTypes: ["text/csv", "application/csv", "text/tab-separated-values"],
  countPages: () => 1,
  load(input): DocumentModel {
    const { text, warnings } = inputText(input, "CSV");
    const delimiter = input.mimeType.toLowerCase().startsWith("text/tab-separated-values")
      ? "\t"
      : detectDelimiter(text);
    const records = splitRecords(text, delimiter).filter((r) => !(r.length === 1 && r[0].trim() === ""));
    const sink = new ItemSink();
    if (records.length > 0) {
      let numCols = 0;
      for (const record of records) numCols = Math.max(numCols, record.length);
      if (numCols * records.length > MAX_CELLS) {
        throw new DocumentLoadError(
          `The CSV table has ${records.length} rows of up to ${numCols} columns, more than ${MAX_CELLS} cells`,
        );
      }
      const cells: TableCell[] = [];
      records.forEach((record, row) => {
        record.forEach((value, col) => {
          if (value === "") return;
          cells.push({
            row,
            col,
            rowSpan: 1,
            colSpan: 1,
            text: value.trim(),
            columnHeader: row === 0,
            rowHeader: false,
            bbox: null,
          });
        });
      });
      sink.add<TableItem>({
        label: "table",
        numRows: records.length,
        numCols,
        cells,
        caption: null,
        furniture: false,
        prov: [{ page: 1, bbox: null, charSpan: [0, text.length] }],
      });
    }
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "text/csv",
      backend: "csv",
      pages: [{ pageNumber: 1, size: null }],
      items: sink.items,
      warnings,
    };
  },
};
