import type { FormatBackend } from "../backend.ts";
import {
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  type FigureItem,
  type HeadingItem,
  ItemSink,
  type ModelPage,
  type TableCell,
  type TableItem,
  type TextItem,
} from "../model.ts";
import { addComment } from "../ooxml/comments.ts";
import { addChart } from "../ooxml/drawing.ts";
import { builtInFormat, formatNumber, formatText } from "../ooxml/number-format.ts";
import { OoxmlPackage } from "../ooxml/package.ts";
import { child, childrenNamed, descendants, elements, textOf, type XmlElement } from "../ooxml/xml.ts";

/**
 * XLSX and XLSM: one page per sheet (chart sheets included), the sheet's name as a level-2 heading (the
 * workbook is the level-1 document), its used cells as tables: each group of non-empty cells connected through
 * neighbours (merged areas count as filled) is one table, so blocks separated by fully empty rows or columns
 * come out apart. Values are shown as the spreadsheet shows them: cached formula results, shared and inline
 * strings, number formats (built-in and custom: dates, percentages, separators, decimals, currency), booleans
 * and errors. Hidden sheets are kept and named in the warnings. Charts become a figure and a data table.
 */
export const XLSX_MIME_TYPES = [
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.ms-excel.sheet.macroenabled.12",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.template",
  "application/vnd.ms-excel.template.macroenabled.12",
] as const;

/** A sheet larger than this many filled cells is read up to it, with a warning. */
const MAX_CELLS = 2_000_000;

interface Workbook {
  sharedStrings: string[];
  /** Format code by cell style index (`s`). */
  formats: string[];
  date1904: boolean;
}

function readSharedStrings(pkg: OoxmlPackage, part: string | undefined): string[] {
  const root = part ? pkg.xml(part) : undefined;
  return childrenNamed(root, "si").map(richText);
}

/** The text of a rich-text string (`si`, `is`): its runs, phonetic guides left out. */
function richText(node: XmlElement): string {
  let out = "";
  for (const item of elements(node)) {
    if (item.name === "t") out += textOf(item);
    else if (item.name === "r") out += textOf(child(item, "t") ?? item);
  }
  return out;
}

function readFormats(pkg: OoxmlPackage, part: string | undefined): string[] {
  const root = part ? pkg.xml(part) : undefined;
  const custom = new Map<number, string>();
  for (const format of childrenNamed(child(root, "numFmts"), "numFmt")) {
    custom.set(Number(format.attrs.numFmtId), format.attrs.formatCode ?? "General");
  }
  return childrenNamed(child(root, "cellXfs"), "xf").map((xf) => {
    const id = Number(xf.attrs.numFmtId ?? 0);
    return custom.get(id) ?? builtInFormat(id) ?? "General";
  });
}

/** `B12` → [11, 1] (0-based row, column). */
function cellRef(ref: string): [number, number] | null {
  const match = /^\$?([A-Z]+)\$?(\d+)$/i.exec(ref);
  if (!match) return null;
  let col = 0;
  for (const char of match[1].toUpperCase()) col = col * 26 + (char.charCodeAt(0) - 64);
  return [Number(match[2]) - 1, col - 1];
}

/** A cell's value as shown. */
function cellValue(cell: XmlElement, book: Workbook): string {
  const type = cell.attrs.t ?? "n";
  const raw = child(cell, "v");
  const value = raw ? textOf(raw) : "";
  const format = book.formats[Number(cell.attrs.s ?? 0)] ?? "General";
  switch (type) {
    case "s":
      return formatText(book.sharedStrings[Number(value)] ?? "", format);
    case "inlineStr": {
      const inline = child(cell, "is");
      return formatText(inline ? richText(inline) : value, format);
    }
    case "str":
      return formatText(value, format);
    case "b":
      return value === "1" ? "TRUE" : value === "0" ? "FALSE" : value;
    case "e":
      return value;
    case "d": {
      const time = Date.parse(value);
      if (Number.isNaN(time)) return value;
      const epoch = book.date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
      return formatNumber((time - epoch) / 86_400_000, format, book.date1904);
    }
    default: {
      if (value === "") return "";
      const number = Number(value);
      return Number.isFinite(number) ? formatNumber(number, format, book.date1904).trim() : value;
    }
  }
}

interface Merge {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** Something placed on a sheet (a block of cells, a drawing), emitted in the order of where it starts. */
interface Placement {
  row: number;
  col: number;
  emit: () => void;
}

interface Region {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

const KEY = 20_000;

/** Groups of filled cells connected through neighbours, as bounding boxes; overlapping boxes joined. */
function regions(filled: Set<number>): Region[] {
  const seen = new Set<number>();
  const found: Region[] = [];
  for (const start of filled) {
    if (seen.has(start)) continue;
    const region: Region = { top: Infinity, left: Infinity, bottom: -1, right: -1 };
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const key = stack.pop() as number;
      const row = Math.floor(key / KEY);
      const col = key % KEY;
      region.top = Math.min(region.top, row);
      region.bottom = Math.max(region.bottom, row);
      region.left = Math.min(region.left, col);
      region.right = Math.max(region.right, col);
      for (const next of [key - KEY, key + KEY, col > 0 ? key - 1 : -1, col < KEY - 1 ? key + 1 : -1]) {
        if (next >= 0 && filled.has(next) && !seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    found.push(region);
  }
  // Boxes that overlap are one table (an L-shaped block, a header over a gap). The pairwise check is
  // quadratic, so a sheet of thousands of scattered blocks keeps them apart.
  let merged = found.length <= 2_000;
  while (merged) {
    merged = false;
    for (let i = 0; i < found.length && !merged; i++) {
      for (let j = i + 1; j < found.length; j++) {
        const a = found[i];
        const b = found[j];
        if (a.top <= b.bottom && b.top <= a.bottom && a.left <= b.right && b.left <= a.right) {
          found[i] = {
            top: Math.min(a.top, b.top),
            left: Math.min(a.left, b.left),
            bottom: Math.max(a.bottom, b.bottom),
            right: Math.max(a.right, b.right),
          };
          found.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  return found.sort((a, b) => a.top - b.top || a.left - b.left);
}

class XlsxReader {
  readonly pkg: OoxmlPackage;
  readonly main: string;
  readonly sink = new ItemSink();
  readonly warnings: string[] = [];
  readonly pages: ModelPage[] = [];
  readonly book: Workbook;

  constructor(pkg: OoxmlPackage, main: string) {
    this.pkg = pkg;
    this.main = main;
    const rels = [...pkg.rels(main).values()];
    const target = (type: string) => rels.find((rel) => rel.type === type && !rel.external)?.target;
    const root = pkg.requireXml(main);
    const date1904 = child(root, "workbookPr")?.attrs.date1904;
    this.book = {
      sharedStrings: readSharedStrings(pkg, target("sharedStrings")),
      formats: readFormats(pkg, target("styles")),
      date1904: date1904 === "1" || date1904 === "true",
    };
  }

  read(): DocumentModel {
    const root = this.pkg.requireXml(this.main);
    const rels = this.pkg.rels(this.main);
    for (const sheet of childrenNamed(child(root, "sheets"), "sheet")) {
      const page = this.pages.length + 1;
      this.pages.push({ pageNumber: page, size: null });
      const name = sheet.attrs.name ?? `Sheet${page}`;
      const state = sheet.attrs.state ?? "visible";
      if (state !== "visible")
        this.warnings.push(`Sheet "${name}" (page ${page}) is ${state}; its content is kept`);
      this.sink.add<HeadingItem>({
        label: "section_header",
        level: 2,
        text: name,
        furniture: false,
        prov: [{ page, bbox: null, charSpan: null }],
      });
      const rel = rels.get(sheet.attrs.id ?? "");
      if (!rel || rel.external) continue;
      const part = this.pkg.xml(rel.target);
      if (!part) {
        this.warnings.push(`Sheet "${name}" has no part ${rel.target}`);
        continue;
      }
      // Tables and drawings in sheet order: by the row (then column) where each starts.
      const placed = [
        ...(part.name === "worksheet" ? this.worksheet(part, page, name) : []),
        ...this.drawings(part, rel.target, page),
      ];
      placed.sort((a, b) => a.row - b.row || a.col - b.col);
      for (const item of placed) item.emit();
      this.comments(rel.target, page);
    }
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "",
      backend: "xlsx",
      pages: this.pages,
      items: this.sink.items,
      warnings: this.warnings,
    };
  }

  worksheet(root: XmlElement, page: number, name: string): Placement[] {
    const values = new Map<number, string>();
    const filled = new Set<number>();
    let count = 0;
    for (const row of childrenNamed(child(root, "sheetData"), "row")) {
      let nextCol = 0;
      const rowIndex = Number(row.attrs.r ?? 0) - 1;
      for (const cell of childrenNamed(row, "c")) {
        const ref = cell.attrs.r ? cellRef(cell.attrs.r) : [rowIndex, nextCol];
        if (!ref || ref[0] < 0 || ref[1] >= KEY) continue;
        nextCol = ref[1] + 1;
        const text = cellValue(cell, this.book);
        if (!text.trim()) continue;
        if (++count > MAX_CELLS) {
          this.warnings.push(`Sheet "${name}" has more than ${MAX_CELLS} filled cells; the rest is left out`);
          break;
        }
        const key = ref[0] * KEY + ref[1];
        values.set(key, text.trim());
        filled.add(key);
      }
      if (count > MAX_CELLS) break;
    }
    const merges: Merge[] = [];
    for (const merge of childrenNamed(child(root, "mergeCells"), "mergeCell")) {
      const [from, to] = (merge.attrs.ref ?? "").split(":");
      const a = cellRef(from ?? "");
      const b = cellRef(to ?? from ?? "");
      if (!a || !b) continue;
      const area = { top: a[0], left: a[1], bottom: b[0], right: b[1] };
      // Only a merged area with text spans; it then fills its whole area.
      if (!values.has(area.top * KEY + area.left)) continue;
      if ((area.bottom - area.top + 1) * (area.right - area.left + 1) > 100_000) continue;
      merges.push(area);
      for (let r = area.top; r <= area.bottom; r++)
        for (let c = area.left; c <= area.right; c++) filled.add(r * KEY + c);
    }
    const placed: Placement[] = [];
    for (const region of regions(filled)) {
      placed.push({
        row: region.top,
        col: region.left,
        emit: () => this.block(region, values, merges, page),
      });
    }
    return placed;
  }

  /** One block of cells: its title when it has one, then the table. */
  block(region: Region, values: Map<number, string>, merges: Merge[], page: number): void {
    // A lone label on the first row above a wider block of at least two rows is the block's title, not a
    // header row: it is read as text and the table starts below it.
    const firstRow: string[] = [];
    for (let col = region.left; col <= region.right; col++) {
      const text = values.get(region.top * KEY + col);
      if (text !== undefined) firstRow.push(text);
    }
    if (region.right > region.left && region.bottom - region.top >= 2 && firstRow.length === 1) {
      this.sink.add<TextItem>({
        label: "text",
        text: firstRow[0],
        furniture: false,
        prov: [{ page, bbox: null, charSpan: null }],
      });
      region.top += 1;
    }
    this.table(region, values, merges, page);
  }

  table(region: Region, values: Map<number, string>, merges: Merge[], page: number): void {
    const cells: TableCell[] = [];
    const covered = new Set<number>();
    const rows = region.bottom - region.top + 1;
    const cols = region.right - region.left + 1;
    for (const merge of merges) {
      if (
        merge.top < region.top ||
        merge.top > region.bottom ||
        merge.left < region.left ||
        merge.left > region.right
      ) {
        continue;
      }
      const bottom = Math.min(merge.bottom, region.bottom);
      const right = Math.min(merge.right, region.right);
      for (let r = merge.top; r <= bottom; r++)
        for (let c = merge.left; c <= right; c++) covered.add(r * KEY + c);
      cells.push({
        row: merge.top - region.top,
        col: merge.left - region.left,
        rowSpan: bottom - merge.top + 1,
        colSpan: right - merge.left + 1,
        text: values.get(merge.top * KEY + merge.left) ?? "",
        columnHeader: merge.top === region.top,
        rowHeader: false,
        bbox: null,
      });
    }
    for (let r = region.top; r <= region.bottom; r++) {
      for (let c = region.left; c <= region.right; c++) {
        const key = r * KEY + c;
        if (covered.has(key)) continue;
        cells.push({
          row: r - region.top,
          col: c - region.left,
          rowSpan: 1,
          colSpan: 1,
          text: values.get(key) ?? "",
          columnHeader: r === region.top,
          rowHeader: false,
          bbox: null,
        });
      }
    }
    cells.sort((a, b) => a.row - b.row || a.col - b.col);
    this.sink.add<TableItem>({
      label: "table",
      numRows: rows,
      numCols: cols,
      cells,
      caption: null,
      furniture: false,
      prov: [{ page, bbox: null, charSpan: null }],
    });
  }

  #persons: Map<string, string> | null = null;

  /** Authors of threaded comments by id. */
  persons(): Map<string, string> {
    if (this.#persons) return this.#persons;
    const persons = new Map<string, string>();
    for (const rel of this.pkg.rels(this.main).values()) {
      if (rel.external || rel.type !== "person") continue;
      for (const person of childrenNamed(this.pkg.xml(rel.target), "person")) {
        persons.set(person.attrs.id ?? "", person.attrs.displayName ?? "");
      }
    }
    this.#persons = persons;
    return persons;
  }

  /**
   * A sheet's cell comments after its tables, by cell position: notes (legacy comments) with their author, then
   * threaded comments with author and time. A note that only stands in for a threaded comment is left out.
   */
  comments(part: string, page: number): void {
    const prov = { page, bbox: null, charSpan: null };
    const found: { at: [number, number]; text: string; author: string | null; time: string | null }[] = [];
    let threaded = false;
    for (const rel of this.pkg.rels(part).values()) {
      if (rel.external || rel.type !== "threadedComment") continue;
      threaded = true;
      for (const comment of childrenNamed(this.pkg.xml(rel.target), "threadedComment")) {
        found.push({
          at: cellRef(comment.attrs.ref ?? "") ?? [0, 0],
          text: textOf(child(comment, "text") ?? comment),
          author: this.persons().get(comment.attrs.personId ?? "") ?? null,
          time: comment.attrs.dT ?? null,
        });
      }
    }
    for (const rel of this.pkg.rels(part).values()) {
      if (rel.external || rel.type !== "comments") continue;
      const root = this.pkg.xml(rel.target);
      const authors = childrenNamed(child(root, "authors"), "author").map((author) => textOf(author));
      for (const comment of childrenNamed(child(root, "commentList"), "comment")) {
        const author = authors[Number(comment.attrs.authorId ?? -1)] ?? null;
        if (threaded && author?.startsWith("tc=")) continue;
        const text = child(comment, "text");
        found.push({
          at: cellRef(comment.attrs.ref ?? "") ?? [0, 0],
          text: text ? richText(text) : "",
          author,
          time: null,
        });
      }
    }
    found.sort(
      (a, b) => Number(a.time !== null) - Number(b.time !== null) || a.at[0] - b.at[0] || a.at[1] - b.at[1],
    );
    for (const comment of found) addComment(this.sink, comment.text, comment.author, comment.time, prov);
  }

  /** Charts and pictures of a sheet's drawing parts, in anchor order. */
  drawings(root: XmlElement, part: string, page: number): Placement[] {
    const placed: Placement[] = [];
    const rels = this.pkg.rels(part);
    for (const drawing of childrenNamed(root, "drawing")) {
      const rel = rels.get(drawing.attrs.id ?? "");
      if (!rel || rel.external) continue;
      const drawingRoot = this.pkg.xml(rel.target);
      if (!drawingRoot) continue;
      const drawingRels = this.pkg.rels(rel.target);
      const anchors = elements(drawingRoot).filter((node) => node.name.endsWith("Anchor"));
      const position = (anchor: XmlElement) => {
        const from = child(anchor, "from");
        return [
          Number(textOf(child(from, "row") ?? anchor)) || 0,
          Number(textOf(child(from, "col") ?? anchor)) || 0,
        ];
      };
      anchors.sort((a, b) => {
        const [ra, ca] = position(a);
        const [rb, cb] = position(b);
        return ra - rb || ca - cb;
      });
      const prov = { page, bbox: null, charSpan: null };
      for (const anchor of anchors) {
        const [row, col] = position(anchor);
        placed.push({
          row,
          col,
          emit: () => {
            for (const chart of descendants(anchor, "chart")) {
              const chartRel = drawingRels.get(chart.attrs.id ?? "");
              if (chartRel && !chartRel.external) addChart(this.sink, this.pkg, chartRel.target, prov);
            }
            for (let i = 0; i < descendants(anchor, "pic").length; i++) {
              this.sink.add<FigureItem>({
                label: "figure",
                caption: null,
                source: null,
                furniture: false,
                prov: [prov],
              });
            }
          },
        });
      }
    }
    return placed;
  }
}

export const xlsxBackend: FormatBackend = {
  name: "xlsx",
  mimeTypes: XLSX_MIME_TYPES,
  load(input) {
    const pkg = new OoxmlPackage(input.bytes ?? new Uint8Array(), "XLSX");
    const main = pkg.mainPart() ?? (pkg.has("xl/workbook.xml") ? "xl/workbook.xml" : undefined);
    if (!main || !pkg.has(main))
      throw new DocumentLoadError("The XLSX package has no workbook part (xl/workbook.xml)");
    const model = new XlsxReader(pkg, main).read();
    model.mimeType = input.mimeType;
    return model;
  },
};
