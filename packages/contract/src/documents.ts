import Type, { type Static, type TSchema } from "typebox";
import { closed, nullable, Rfc3339 } from "./common.ts";
import { defineRoutes } from "./route.ts";
import { WebhookEventName } from "./webhook-signature.ts";

/** Bounds of the documents API inputs: anything larger is rejected by the schemas. */
export const DOCUMENT_LIMITS = {
  /** Characters of `raw_text`. */
  rawTextChars: 5_000_000,
  urlChars: 2048,
  idChars: 200,
  fileNameChars: 255,
  pageRangeChars: 1000,
  labels: 50,
  labelKeyChars: 100,
  labelValueChars: 1000,
  promptChars: 20_000,
  descriptionChars: 2000,
  schemaNameChars: 100,
  /** Top-level keywords of one extraction JSON schema; deeper bounds are checked by checkExtractionSchema. */
  jsonSchemaKeywords: 100,
  structuredExtractions: 20,
  pageClassifications: 50,
  partitionPatterns: 50,
  partitionPatternChars: 500,
  datasetNameChars: 100,
  webhooksPerProject: 10,
  listLimit: 1000,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Option values

/** Media types a document can be parsed as; `mime_type` overrides the type inferred from the file name. */
export const MimeType = Type.Enum(
  [
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/msword",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.ms-powerpoint",
    "application/vnd.apple.keynote",
    "image/jpeg",
    "image/tiff",
    "text/plain",
    "text/html",
    "text/markdown",
    "text/x-markdown",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.ms-excel.sheet.macroenabled.12",
    // The spelling the public platform's Python SDK sends; MIME types are case-insensitive.
    "application/vnd.ms-excel.sheet.macroEnabled.12",
    "application/vnd.ms-excel",
    "text/xml",
    "text/csv",
    "image/png",
    // Beyond the public platform's list: image formats the OCR path reads.
    "image/webp",
    "image/gif",
    "image/avif",
    "image/heic",
    "image/heif",
    "image/bmp",
    "text/rtf",
    "application/rtf",
    "application/octet-stream",
    "application/pkcs7-mime",
    "application/x-pkcs7-mime",
    "application/pkcs7-signature",
    // Containers and markup read by their own backends: email, Outlook, e-books, archives, OpenDocument.
    "message/rfc822",
    "application/vnd.ms-outlook",
    "application/epub+zip",
    "application/zip",
    "application/vnd.oasis.opendocument.text",
    "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
    "text/x-rst",
    "text/org",
  ],
  { $id: "MimeType" },
);
export type MimeType = Static<typeof MimeType>;

/** Kinds of layout fragment found on a page. */
export const FragmentType = Type.Enum(
  [
    "section_header",
    "title",
    "text",
    "table",
    "figure",
    "formula",
    "form",
    "key_value_region",
    "document_index",
    "list_item",
    "table_caption",
    "figure_caption",
    "formula_caption",
    "page_footer",
    "page_header",
    "page_number",
    "signature",
    "strikethrough",
    "barcode",
    "chart",
  ],
  { $id: "FragmentType" },
);
export type FragmentType = Static<typeof FragmentType>;

const chunkingStrategies = ["none", "page", "section", "fragment"] as const;
const tableOutputModes = ["markdown", "html"] as const;
const tableParsingFormats = ["tsr", "vlm"] as const;
const ocrModels = ["model01", "model02", "model03", "gemini3"] as const;

export const ChunkingStrategy = Type.Enum([...chunkingStrategies]);
export type ChunkingStrategy = Static<typeof ChunkingStrategy>;
export const TableOutputMode = Type.Enum([...tableOutputModes]);
export type TableOutputMode = Static<typeof TableOutputMode>;
export const TableParsingFormat = Type.Enum([...tableParsingFormats]);
export type TableParsingFormat = Static<typeof TableParsingFormat>;
export const OcrModel = Type.Enum([...ocrModels]);
export type OcrModel = Static<typeof OcrModel>;

/**
 * Tesseract language codes a request may name in `parsing_options.ocr_languages` (our extension, not the public
 * platform's): the language data the server installs (scripts/install.sh). `_vert` reads vertical CJK columns.
 */
export const OCR_LANGUAGES = [
  ...[
    "eng",
    "deu",
    "fra",
    "spa",
    "por",
    "ita",
    "nld",
    "pol",
    "tur",
    "ces",
    "ron",
    "hun",
    "swe",
    "dan",
    "nor",
  ],
  ...[
    "fin",
    "ind",
    "msa",
    "vie",
    "rus",
    "ukr",
    "ell",
    "ara",
    "fas",
    "urd",
    "heb",
    "hin",
    "ben",
    "tam",
    "tha",
  ],
  ...["chi_sim", "chi_sim_vert", "chi_tra", "chi_tra_vert", "jpn", "jpn_vert", "kor", "kor_vert"],
] as const;
export const OcrLanguage = Type.Enum([...OCR_LANGUAGES]);
export type OcrLanguage = Static<typeof OcrLanguage>;

/** The model provider names the service emits; each maps, through server configuration, to a configured provider. */
export const MODEL_PROVIDERS = ["tensorlake", "gemini3", "sonnet", "gpt_4o_mini"] as const;
export type CanonicalModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Other spellings of the model providers that clients send, and the name each stands for. */
export const MODEL_PROVIDER_ALIASES = {
  gpt4o_mini: "gpt_4o_mini",
  "gpt-4o-mini": "gpt_4o_mini",
  "claude-3-5-sonnet-latest": "sonnet",
} as const satisfies Record<string, CanonicalModelProvider>;

/**
 * A model provider name: the canonical names, their aliases, or the name of any provider the server's
 * configuration defines. The schema checks only the spelling; the server answers 400 INVALID_CONFIGURATION,
 * naming it, for a name it has no provider for. `tensorlake` is the service's own offline provider.
 */
export const ModelProvider = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]*$",
});
export type ModelProvider = Static<typeof ModelProvider>;

/** The canonical name of a model provider: an alias's canonical name, any other name as given. */
export function canonicalModelProvider(provider: string): string {
  return Object.hasOwn(MODEL_PROVIDER_ALIASES, provider)
    ? MODEL_PROVIDER_ALIASES[provider as keyof typeof MODEL_PROVIDER_ALIASES]
    : provider;
}

const PartitionPatterns = Type.Object(
  {
    start_patterns: Type.Optional(
      nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.partitionPatternChars }), {
          maxItems: DOCUMENT_LIMITS.partitionPatterns,
        }),
      ),
    ),
    end_patterns: Type.Optional(
      nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.partitionPatternChars }), {
          maxItems: DOCUMENT_LIMITS.partitionPatterns,
        }),
      ),
    ),
  },
  closed,
);

/** How a document is split before structured extraction: one result per partition, or split at patterns. */
export const PartitionStrategy = Type.Union([
  Type.Enum([...chunkingStrategies]),
  Type.Object({ patterns: PartitionPatterns }, closed),
]);
export type PartitionStrategy = Static<typeof PartitionStrategy>;

// ---------------------------------------------------------------------------------------------------------------
// Request options

/** Defaults of parsing_options, applied to every field a request leaves out. */
export const PARSING_OPTION_DEFAULTS = {
  table_output_mode: "html",
  table_parsing_format: "tsr",
  chunking_strategy: "none",
  signature_detection: false,
  remove_strikethrough_lines: false,
  skew_detection: false,
  disable_layout_detection: false,
  ignore_sections: [] as FragmentType[],
  cross_page_header_detection: false,
  include_images: false,
  barcode_detection: false,
  table_merging: false,
  ocr_model: "model03",
  ocr_languages: [] as OcrLanguage[],
} as const satisfies Record<string, unknown>;

const D = PARSING_OPTION_DEFAULTS;

export const ParsingOptions = Type.Object(
  {
    table_output_mode: Type.Optional(Type.Enum([...tableOutputModes], { default: D.table_output_mode })),
    table_parsing_format: Type.Optional(
      Type.Enum([...tableParsingFormats], { default: D.table_parsing_format }),
    ),
    chunking_strategy: Type.Optional(Type.Enum([...chunkingStrategies], { default: D.chunking_strategy })),
    signature_detection: Type.Optional(Type.Boolean({ default: D.signature_detection })),
    remove_strikethrough_lines: Type.Optional(Type.Boolean({ default: D.remove_strikethrough_lines })),
    skew_detection: Type.Optional(Type.Boolean({ default: D.skew_detection })),
    disable_layout_detection: Type.Optional(Type.Boolean({ default: D.disable_layout_detection })),
    /** Fragment types left out of the output. */
    ignore_sections: Type.Optional(
      Type.Array(FragmentType, { maxItems: 20, uniqueItems: true, default: D.ignore_sections }),
    ),
    cross_page_header_detection: Type.Optional(Type.Boolean({ default: D.cross_page_header_detection })),
    include_images: Type.Optional(Type.Boolean({ default: D.include_images })),
    barcode_detection: Type.Optional(Type.Boolean({ default: D.barcode_detection })),
    table_merging: Type.Optional(Type.Boolean({ default: D.table_merging })),
    ocr_model: Type.Optional(Type.Enum([...ocrModels], { default: D.ocr_model })),
    /**
     * Our extension: the languages OCR reads every page in, overriding the per-page detection; empty (the
     * default) detects the script and languages of each page.
     */
    ocr_languages: Type.Optional(
      Type.Array(OcrLanguage, { maxItems: 6, uniqueItems: true, default: D.ocr_languages }),
    ),
  },
  { ...closed, $id: "ParsingOptions" },
);
export type ParsingOptions = Static<typeof ParsingOptions>;

/** Defaults of enrichment_options. */
export const ENRICHMENT_OPTION_DEFAULTS = {
  table_summarization: false,
  table_summarization_prompt: null,
  figure_summarization: false,
  figure_summarization_prompt: null,
  chart_extraction: false,
  include_full_page_image: false,
} as const;

const Prompt = Type.String({ maxLength: DOCUMENT_LIMITS.promptChars });

export const EnrichmentOptions = Type.Object(
  {
    table_summarization: Type.Optional(Type.Boolean({ default: false })),
    /** Ignored unless table_summarization is true; null means the built-in prompt. */
    table_summarization_prompt: Type.Optional(nullable(Prompt)),
    figure_summarization: Type.Optional(Type.Boolean({ default: false })),
    /** Ignored unless figure_summarization is true; null means the built-in prompt. */
    figure_summarization_prompt: Type.Optional(nullable(Prompt)),
    chart_extraction: Type.Optional(Type.Boolean({ default: false })),
    include_full_page_image: Type.Optional(Type.Boolean({ default: false })),
  },
  { ...closed, $id: "EnrichmentOptions" },
);
export type EnrichmentOptions = Static<typeof EnrichmentOptions>;

const PageClassName = Type.String({ minLength: 1, maxLength: 100 });

/** Defaults of the optional fields of a structured extraction. */
export const STRUCTURED_EXTRACTION_DEFAULTS = {
  skip_ocr: false,
  model_provider: "tensorlake",
  partition_strategy: "none",
  provide_citations: false,
} as const;

/**
 * One structured extraction: a JSON schema the document's data is extracted into. The schema's own rules (object at
 * the root, at most 5 levels, every field required) are checked by `checkExtractionSchema` for a precise message.
 * The defaults (STRUCTURED_EXTRACTION_DEFAULTS) are not schema `default`s: the list may be null, and validators
 * do not apply defaults under a union.
 */
export const StructuredExtractionOptions = Type.Object(
  {
    schema_name: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.schemaNameChars }),
    json_schema: Type.Object(
      {},
      { additionalProperties: true, maxProperties: DOCUMENT_LIMITS.jsonSchemaKeywords },
    ),
    /** Extract from the document's images without OCR text first. Default false. */
    skip_ocr: Type.Optional(Type.Boolean()),
    prompt: Type.Optional(nullable(Prompt)),
    /** Default `tensorlake`: the service's own provider. */
    model_provider: Type.Optional(ModelProvider),
    /** Default `none`: one result for the whole document. */
    partition_strategy: Type.Optional(PartitionStrategy),
    /** Restricts extraction to pages classified as one of these classes (see page_classifications). */
    page_classes: Type.Optional(nullable(Type.Array(PageClassName, { maxItems: 50, uniqueItems: true }))),
    /** Return where each value was read. Default false. */
    provide_citations: Type.Optional(Type.Boolean()),
  },
  { ...closed, $id: "StructuredExtractionOptions" },
);
export type StructuredExtractionOptions = Static<typeof StructuredExtractionOptions>;

export const PageClassConfig = Type.Object(
  {
    name: PageClassName,
    description: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.descriptionChars }),
  },
  { ...closed, $id: "PageClassConfig" },
);
export type PageClassConfig = Static<typeof PageClassConfig>;

/** Free metadata of a request, file or job: string keys to string values, returned as given. */
export const Labels = Type.Record(
  Type.String(),
  Type.String({ maxLength: DOCUMENT_LIMITS.labelValueChars }),
  {
    maxProperties: DOCUMENT_LIMITS.labels,
    propertyNames: { type: "string", minLength: 1, maxLength: DOCUMENT_LIMITS.labelKeyChars },
  },
);
export type Labels = Static<typeof Labels>;

/** `file_` (uploaded through v2) or `tensorlake-` (v1) followed by the id. */
export const FileId = Type.String({
  minLength: 1,
  maxLength: DOCUMENT_LIMITS.idChars,
  pattern: "^(?:file_|tensorlake-)[A-Za-z0-9_-]+$",
});

/** An absolute http(s) URL. */
const HttpUrl = Type.String({
  minLength: 1,
  maxLength: DOCUMENT_LIMITS.urlChars,
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
});

/** The file source and its modifiers: shared by parse, read and dataset parse. */
const fileSourceFields = {
  /** A previously uploaded file. Exactly one of file_id, file_url, raw_text (see checkFileSource). */
  file_id: Type.Optional(nullable(FileId)),
  /** A public http(s) URL; redirects are followed, and every hop must be public. */
  file_url: Type.Optional(nullable(HttpUrl)),
  /** Raw text (email, HTML, CSV, XML...) parsed as mime_type, `text/plain` by default. */
  raw_text: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.rawTextChars }))),
  /** Pages or ranges, `1-5,8,10` (see parsePageRange); all pages when left out. */
  page_range: Type.Optional(nullable(Type.String({ maxLength: DOCUMENT_LIMITS.pageRangeChars }))),
  /** Only with file_id: the name to report instead of the uploaded one. */
  file_name: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.fileNameChars }))),
  mime_type: Type.Optional(nullable(MimeType)),
  labels: Type.Optional(nullable(Labels)),
};

const StructuredExtractions = Type.Array(StructuredExtractionOptions, {
  maxItems: DOCUMENT_LIMITS.structuredExtractions,
});
const PageClassifications = Type.Array(PageClassConfig, { maxItems: DOCUMENT_LIMITS.pageClassifications });

/** The settings a parse request carries and a dataset stores. */
const settingsFields = {
  parsing_options: Type.Optional(ParsingOptions),
  structured_extraction_options: Type.Optional(nullable(StructuredExtractions)),
  page_classifications: Type.Optional(nullable(PageClassifications)),
  enrichment_options: Type.Optional(EnrichmentOptions),
};

const readFields = {
  ...fileSourceFields,
  parsing_options: settingsFields.parsing_options,
  enrichment_options: settingsFields.enrichment_options,
};

/** Body of `POST /documents/v2/parse`. */
export const ParseRequest = Type.Object(
  { ...readFields, ...settingsFields },
  { ...closed, $id: "ParseRequest" },
);
export type ParseRequest = Static<typeof ParseRequest>;

/** Body of `POST /documents/v2/read`: the parse request without extraction and classification. */
export const ReadRequest = Type.Object(readFields, { ...closed, $id: "ReadRequest" });
export type ReadRequest = Static<typeof ReadRequest>;

/** Body of `POST /documents/v2/extract`: a source and the schemas to extract; the job is a parse that extracts. */
export const ExtractRequest = Type.Object(
  { ...fileSourceFields, structured_extraction_options: StructuredExtractions },
  { ...closed, $id: "ExtractRequest" },
);
export type ExtractRequest = Static<typeof ExtractRequest>;

/** Body of `POST /documents/v2/classify`: a source and the page classes to sort its pages into. */
export const ClassifyRequest = Type.Object(
  { ...fileSourceFields, page_classifications: PageClassifications },
  { ...closed, $id: "ClassifyRequest" },
);
export type ClassifyRequest = Static<typeof ClassifyRequest>;

/** Body of `POST /documents/v2/edit` (form filling) as the Python SDK sends it; not served here (501). */
export const EditRequest = Type.Object(
  {
    ...fileSourceFields,
    form_filling: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { ...closed, $id: "EditRequest" },
);
export type EditRequest = Static<typeof EditRequest>;

/** Answer of every call that starts a parse job. */
export const ParseJob = Type.Object(
  { parse_id: Type.String(), created_at: Rfc3339 },
  { $id: "ParseJob", description: "Poll GET /documents/v2/parse/{parse_id} for the result" },
);
export type ParseJob = Static<typeof ParseJob>;

// ---------------------------------------------------------------------------------------------------------------
// Parse results

export const ParseStatus = Type.Enum(["pending", "processing", "successful", "failure"], {
  $id: "ParseStatus",
});
export type ParseStatus = Static<typeof ParseStatus>;

/** Server-sent events of `GET /documents/v2/parse/{parse_id}` with `Accept: text/event-stream`; data is a ParseResult. */
export const PARSE_EVENTS = ["parse_queued", "parse_update", "parse_done", "parse_failed"] as const;
export const ParseEventName = Type.Enum([...PARSE_EVENTS]);
export type ParseEventName = Static<typeof ParseEventName>;

/** A box in page coordinates: (x1, y1) top left, (x2, y2) bottom right. */
export const BoundingBox = Type.Object({
  x1: Type.Number(),
  y1: Type.Number(),
  x2: Type.Number(),
  y2: Type.Number(),
});
export type BoundingBox = Static<typeof BoundingBox>;

export const TableCell = Type.Object({ text: Type.String(), bounding_box: BoundingBox });

export const TableContent = Type.Object({
  content: Type.String(),
  html: Type.Optional(nullable(Type.String())),
  markdown: Type.Optional(nullable(Type.String())),
  cells: Type.Array(TableCell),
  summary: Type.Optional(nullable(Type.String())),
});
export const HeaderContent = Type.Object({ level: Type.Integer({ minimum: 0 }), content: Type.String() });
/** Every other fragment; figures and charts may carry a summary. */
export const TextContent = Type.Object({
  content: Type.String(),
  summary: Type.Optional(nullable(Type.String())),
});

/** A chart's data (enrichment chart_extraction): categories, and one value per category for each series. */
export const ChartSeriesData = Type.Object({
  /** `bar`, `line`, `pie`, `scatter`... several joined by `+`. */
  chart_type: Type.String(),
  title: nullable(Type.String()),
  categories: Type.Array(Type.String()),
  series: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(nullable(Type.Number())) })),
  /** Where the data was read: `chart_part` (an Office chart's values), `vector` (a PDF's drawing), `vision`. */
  source: Type.Enum(["chart_part", "vector", "vision"]),
});
export type ChartSeriesData = Static<typeof ChartSeriesData>;
/** A `chart` fragment: the data as a markdown table in `content`, and as numbers in `chart`. */
export const ChartContent = Type.Object({
  content: Type.String(),
  summary: Type.Optional(nullable(Type.String())),
  chart: ChartSeriesData,
});

/**
 * Content of a fragment by its kind. The most specific shape comes first: a serializer that picks the first
 * matching branch must not take a table (which has `cells`), a header (`level`) or a chart (`chart`) for plain text.
 */
export const FragmentContent = Type.Union([TableContent, HeaderContent, ChartContent, TextContent]);
export type FragmentContent = Static<typeof FragmentContent>;

export const PageFragment = Type.Object({
  fragment_type: FragmentType,
  content: FragmentContent,
  reading_order: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
  bbox: Type.Optional(nullable(BoundingBox)),
});
export type PageFragment = Static<typeof PageFragment>;

export const Page = Type.Object({
  /** 1-based. */
  page_number: Type.Integer({ minimum: 1 }),
  /** `[width, height]` in whole points. */
  dimensions: Type.Optional(nullable(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }))),
  page_dimensions: Type.Optional(nullable(Type.Object({ width: Type.Integer(), height: Type.Integer() }))),
  page_fragments: Type.Optional(nullable(Type.Array(PageFragment))),
  classification_reason: Type.Optional(nullable(Type.String())),
  /** The page as a PNG, base64 (enrichment include_full_page_image; PDF, image and slide documents). */
  page_image: Type.Optional(nullable(Type.String())),
});
export type Page = Static<typeof Page>;

export const Chunk = Type.Object({ page_number: Type.Integer({ minimum: 0 }), content: Type.String() });
export type Chunk = Static<typeof Chunk>;

export const PageClass = Type.Object({
  page_class: Type.String(),
  page_numbers: Type.Array(Type.Integer({ minimum: 1 })),
  /** Page number (as a string key) to the reason it was put in this class. */
  classification_reasons: Type.Optional(nullable(Type.Record(Type.String(), Type.String()))),
});
export type PageClass = Static<typeof PageClass>;

/** Where one extracted value was read. */
export const Citation = Type.Object({
  /** JSON pointer into `data`, e.g. `/line_items/0/amount`. */
  field: Type.String(),
  page_number: Type.Integer({ minimum: 1 }),
  /** The box of the source on its page, in points from the top left; null for formats without geometry. */
  bbox: nullable(BoundingBox),
  /** The source text the value was read from. */
  text: Type.String(),
});
export type Citation = Static<typeof Citation>;

export const StructuredData = Type.Object({
  schema_name: Type.String(),
  /** Data in the shape of the request's JSON schema. */
  data: Type.Unknown(),
  page_numbers: Type.Union([Type.Array(Type.Integer({ minimum: 1 })), Type.Integer({ minimum: 1 })]),
  /** With provide_citations: where each value was read, one entry per cited value. */
  citations: Type.Optional(nullable(Type.Array(Citation))),
});
export type StructuredData = Static<typeof StructuredData>;

export const MergedTable = Type.Object({
  merged_table_id: Type.String(),
  merged_table_html: Type.String(),
  start_page: Type.Integer({ minimum: 1 }),
  end_page: Type.Integer({ minimum: 1 }),
  pages_merged: Type.Integer({ minimum: 0 }),
  summary: Type.Optional(nullable(Type.String())),
  merge_actions: Type.Object({
    pages: Type.Array(Type.Integer({ minimum: 1 })),
    target_columns: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
  }),
});
export type MergedTable = Static<typeof MergedTable>;

const Count = Type.Integer({ minimum: 0 });

export const ParseUsage = Type.Object({
  pages_parsed: Count,
  signature_detected_pages: Type.Optional(Count),
  strikethrough_removed_pages: Type.Optional(Count),
  ocr_input_tokens_used: Type.Optional(Count),
  ocr_output_tokens_used: Type.Optional(Count),
  extraction_input_tokens_used: Type.Optional(Count),
  extraction_output_tokens_used: Type.Optional(Count),
  summarization_input_tokens_used: Type.Optional(Count),
  summarization_output_tokens_used: Type.Optional(Count),
  /** Tokens each configured model provider used for this job, by provider name (absent when none was used). */
  model_providers: Type.Optional(
    Type.Record(Type.String(), Type.Object({ input_tokens: Count, output_tokens: Count })),
  ),
});
export type ParseUsage = Static<typeof ParseUsage>;

/** A parse or read job and, once successful, its output. */
export const ParseResult = Type.Object(
  {
    parse_id: Type.String(),
    status: ParseStatus,
    created_at: Rfc3339,
    finished_at: Type.Optional(nullable(Rfc3339)),
    /** Why the job failed; set only with status `failure`. */
    error: Type.Optional(nullable(Type.String())),
    labels: Type.Optional(Labels),
    dataset_id: Type.Optional(nullable(Type.String())),
    parsed_pages_count: Count,
    total_pages: Type.Optional(nullable(Count)),
    chunks: Type.Optional(Type.Array(Chunk)),
    pages: Type.Optional(nullable(Type.Array(Page))),
    page_classes: Type.Optional(nullable(Type.Array(PageClass))),
    structured_data: Type.Optional(nullable(Type.Array(StructuredData))),
    merged_tables: Type.Optional(Type.Array(MergedTable)),
    usage: Type.Optional(nullable(ParseUsage)),
  },
  { $id: "ParseResult" },
);
export type ParseResult = Static<typeof ParseResult>;

// ---------------------------------------------------------------------------------------------------------------
// Lists

/** Page direction of the documents lists: `next`/`prev` as the documents clients send, or `forward`/`backward`. */
export const ListDirection = Type.Enum(["next", "prev", "forward", "backward"]);
export type ListDirection = Static<typeof ListDirection>;

/** True when a list is read towards older items (`next`, `forward`, or no direction). */
export function isForward(direction: ListDirection | undefined): boolean {
  return direction === undefined || direction === "next" || direction === "forward";
}

const pageQueryFields = (defaultLimit: number) => ({
  /** Opaque cursor from a previous page's next_cursor or prev_cursor. */
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  direction: Type.Optional(ListDirection),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: DOCUMENT_LIMITS.listLimit, default: defaultLimit }),
  ),
});

/** A page of a cursor list. */
export function CursorPage<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(nullable(Type.String())),
    prev_cursor: Type.Optional(nullable(Type.String())),
  });
}
export interface CursorPageOf<T> {
  items: T[];
  has_more: boolean;
  next_cursor?: string | null;
  prev_cursor?: string | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Files

/** Parts of the upload form: the file in `file` (or `file_bytes`) and, optionally, `labels` as a JSON object. */
export const UPLOAD_FILE_PARTS = ["file", "file_bytes"] as const;
export const UPLOAD_LABELS_PART = "labels";

export const UploadedFile = Type.Object(
  { file_id: Type.String(), created_at: Rfc3339 },
  { $id: "UploadedFile" },
);
export type UploadedFile = Static<typeof UploadedFile>;

export const FileMetadata = Type.Object(
  {
    file_id: Type.String(),
    file_name: Type.Optional(nullable(Type.String())),
    mime_type: MimeType,
    /** Bytes. */
    file_size: Count,
    /** Hex SHA-256 of the content. */
    checksum_sha256: Type.String(),
    created_at: Rfc3339,
    labels: Type.Optional(Labels),
    // The same facts under the names the Python SDK's FileInfo reads.
    id: Type.String(),
    /** The file name, or "" when the upload named none. */
    name: Type.String(),
    fileSize: Count,
    /** The same value as mime_type (a plain string here: the MimeType schema has one $id). */
    mimeType: Type.String(),
    createdAt: Rfc3339,
    /** Files never change after upload: the upload time. */
    updatedAt: Rfc3339,
  },
  { $id: "FileMetadata" },
);
export type FileMetadata = Static<typeof FileMetadata>;

export const ListFilesQuery = Type.Object(
  {
    ...pageQueryFields(25),
    /** Only files of exactly this name. */
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.fileNameChars })),
    created_after: Type.Optional(Rfc3339),
    created_before: Type.Optional(Rfc3339),
  },
  closed,
);
export type ListFilesQuery = Static<typeof ListFilesQuery>;
/** The files list carries its paging fields in both spellings: the Python SDK reads hasMore, nextCursor, prevCursor. */
export const FilesPage = Type.Object({
  ...CursorPage(FileMetadata).properties,
  hasMore: Type.Boolean(),
  nextCursor: nullable(Type.String()),
  prevCursor: nullable(Type.String()),
});
export type FilesPage = Static<typeof FilesPage>;

export const FileParams = Type.Object({
  file_id: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.idChars }),
});

// ---------------------------------------------------------------------------------------------------------------
// Parse jobs

export const ParseParams = Type.Object({
  parse_id: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.idChars }),
});

/** Job list filters by creation and end time (exclusive bounds), as the Python SDK sends them. */
const timeFilterFields = {
  created_after: Type.Optional(Rfc3339),
  created_before: Type.Optional(Rfc3339),
  finished_after: Type.Optional(Rfc3339),
  finished_before: Type.Optional(Rfc3339),
};

export const ListParseJobsQuery = Type.Object(
  {
    ...pageQueryFields(100),
    status: Type.Optional(ParseStatus),
    dataset_name: Type.Optional(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.datasetNameChars })),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.fileNameChars })),
    ...timeFilterFields,
  },
  closed,
);
export type ListParseJobsQuery = Static<typeof ListParseJobsQuery>;
export const ParseResultsPage = CursorPage(ParseResult);
export type ParseResultsPage = Static<typeof ParseResultsPage>;

// ---------------------------------------------------------------------------------------------------------------
// Datasets

export const DatasetStatus = Type.Enum(["idle", "processing"]);
export type DatasetStatus = Static<typeof DatasetStatus>;

/** Parse jobs of a dataset by state. */
export const DatasetAnalytics = Type.Object({
  pending: Count,
  processing: Count,
  successful: Count,
  error: Count,
});
export type DatasetAnalytics = Static<typeof DatasetAnalytics>;

/** Letters, digits, '-' and '_' (checked by checkDatasetName so the error says so); unique within the project. */
const DatasetName = Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.datasetNameChars });
const Description = Type.String({ maxLength: DOCUMENT_LIMITS.descriptionChars });

export const Dataset = Type.Object(
  {
    name: Type.String(),
    dataset_id: Type.String(),
    status: DatasetStatus,
    description: Type.Optional(nullable(Type.String())),
    created_at: Rfc3339,
    updated_at: Rfc3339,
    ...settingsFields,
    /** Only with `include_analytics=true`. */
    analytics: Type.Optional(DatasetAnalytics),
  },
  { $id: "Dataset" },
);
export type Dataset = Static<typeof Dataset>;

export const CreateDatasetRequest = Type.Object(
  { name: DatasetName, description: Type.Optional(nullable(Description)), ...settingsFields },
  { ...closed, $id: "CreateDatasetRequest" },
);
export type CreateDatasetRequest = Static<typeof CreateDatasetRequest>;

export const CreatedDataset = Type.Object(
  { name: Type.String(), dataset_id: Type.String(), created_at: Rfc3339 },
  { $id: "CreatedDataset" },
);
export type CreatedDataset = Static<typeof CreatedDataset>;

/** Every field optional: a field left out keeps its value. Applies to later jobs only. */
export const UpdateDatasetRequest = Type.Object(
  { name: Type.Optional(DatasetName), description: Type.Optional(nullable(Description)), ...settingsFields },
  { ...closed, $id: "UpdateDatasetRequest" },
);
export type UpdateDatasetRequest = Static<typeof UpdateDatasetRequest>;

/** Body of `POST /documents/v2/datasets/{dataset_id}/parse`: a file source; the settings are the dataset's. */
export const DatasetParseRequest = Type.Object(fileSourceFields, { ...closed, $id: "DatasetParseRequest" });
export type DatasetParseRequest = Static<typeof DatasetParseRequest>;

export const DatasetParams = Type.Object({
  dataset_id: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.idChars }),
});

export const GetDatasetQuery = Type.Object(
  { include_analytics: Type.Optional(Type.Boolean({ default: false })) },
  closed,
);
export type GetDatasetQuery = Static<typeof GetDatasetQuery>;

export const ListDatasetsQuery = Type.Object(
  {
    ...pageQueryFields(25),
    status: Type.Optional(DatasetStatus),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.datasetNameChars })),
  },
  closed,
);
export type ListDatasetsQuery = Static<typeof ListDatasetsQuery>;
export const DatasetsPage = CursorPage(Dataset);
export type DatasetsPage = Static<typeof DatasetsPage>;

export const DatasetDataQuery = Type.Object(
  {
    ...pageQueryFields(100),
    status: Type.Optional(ParseStatus),
    file_name: Type.Optional(Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.fileNameChars })),
    ...timeFilterFields,
  },
  closed,
);
export type DatasetDataQuery = Static<typeof DatasetDataQuery>;

// ---------------------------------------------------------------------------------------------------------------
// Webhooks (per project)

/** `whsec_` and the base64 of a 24 to 64 byte key (see webhook-signature.ts). */
export const WebhookSecret = Type.String({
  minLength: 38,
  maxLength: 94,
  pattern: "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$",
});

const WebhookEvents = Type.Array(WebhookEventName, { minItems: 1, maxItems: 3, uniqueItems: true });

export const Webhook = Type.Object(
  {
    webhook_id: Type.String(),
    url: Type.String(),
    description: Type.Optional(nullable(Type.String())),
    /** Events delivered to this URL. */
    events: Type.Array(WebhookEventName),
    enabled: Type.Boolean(),
    created_at: Rfc3339,
    updated_at: Rfc3339,
  },
  { $id: "Webhook" },
);
export type Webhook = Static<typeof Webhook>;

/** The webhook as created: the only answer that carries the signing secret. */
export const CreatedWebhook = Type.Object(
  { ...Webhook.properties, secret: Type.String() },
  { $id: "CreatedWebhook" },
);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const CreateWebhookRequest = Type.Object(
  {
    url: HttpUrl,
    /** Generated when left out; shown once, in the create answer. */
    secret: Type.Optional(WebhookSecret),
    /** All events when left out. */
    events: Type.Optional(WebhookEvents),
    description: Type.Optional(nullable(Description)),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { ...closed, $id: "CreateWebhookRequest" },
);
export type CreateWebhookRequest = Static<typeof CreateWebhookRequest>;

/** Every field optional: a field left out keeps its value; `secret` replaces the signing secret. */
export const UpdateWebhookRequest = Type.Object(
  {
    url: Type.Optional(HttpUrl),
    secret: Type.Optional(WebhookSecret),
    events: Type.Optional(WebhookEvents),
    description: Type.Optional(nullable(Description)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { ...closed, $id: "UpdateWebhookRequest" },
);
export type UpdateWebhookRequest = Static<typeof UpdateWebhookRequest>;

/** One attempt to deliver one event; retries of the same message share message_id (the `webhook-id` header). */
export const WebhookDelivery = Type.Object(
  {
    delivery_id: Type.String(),
    webhook_id: Type.String(),
    message_id: Type.String(),
    event: WebhookEventName,
    job_id: Type.String(),
    /** 1 for the first try. */
    attempt: Type.Integer({ minimum: 1 }),
    /** HTTP status of the answer; null when none came (connection error, timeout). */
    status_code: nullable(Type.Integer({ minimum: 100, maximum: 599 })),
    error: nullable(Type.String()),
    succeeded: Type.Boolean(),
    at: Rfc3339,
    next_attempt_at: Type.Optional(nullable(Rfc3339)),
  },
  { $id: "WebhookDelivery" },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookParams = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: DOCUMENT_LIMITS.idChars }),
});
export const ListWebhookDeliveriesQuery = Type.Object(pageQueryFields(50), closed);
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuery>;
export const WebhookDeliveriesPage = CursorPage(WebhookDelivery);
export type WebhookDeliveriesPage = Static<typeof WebhookDeliveriesPage>;

// ---------------------------------------------------------------------------------------------------------------
// Routes

const common = { surface: "control", auth: "apiKey", responseKind: "json" } as const;

function withCommon<const T extends Record<string, object>>(routes: T, tag: string) {
  const out: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(routes)) out[name] = { ...common, tag, ...route };
  return out as { [K in keyof T]: Omit<typeof common, keyof T[K]> & T[K] & { tag: string } };
}

const LISTING_ERRORS = ["INVALID_QUERY_PARAMS", "INVALID_CURSOR"] as const;
const SOURCE_ERRORS = [
  "ENTITY_NOT_FOUND",
  "INVALID_FILE",
  "INVALID_PAGE_RANGE",
  "INVALID_MIME_TYPE",
  "INVALID_CONFIGURATION",
] as const;
const SETTINGS_ERRORS = [
  "INVALID_JSON_SCHEMA",
  "INVALID_PAGE_CLASSIFICATION",
  "INVALID_CONFIGURATION",
] as const;

export const documentRoutes = defineRoutes({
  ...withCommon(
    {
      uploadDocumentFile: {
        method: "PUT",
        path: "/documents/v2/files",
        summary: "Upload a file (multipart part `file` or `file_bytes`, optional `labels` JSON part)",
        bodyKind: "multipart",
        status: 200,
        response: UploadedFile,
        errors: ["INVALID_MULTIPART", "FILE_TOO_LARGE", "INVALID_FILE", "INVALID_MIME_TYPE"],
      },
      listDocumentFiles: {
        method: "GET",
        path: "/documents/v2/files",
        summary: "List the project's uploaded files, newest first",
        query: ListFilesQuery,
        status: 200,
        response: FilesPage,
        errors: LISTING_ERRORS,
      },
      getDocumentFileMetadata: {
        method: "GET",
        path: "/documents/v2/files/{file_id}/metadata",
        summary: "Get an uploaded file's metadata",
        params: FileParams,
        status: 200,
        response: FileMetadata,
        errors: ["ENTITY_NOT_FOUND"],
      },
      deleteDocumentFile: {
        method: "DELETE",
        path: "/documents/v2/files/{file_id}",
        summary: "Delete an uploaded file; results parsed from it stay",
        params: FileParams,
        status: 204,
        responseKind: "empty",
        errors: ["ENTITY_NOT_FOUND"],
      },
    },
    "documents-files",
  ),
  ...withCommon(
    {
      parseDocument: {
        method: "POST",
        path: "/documents/v2/parse",
        summary: "Start a parse job: layout, markdown, and optionally classification, extraction, enrichment",
        body: ParseRequest,
        status: 200,
        response: ParseJob,
        errors: [...SOURCE_ERRORS, ...SETTINGS_ERRORS],
      },
      readDocument: {
        method: "POST",
        path: "/documents/v2/read",
        summary: "Start a read job: a parse without structured extraction and page classification",
        body: ReadRequest,
        status: 200,
        response: ParseJob,
        errors: SOURCE_ERRORS,
      },
      extractDocument: {
        method: "POST",
        path: "/documents/v2/extract",
        summary: "Start an extraction job: a parse that runs only the given structured extractions",
        body: ExtractRequest,
        status: 200,
        response: ParseJob,
        errors: [...SOURCE_ERRORS, "INVALID_JSON_SCHEMA"],
      },
      classifyDocument: {
        method: "POST",
        path: "/documents/v2/classify",
        summary: "Start a classification job: a parse that runs only the given page classification",
        body: ClassifyRequest,
        status: 200,
        response: ParseJob,
        errors: [...SOURCE_ERRORS, "INVALID_PAGE_CLASSIFICATION"],
      },
      editDocument: {
        method: "POST",
        path: "/documents/v2/edit",
        summary: "Form filling: part of the public platform's SDK, not offered by this server (501)",
        body: EditRequest,
        status: 200,
        response: ParseJob,
        errors: ["NOT_IMPLEMENTED"],
      },
      getParseResult: {
        method: "GET",
        path: "/documents/v2/parse/{parse_id}",
        summary:
          "Get a parse job and its result; with Accept: text/event-stream, stream parse_queued, parse_update, " +
          "parse_done and parse_failed events whose data is the ParseResult",
        params: ParseParams,
        status: 200,
        response: ParseResult,
        errors: ["ENTITY_NOT_FOUND"],
      },
      listParseJobs: {
        method: "GET",
        path: "/documents/v2/parse",
        summary: "List the project's parse jobs, newest first",
        query: ListParseJobsQuery,
        status: 200,
        response: ParseResultsPage,
        errors: LISTING_ERRORS,
      },
      deleteParseJob: {
        method: "DELETE",
        path: "/documents/v2/parse/{parse_id}",
        summary: "Delete a parse job and its result",
        params: ParseParams,
        status: 204,
        responseKind: "empty",
        errors: ["ENTITY_NOT_FOUND"],
      },
    },
    "documents-parse",
  ),
  ...withCommon(
    {
      createDataset: {
        method: "POST",
        path: "/documents/v2/datasets",
        summary: "Create a dataset: named parse settings for documents of one kind",
        body: CreateDatasetRequest,
        status: 200,
        response: CreatedDataset,
        errors: ["ENTITY_ALREADY_EXISTS", "INVALID_DATASET_NAME", ...SETTINGS_ERRORS],
      },
      listDatasets: {
        method: "GET",
        path: "/documents/v2/datasets",
        summary: "List the project's datasets",
        query: ListDatasetsQuery,
        status: 200,
        response: DatasetsPage,
        errors: LISTING_ERRORS,
      },
      getDataset: {
        method: "GET",
        path: "/documents/v2/datasets/{dataset_id}",
        summary: "Get a dataset; include_analytics=true adds its job counts",
        params: DatasetParams,
        query: GetDatasetQuery,
        status: 200,
        response: Dataset,
        errors: ["ENTITY_NOT_FOUND", "INVALID_QUERY_PARAMS"],
      },
      updateDataset: {
        method: "PUT",
        path: "/documents/v2/datasets/{dataset_id}",
        summary: "Rename a dataset or change its settings; later jobs only",
        params: DatasetParams,
        body: UpdateDatasetRequest,
        status: 200,
        response: Dataset,
        errors: ["ENTITY_NOT_FOUND", "ENTITY_ALREADY_EXISTS", "INVALID_DATASET_NAME", ...SETTINGS_ERRORS],
      },
      deleteDataset: {
        method: "DELETE",
        path: "/documents/v2/datasets/{dataset_id}",
        summary: "Delete a dataset",
        params: DatasetParams,
        status: 204,
        responseKind: "empty",
        errors: ["ENTITY_NOT_FOUND"],
      },
      parseWithDataset: {
        method: "POST",
        path: "/documents/v2/datasets/{dataset_id}/parse",
        summary: "Start a parse job with a dataset's settings",
        params: DatasetParams,
        body: DatasetParseRequest,
        status: 200,
        response: ParseJob,
        errors: SOURCE_ERRORS,
      },
      listDatasetData: {
        method: "GET",
        path: "/documents/v2/datasets/{dataset_id}/data",
        summary: "List the parse results of a dataset, newest first",
        params: DatasetParams,
        query: DatasetDataQuery,
        status: 200,
        response: ParseResultsPage,
        errors: ["ENTITY_NOT_FOUND", ...LISTING_ERRORS],
      },
    },
    "documents-datasets",
  ),
  ...withCommon(
    {
      createWebhook: {
        method: "POST",
        path: "/documents/v2/webhooks",
        summary: "Register a URL for parse job events; the answer carries the signing secret, once",
        body: CreateWebhookRequest,
        status: 201,
        response: CreatedWebhook,
        errors: ["INVALID_CONFIGURATION"],
      },
      listWebhooks: {
        method: "GET",
        path: "/documents/v2/webhooks",
        summary: "List the project's webhooks",
        status: 200,
        response: Type.Object({ webhooks: Type.Array(Webhook) }),
      },
      getWebhook: {
        method: "GET",
        path: "/documents/v2/webhooks/{webhook_id}",
        summary: "Get a webhook",
        params: WebhookParams,
        status: 200,
        response: Webhook,
        errors: ["ENTITY_NOT_FOUND"],
      },
      updateWebhook: {
        method: "PUT",
        path: "/documents/v2/webhooks/{webhook_id}",
        summary: "Change a webhook's URL, events, secret or enabled flag",
        params: WebhookParams,
        body: UpdateWebhookRequest,
        status: 200,
        response: Webhook,
        errors: ["ENTITY_NOT_FOUND", "INVALID_CONFIGURATION"],
      },
      deleteWebhook: {
        method: "DELETE",
        path: "/documents/v2/webhooks/{webhook_id}",
        summary: "Delete a webhook; pending retries are dropped",
        params: WebhookParams,
        status: 204,
        responseKind: "empty",
        errors: ["ENTITY_NOT_FOUND"],
      },
      listWebhookDeliveries: {
        method: "GET",
        path: "/documents/v2/webhooks/{webhook_id}/deliveries",
        summary: "List a webhook's delivery attempts, newest first",
        params: WebhookParams,
        query: ListWebhookDeliveriesQuery,
        status: 200,
        response: WebhookDeliveriesPage,
        errors: ["ENTITY_NOT_FOUND", ...LISTING_ERRORS],
      },
    },
    "documents-webhooks",
  ),
});
