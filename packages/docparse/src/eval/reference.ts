import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { DOCLING_DATA } from "../test-corpus.ts";
import type { ReadingBlock } from "./reading-order.ts";

/**
 * The evaluation corpus: Docling's test data (`docling/tests/data` of the shared corpus, found as
 * `../test-corpus.ts` says) with its reference outputs, and how to read those references.
 */

/** The corpus used when none is given: Docling's test data in the shared corpus. Throws when it is absent. */
export function defaultCorpus(): string {
  if (DOCLING_DATA === null) {
    throw new Error(
      "the evaluation corpus is absent: set SVC_CORPUS_DIR to the shared corpus directory, " +
        "or put the corpus at ../shared/corpus beside the repository",
    );
  }
  return DOCLING_DATA;
}

/** The formats evaluated, each with the folders (relative to the corpus) whose files are its sources. */
export const FORMAT_SOURCES: Readonly<Record<string, readonly string[]>> = {
  pdf: ["pdf/sources", "pdf"],
  ocr: ["ocr/sources"],
  tiff: ["tiff/sources"],
  webp: ["webp/sources"],
  docx: ["docx/sources"],
  pptx: ["pptx/sources"],
  xlsx: ["xlsx/sources"],
};

/** Formats whose references are `<format>/groundtruth/<file name with extension>.{md,json}`. */
const DECLARATIVE_FORMATS = new Set(["docx", "pptx", "xlsx"]);

/** OCR references by engine, the first one present is used. */
const OCR_REFERENCE_ENGINES = ["tesseract", "easyocr"] as const;

const MIME_TYPES: Record<string, string> = {
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".webp": "image/webp",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".xlsm": "application/vnd.ms-excel.sheet.macroenabled.12",
};

export interface SourceFile {
  format: string;
  /** File name, e.g. `multi_page.pdf`. */
  name: string;
  path: string;
  mimeType: string;
}

/** A reference table: its page (when known) and its HTML (cells with spans, header cells as `th`). */
export interface ReferenceTable {
  page: number | null;
  html: string;
}

export interface Reference {
  /** Which reference this is, e.g. `groundtruth` or `tesseract/full_page`. */
  origin: string;
  markdown: string;
  tables: ReferenceTable[];
  /** Body text blocks in reading order (headers, footers and other furniture left out). */
  blocks: ReadingBlock[];
  pages: number;
}

/** The media type of a file by its extension, or null for a file that is not a document. */
export function mimeTypeOf(fileName: string): string | null {
  return MIME_TYPES[path.extname(fileName).toLowerCase()] ?? null;
}

/** The source files of the given formats (all when none is given), by format then name. */
export function sourceFiles(corpus: string = defaultCorpus(), formats?: readonly string[]): SourceFile[] {
  const files: SourceFile[] = [];
  for (const [format, folders] of Object.entries(FORMAT_SOURCES)) {
    if (formats && !formats.includes(format)) continue;
    const found: SourceFile[] = [];
    for (const folder of folders) {
      const dir = path.join(corpus, folder);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        const mimeType = mimeTypeOf(name);
        if (mimeType && statSync(file).isFile()) found.push({ format, name, path: file, mimeType });
      }
    }
    files.push(...found.sort((a, b) => a.name.localeCompare(b.name)));
  }
  return files;
}

function readIfExists(file: string): string | null {
  return existsSync(file) ? readFileSync(file, "utf8") : null;
}

/**
 * The reference of a source file, or null when the corpus has none: for PDFs `pdf/groundtruth/<stem>.{md,json}`,
 * for OCR'd sources the full-page OCR reference of the first engine in OCR_REFERENCE_ENGINES that has one.
 */
export function loadReference(source: SourceFile, corpus: string = defaultCorpus()): Reference | null {
  const stem = path.basename(source.name, path.extname(source.name));
  const candidates: { origin: string; base: string }[] =
    source.format === "pdf"
      ? [{ origin: "groundtruth", base: path.join(corpus, "pdf/groundtruth", stem) }]
      : DECLARATIVE_FORMATS.has(source.format)
        ? [{ origin: "groundtruth", base: path.join(corpus, source.format, "groundtruth", source.name) }]
        : OCR_REFERENCE_ENGINES.map((engine) => ({
            origin: `${engine}/full_page`,
            base: path.join(
              corpus,
              source.format,
              "groundtruth",
              engine,
              "full_page",
              `${stem}.${engine}.full_page`,
            ),
          }));
  for (const { origin, base } of candidates) {
    const markdown = readIfExists(`${base}.md`);
    if (markdown === null) continue;
    const json = readIfExists(`${base}.json`);
    const doc = json === null ? null : (JSON.parse(json) as DoclingDocument);
    return {
      origin,
      markdown,
      tables: doc ? doclingTables(doc) : [],
      blocks: doc ? doclingBlocks(doc) : [],
      pages: doc ? Object.keys(doc.pages ?? {}).length : 0,
    };
  }
  return null;
}

/** The parts of a DoclingDocument (JSON) the evaluation reads. */
export interface DoclingDocument {
  body: DoclingNode;
  texts: (DoclingNode & { text: string; label: string })[];
  groups: DoclingNode[];
  tables: (DoclingNode & { data: { num_rows: number; table_cells: DoclingCell[] } })[];
  pictures: DoclingNode[];
  pages?: Record<string, unknown>;
}

interface DoclingRef {
  $ref: string;
}

interface DoclingNode {
  children?: DoclingRef[];
  captions?: DoclingRef[];
  content_layer?: string;
  prov?: { page_no: number }[];
}

export interface DoclingCell {
  text: string;
  start_row_offset_idx: number;
  end_row_offset_idx: number;
  start_col_offset_idx: number;
  end_col_offset_idx: number;
  column_header?: boolean;
  row_header?: boolean;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * A Docling table as HTML, written the way the engine's own tables are (no `tbody`, header cells as `th`, spans
 * only when above 1), so that TEDS compares content rather than spelling. A cell covering several grid slots
 * is listed once.
 */
export function doclingTableHtml(cells: readonly DoclingCell[], numRows: number): string {
  const seen = new Set<string>();
  const rows: DoclingCell[][] = Array.from({ length: numRows }, () => []);
  for (const cell of cells) {
    const key = `${cell.start_row_offset_idx}:${cell.start_col_offset_idx}`;
    if (seen.has(key) || !rows[cell.start_row_offset_idx]) continue;
    seen.add(key);
    rows[cell.start_row_offset_idx].push(cell);
  }
  let html = "<table>";
  for (const row of rows) {
    html += "<tr>";
    for (const cell of row.sort((a, b) => a.start_col_offset_idx - b.start_col_offset_idx)) {
      const tag = cell.column_header || cell.row_header ? "th" : "td";
      const rowspan = cell.end_row_offset_idx - cell.start_row_offset_idx;
      const colspan = cell.end_col_offset_idx - cell.start_col_offset_idx;
      const spans =
        (rowspan > 1 ? ` rowspan="${rowspan}"` : "") + (colspan > 1 ? ` colspan="${colspan}"` : "");
      html += `<${tag}${spans}>${escapeHtml(cell.text)}</${tag}>`;
    }
    html += "</tr>";
  }
  return `${html}</table>`;
}

function doclingTables(doc: DoclingDocument): ReferenceTable[] {
  return (doc.tables ?? []).map((table) => ({
    page: table.prov?.[0]?.page_no ?? null,
    html: doclingTableHtml(table.data.table_cells, table.data.num_rows),
  }));
}

/**
 * The body's text blocks in reading order: the items under `body`, depth first, leaving out furniture. Tables
 * and pictures contribute their captions only (the text Docling finds inside a figure is not part of its
 * markdown either); groups (lists...) contribute their members.
 */
export function doclingBlocks(doc: DoclingDocument): ReadingBlock[] {
  const blocks: ReadingBlock[] = [];
  const collections: Record<string, DoclingNode[]> = {
    texts: doc.texts ?? [],
    groups: doc.groups ?? [],
    tables: doc.tables ?? [],
    pictures: doc.pictures ?? [],
  };
  const visit = (ref: DoclingRef) => {
    const [, kind, index] = ref.$ref.split("/");
    const node = collections[kind]?.[Number(index)];
    if (!node || node.content_layer === "furniture") return;
    if (kind === "texts") {
      const text = (node as DoclingDocument["texts"][number]).text;
      if (text.trim()) blocks.push({ text, page: node.prov?.[0]?.page_no });
    }
    const next = kind === "tables" || kind === "pictures" ? node.captions : node.children;
    for (const child of next ?? []) visit(child);
  };
  for (const child of doc.body.children ?? []) visit(child);
  return blocks;
}
