import type { FragmentType } from "@svc/contract";

/**
 * The one document model every format backend produces. Markdown, page fragments and chunks are views of it
 * (see views/), never the internal form. Versioned: a stored model names the version it was written in.
 */
export const DOCUMENT_MODEL_VERSION = 1;

/** A box in PDF points, origin at the page's top left: (x1, y1) top left, (x2, y2) bottom right. */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface PageSize {
  /** Points. */
  width: number;
  height: number;
}

export interface ModelPage {
  /** 1-based. */
  pageNumber: number;
  /** Null for declarative formats (text, markdown) whose pages have no geometry. */
  size: PageSize | null;
  /** The page rendered as PNG, base64 (enrichment include_full_page_image); absent when not asked or not renderable. */
  image?: PageImage;
}

/** A page's picture: a PNG, base64, and its size in pixels. */
export interface PageImage {
  pngBase64: string;
  widthPx: number;
  heightPx: number;
  /** Pixels per inch of the render: the page's points × dpi / 72 give its pixels. */
  dpi: number;
}

/**
 * A chart's data: categories along its category axis and one list of values per series, as numbers (null where a
 * point has none). Read from a chart part (OOXML), from a chart drawn as vector graphics (PDF), or by a vision model.
 */
export interface ChartData {
  /** `bar`, `line`, `pie`, `scatter`... several joined by `+` (OOXML's plot types, without `Chart`). */
  chartType: string;
  title: string | null;
  categories: string[];
  series: ChartSeries[];
  /** Where the data was read: the chart part's cached values, the page's vector drawing, or a vision model. */
  origin: "chart_part" | "vector" | "vision";
}

export interface ChartSeries {
  name: string;
  /** One per category, in order; null where the point is missing. */
  values: (number | null)[];
}

/** Where an item was read: its page, its box there, and for text the span of characters in the source text. */
export interface Provenance {
  page: number;
  bbox: Box | null;
  /** [start, end) offsets into the decoded source text; null when the item has no source text of its own. */
  charSpan: [number, number] | null;
}

/** What an item is: the API's fragment types, and `code` (rendered as a fenced block, reported as text). */
export type ItemLabel = FragmentType | "code";

interface ItemBase {
  /** `#/items/<index>`: stable within one model. */
  id: string;
  /** Position in reading order, 0-based, over the whole document. */
  readingOrder: number;
  /** Page headers, footers and page numbers: kept in the model, left out of the markdown view. */
  furniture: boolean;
  prov: Provenance[];
}

/** Text-like items: paragraphs, titles, captions, footers... `markdown` keeps inline formatting when the source had it. */
export interface TextItem extends ItemBase {
  label: Exclude<ItemLabel, "section_header" | "list_item" | "code" | "table" | "figure">;
  text: string;
  markdown?: string;
  /** Block-quote nesting depth (markdown `>`), 0 when not quoted. */
  quoteDepth?: number;
  /** A slide's speaker notes: kept as furniture (out of the markdown view), told apart from headers by this. */
  speakerNotes?: boolean;
  /** A reviewer's comment (slides, sheets): who wrote it and when, when the file says. */
  comment?: { author: string | null; time: string | null };
  /**
   * The lines of a text block laid out on a page (PDF, images), with their boxes: what lines up across blocks
   * (a column of labels beside a column of values) is read from them. Absent for other formats.
   */
  lines?: TextLine[];
}

/** One line of a text block and its box. */
export interface TextLine {
  text: string;
  bbox: Box;
}

export interface HeadingItem extends ItemBase {
  label: "section_header";
  /** 1 for the top level. */
  level: number;
  text: string;
  markdown?: string;
}

export interface ListItem extends ItemBase {
  label: "list_item";
  text: string;
  markdown?: string;
  ordered: boolean;
  /** `-`, `*`, `1.`, `2)`... as it should be rendered. */
  marker: string;
  /** 0 for a top-level list. */
  depth: number;
}

export interface CodeItem extends ItemBase {
  label: "code";
  text: string;
  language: string | null;
}

export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
  /** The cell's text with its inline formatting and links as markdown, when the source had any. */
  markdown?: string;
  columnHeader: boolean;
  rowHeader: boolean;
  bbox: Box | null;
}

export interface TableItem extends ItemBase {
  label: "table";
  numRows: number;
  numCols: number;
  cells: TableCell[];
  caption: string | null;
  /** A summary of the table (enrichment table_summarization). */
  summary?: string;
}

export interface FigureItem extends ItemBase {
  label: "figure";
  /** Alternative text or caption. */
  caption: string | null;
  /** Where the image came from, when the source names it (a markdown image URL). */
  source: string | null;
  /**
   * Set when the figure is a chart whose data the source holds (OOXML charts): the data follows as a table, and
   * `data` keeps the cached values as numbers for chart extraction.
   */
  chart?: { type: string; title: string | null; data?: ChartData };
  /** A summary of the figure (enrichment figure_summarization). */
  summary?: string;
  /** The chart's data (enrichment chart_extraction): the figure is then reported as a `chart` fragment. */
  chartData?: ChartData;
}

export type DocItem = TextItem | HeadingItem | ListItem | CodeItem | TableItem | FigureItem;

/** A table continued over several pages, joined (parsing_options.table_merging). */
export interface MergedTableModel {
  /** Ids of the table items joined, in order. */
  itemIds: string[];
  /** The joined table: rows of every part, a repeated header row kept once. */
  html: string;
  pages: number[];
  numCols: number;
  /** A summary of the joined table (enrichment table_summarization). */
  summary?: string;
}

/** Who signed a signed container (PKCS#7 / CMS), as its certificate says. */
export interface DocumentSigner {
  /** The certificate's subject (`CN=…, O=…`), null when the container does not carry the certificate. */
  subject: string | null;
  commonName: string | null;
  issuer: string | null;
  /** The certificate's serial number, hex. */
  serialNumber: string;
  /** The signing-time attribute, ISO 8601, when the signature has one. */
  signingTime: string | null;
  /** Whether the signature holds against the certificate's key; null when not checked. Trust is never checked. */
  verified: boolean | null;
}

export interface DocumentModel {
  version: typeof DOCUMENT_MODEL_VERSION;
  mimeType: string;
  /** Name of the backend that read the input. */
  backend: string;
  pages: ModelPage[];
  /** Every item, flat, in reading order. */
  items: DocItem[];
  /** Problems that did not stop the parse, e.g. bytes that were not valid UTF-8. */
  warnings: string[];
  /** Tables continued across pages, when merging was asked for. */
  mergedTables?: MergedTableModel[];
  /** Pages where struck-through text was dropped (remove_strikethrough_lines). */
  struckPages?: number[];
  /** The signers of a signed container the document came in (PKCS#7); each is also said in `warnings`. */
  signers?: DocumentSigner[];
}

/** The input could not be read as a document of its type: bad input, reported to the caller, never a crash. */
export class DocumentLoadError extends Error {
  /** A catalog code when one fits (e.g. INVALID_PAGE_RANGE), else null. */
  readonly code: string | null;
  constructor(message: string, code: string | null = null) {
    super(message);
    this.name = "DocumentLoadError";
    this.code = code;
  }
}

/** Builds the items of a model in reading order, numbering ids and reading order as they are added. */
export class ItemSink {
  readonly items: DocItem[] = [];

  add<T extends DocItem>(item: Omit<T, "id" | "readingOrder">): T {
    const index = this.items.length;
    const full = { ...item, id: `#/items/${index}`, readingOrder: index } as T;
    this.items.push(full);
    return full;
  }
}

/** The plain text of an item, as search or extraction reads it. */
export function itemText(item: DocItem): string {
  switch (item.label) {
    case "table":
      return item.cells.map((cell) => cell.text).join(" ");
    case "figure":
      return item.caption ?? "";
    default:
      return item.text;
  }
}
