import {
  type Chunk,
  type FragmentType,
  type MergedTable,
  PARSING_OPTION_DEFAULTS,
  type Page,
  type ParseUsage,
  type ParsingOptions,
} from "@svc/contract";
import { BackendRegistry, baseMimeType } from "./backend.ts";
import { orgBackend, rstBackend } from "./backends/converted-markup.ts";
import { csvBackend } from "./backends/csv.ts";
import { docxBackend } from "./backends/docx.ts";
import { emailBackend } from "./backends/email.ts";
import { epubBackend } from "./backends/epub.ts";
import { htmlBackend } from "./backends/html.ts";
import { imageBackend } from "./backends/image.ts";
import { markdownBackend } from "./backends/markdown.ts";
import { msgBackend } from "./backends/msg.ts";
import { officeConvertBackend } from "./backends/office-convert.ts";
import { pdfBackend } from "./backends/pdf.ts";
import { pkcs7Backend } from "./backends/pkcs7.ts";
import { pptxBackend } from "./backends/pptx.ts";
import { rtfBackend } from "./backends/rtf.ts";
import { textBackend } from "./backends/text.ts";
import { xlsxBackend } from "./backends/xlsx.ts";
import { xmlBackend } from "./backends/xml.ts";
import { zipBackend } from "./backends/zip.ts";
import { DocumentLoadError, type DocumentModel, type MergedTableModel } from "./model.ts";
import { requestedPages } from "./page-range.ts";
import { sniffMimeType, ZIP } from "./sniff.ts";
import { toChunks } from "./views/chunks.ts";
import { toPages } from "./views/fragments.ts";
import { toMarkdown } from "./views/markdown.ts";
import type { ViewOptions } from "./views/selection.ts";
import type { VisionTranscription } from "./vision/page-transcription.ts";

export { BackendRegistry, baseMimeType, type FormatBackend } from "./backend.ts";
export { CLASSIFICATION_THRESHOLD, classifyPages, type PageClassification } from "./intelligence/classify.ts";
export {
  applyEnrichment,
  type EnrichmentHooks,
  type EnrichmentScope,
  MAX_PAGE_IMAGES,
} from "./intelligence/enrich.ts";
export { type Citation, extractStructured } from "./intelligence/extract.ts";
export { type Partition, partitionDocument } from "./intelligence/partition.ts";
export { type JsonSchema, validateAgainstSchema } from "./intelligence/schema.ts";
export {
  type ExtractionTask,
  type StructuredDataEntry,
  type Understanding,
  UnderstandingError,
  type UnderstandOptions,
  understandDocument,
} from "./intelligence/understand.ts";
export { officeAvailable, shutdownOfficePool } from "./libreoffice/pool.ts";
export * from "./model.ts";
export * from "./providers/index.ts";
export { sniffMimeType } from "./sniff.ts";
export { toChunks } from "./views/chunks.ts";
export { toPages } from "./views/fragments.ts";
export { itemToMarkdown, toMarkdown } from "./views/markdown.ts";
export type { ViewOptions } from "./views/selection.ts";
export {
  LOW_OCR_CONFIDENCE,
  ocrConfidence,
  TranscriptionError,
  type VisionTranscription,
} from "./vision/page-transcription.ts";

/** The formats this engine reads. Later formats (PDF, images, Office) are added here as backends. */
export const defaultRegistry = new BackendRegistry([
  textBackend,
  markdownBackend,
  pdfBackend,
  imageBackend,
  htmlBackend,
  csvBackend,
  xmlBackend,
  docxBackend,
  xlsxBackend,
  pptxBackend,
  epubBackend,
  rstBackend,
  orgBackend,
]);
// RTF falls back, and legacy office formats go, through LibreOffice into a type the registry reads.
defaultRegistry.register(rtfBackend(defaultRegistry));
defaultRegistry.register(officeConvertBackend(defaultRegistry));
// Signed containers unwrap their content and parse it with the registry.
defaultRegistry.register(pkcs7Backend(defaultRegistry));
// Containers (emails) read their own text and parse each embedded file with the registry.
defaultRegistry.register(emailBackend(defaultRegistry));
defaultRegistry.register(msgBackend(defaultRegistry));
defaultRegistry.register(zipBackend(defaultRegistry));

export interface ParseOptions {
  /** parsing_options; defaults fill what is left out. */
  parsing?: Partial<ParsingOptions>;
  /** `1-5,8,10`; every page when null or left out. A page beyond the document is a DocumentLoadError. */
  pageRange?: string | null;
}

export interface ParseInput {
  bytes?: Uint8Array;
  text?: string;
  mimeType: string;
  options?: ParseOptions;
  /** A vision model for pages read from their image (handwriting, poor scans); absent: OCR only. */
  vision?: VisionTranscription;
}

/** The views of the API's ParseResult. */
export interface ParseViews {
  total_pages: number;
  parsed_pages_count: number;
  pages: Page[];
  chunks: Chunk[];
  /** The whole (kept) document as markdown. */
  markdown: string;
  usage: ParseUsage;
  /** Problems that did not stop the parse. */
  warnings: string[];
  /** Tables continued across pages (parsing_options.table_merging); absent when merging was not asked for. */
  merged_tables?: MergedTable[];
}

export interface ParseOutput {
  document: DocumentModel;
  result: ParseViews;
}

/** Every option of parsing_options, defaults filled. */
export function withParsingDefaults(options: Partial<ParsingOptions> = {}): Required<ParsingOptions> {
  const filled = {
    ...PARSING_OPTION_DEFAULTS,
    ignore_sections: [...PARSING_OPTION_DEFAULTS.ignore_sections],
    ocr_languages: [...PARSING_OPTION_DEFAULTS.ocr_languages],
  };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (filled as Record<string, unknown>)[key] = value;
  }
  return filled as Required<ParsingOptions>;
}

/**
 * The page count of a text input when its backend can tell it without parsing (text, markdown), else undefined:
 * lets a server check a page_range against raw text before queueing a job.
 */
export function countTextPages(
  text: string,
  mimeType: string,
  registry: BackendRegistry = defaultRegistry,
): number | undefined {
  return registry.get(mimeType)?.countPages?.(text);
}

/** Formats that are zip packages: a zip the sniffer cannot place is a damaged one of these, read as declared. */
function zipBased(mimeType: string): boolean {
  return /^application\/(vnd\.openxmlformats-officedocument\.|vnd\.ms-excel\.sheet\.macroenabled|vnd\.oasis\.opendocument\.|epub\+zip|vnd\.apple\.keynote|x-iwork)/.test(
    baseMimeType(mimeType),
  );
}

/** What sniffing text tells: the kind of text, which a declared text type (markdown, rst, org) knows better. */
const TEXT_SNIFFS = new Set(["text/plain", "text/csv", "text/html", "application/xml"]);

/**
 * The media type to read the input as: the bytes decide. The type the content announces wins over the declared
 * one (a DOCX sent as `application/msword`, a PDF as `application/octet-stream`), and a mismatch between the
 * two is returned as a warning; the declared type wins where the content only tells it is some text, or tells
 * nothing. Text given directly (raw_text) is read as declared.
 */
export function chooseMimeType(
  input: { bytes?: Uint8Array; mimeType: string },
  registry: BackendRegistry = defaultRegistry,
): { mimeType: string; warning: string | null } {
  const declared = registry.get(input.mimeType);
  const sniffed = sniffMimeType(input.bytes);
  if (!sniffed || !registry.get(sniffed)) return { mimeType: input.mimeType, warning: null };
  if (!declared) return { mimeType: sniffed, warning: null };
  if (
    declared === registry.get(sniffed) ||
    TEXT_SNIFFS.has(sniffed) ||
    (sniffed === ZIP && zipBased(input.mimeType))
  ) {
    return { mimeType: input.mimeType, warning: null };
  }
  return {
    mimeType: sniffed,
    warning: `The file was declared as ${baseMimeType(input.mimeType)} but its content is ${sniffed}; it was read as ${sniffed}`,
  };
}

/** Reads the input with the backend of the type its bytes announce (else its declared type). Unknown types are a DocumentLoadError. */
export async function loadDocument(
  input: ParseInput,
  registry: BackendRegistry = defaultRegistry,
): Promise<DocumentModel> {
  const { mimeType, warning } = chooseMimeType(input, registry);
  const backend = registry.get(mimeType);
  if (!backend && input.bytes?.length === 0) throw new DocumentLoadError("The file is empty");
  if (!backend && baseMimeType(mimeType) === "application/octet-stream") {
    throw new DocumentLoadError(
      "The file is not a document this service reads: its content matches none of the supported types",
      "INVALID_MIME_TYPE",
    );
  }
  if (!backend) {
    throw new DocumentLoadError(
      `Documents of type ${baseMimeType(input.mimeType)} cannot be parsed yet; supported types: ${registry.mimeTypes().join(", ")}`,
      "INVALID_MIME_TYPE",
    );
  }
  const doc = await backend.load({
    bytes: input.bytes,
    text: input.text,
    mimeType,
    parsing: withParsingDefaults(input.options?.parsing),
    pageRange: input.options?.pageRange ?? null,
    vision: input.vision,
  });
  return warning ? { ...doc, warnings: [warning, ...doc.warnings] } : doc;
}

/** Pages parsed, and the pages where the options that count their work found something. */
function usageOf(
  doc: DocumentModel,
  parsed: number,
  parsing: Required<ParsingOptions>,
  view: ViewOptions,
): ParseUsage {
  const usage: ParseUsage = { pages_parsed: parsed };
  const kept = (page: number) => view.pages === null || view.pages.has(page);
  if (parsing.signature_detection) {
    const pages = new Set(
      doc.items.filter((item) => item.label === "signature").map((item) => item.prov[0]?.page),
    );
    usage.signature_detected_pages = [...pages].filter((page) => page !== undefined && kept(page)).length;
  }
  if (parsing.remove_strikethrough_lines) {
    usage.strikethrough_removed_pages = (doc.struckPages ?? []).filter(kept).length;
  }
  return usage;
}

function toMergedTables(groups: readonly MergedTableModel[]): MergedTable[] {
  return groups.map((group, index) => ({
    merged_table_id: `merged_table_${index + 1}`,
    merged_table_html: group.html,
    start_page: group.pages[0],
    end_page: group.pages[group.pages.length - 1],
    pages_merged: group.pages.length,
    summary: group.summary ?? null,
    merge_actions: { pages: group.pages, target_columns: group.numCols },
  }));
}

/** The views of a model under the request's options. */
export function documentViews(doc: DocumentModel, options: ParseOptions = {}): ParseViews {
  const parsing = withParsingDefaults(options.parsing);
  const total = doc.pages.length;
  const range = options.pageRange ?? null;
  const pages: ReadonlySet<number> | null = range === null ? null : new Set(requestedPages(range, total));
  const view: ViewOptions = {
    tableOutputMode: parsing.table_output_mode,
    ignore: new Set<FragmentType>(parsing.ignore_sections),
    pages,
  };
  const parsed = pages === null ? total : pages.size;
  return {
    total_pages: total,
    parsed_pages_count: parsed,
    pages: toPages(doc, view),
    chunks: toChunks(doc, parsing.chunking_strategy, view),
    markdown: toMarkdown(doc, view),
    usage: usageOf(doc, parsed, parsing, view),
    warnings: doc.warnings,
    ...(doc.mergedTables && parsing.table_merging ? { merged_tables: toMergedTables(doc.mergedTables) } : {}),
  };
}

/**
 * The engine's one entry point: bytes or text of a media type → the document model and the ParseResult views.
 * Bad input (an unsupported type, binary data as text, a page range beyond the document) is a
 * DocumentLoadError; anything else thrown is a defect of the engine.
 *
 * @example
 * const { result } = await parseDocument({ text: "# Title\n\nBody", mimeType: "text/markdown" });
 * result.chunks[0].content; // "# Title\n\nBody"
 */
export async function parseDocument(
  input: ParseInput,
  registry: BackendRegistry = defaultRegistry,
): Promise<ParseOutput> {
  if (input.bytes === undefined && input.text === undefined) {
    throw new DocumentLoadError("The input has neither bytes nor text");
  }
  const document = await loadDocument(input, registry);
  return { document, result: documentViews(document, input.options) };
}
