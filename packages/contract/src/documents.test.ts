import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import fastJson from "fast-json-stringify";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";
import {
  CreateDatasetRequest,
  CreateWebhookRequest,
  canonicalModelProvider,
  DatasetParseRequest,
  DOCUMENT_LIMITS,
  documentRoutes,
  ENRICHMENT_OPTION_DEFAULTS,
  EnrichmentOptions,
  GetDatasetQuery,
  isForward,
  ListParseJobsQuery,
  MODEL_PROVIDERS,
  PARSING_OPTION_DEFAULTS,
  ParseRequest,
  ParseResult,
  ParseStatus,
  ParsingOptions,
  ReadRequest,
  STRUCTURED_EXTRACTION_DEFAULTS,
  UpdateDatasetRequest,
} from "./documents.ts";
import { errorCatalog } from "./errors.ts";
import type { RouteDef } from "./route.ts";
import { WebhookPayload } from "./webhook-signature.ts";

const check = (schema: TSchema, value: unknown) => Compile(schema).Check(value);

const invoiceSchema = {
  type: "object",
  properties: { total: { type: "number" }, vendor: { type: "string" } },
  required: ["total", "vendor"],
};

const fullParseRequest = {
  file_id: "file_abc123",
  page_range: "1-5,8,10",
  file_name: "invoice.pdf",
  mime_type: "application/pdf",
  parsing_options: {
    table_output_mode: "markdown",
    table_parsing_format: "vlm",
    chunking_strategy: "section",
    signature_detection: true,
    remove_strikethrough_lines: true,
    skew_detection: true,
    disable_layout_detection: false,
    ignore_sections: ["page_header", "page_footer"],
    cross_page_header_detection: true,
    include_images: true,
    barcode_detection: true,
    table_merging: true,
    ocr_model: "gemini3",
    ocr_languages: ["kor", "eng"],
  },
  structured_extraction_options: [
    {
      schema_name: "invoice",
      json_schema: invoiceSchema,
      skip_ocr: false,
      prompt: "Extract the invoice",
      model_provider: "claude-3-5-sonnet-latest",
      partition_strategy: { patterns: { start_patterns: ["INVOICE"], end_patterns: null } },
      page_classes: ["invoice"],
      provide_citations: true,
    },
  ],
  page_classifications: [{ name: "invoice", description: "A page of an invoice" }],
  enrichment_options: {
    table_summarization: true,
    table_summarization_prompt: "Summarize",
    figure_summarization: true,
    figure_summarization_prompt: null,
    chart_extraction: true,
    include_full_page_image: true,
  },
  labels: { source: "email", priority: "high" },
};

test("a parse request with every field validates", () => {
  assert.equal(check(ParseRequest, fullParseRequest), true);
  assert.equal(check(ParseRequest, { file_url: "https://example.com/a.pdf" }), true);
  assert.equal(check(ParseRequest, { raw_text: "Hello", mime_type: "text/plain", labels: null }), true);
});

test("parse requests with bad values are rejected", () => {
  const bad: Record<string, unknown>[] = [
    { ...fullParseRequest, unknown_field: 1 },
    { ...fullParseRequest, mime_type: "application/x-unknown" },
    { ...fullParseRequest, mime_type: "APPLICATION/PDF" },
    { ...fullParseRequest, file_id: "abc" },
    { ...fullParseRequest, file_id: undefined, file_url: "file:///etc/passwd" },
    { ...fullParseRequest, parsing_options: { chunking_strategy: "paragraph" } },
    { ...fullParseRequest, parsing_options: { ocr_model: "model04" } },
    { ...fullParseRequest, parsing_options: { ocr_languages: ["klingon"] } },
    { ...fullParseRequest, parsing_options: { ocr_languages: ["eng", "eng"] } },
    { ...fullParseRequest, parsing_options: { ocr_languages: "eng" } },
    { ...fullParseRequest, parsing_options: { table_output_mode: "json" } },
    { ...fullParseRequest, parsing_options: { ignore_sections: ["text", "text"] } },
    { ...fullParseRequest, parsing_options: { ignore_sections: ["paragraph"] } },
    { ...fullParseRequest, parsing_options: { typo: true } },
    { ...fullParseRequest, enrichment_options: { table_summarisation: true } },
    { ...fullParseRequest, labels: { n: 1 } },
    { ...fullParseRequest, labels: { "": "empty key" } },
    { ...fullParseRequest, labels: { k: "v".repeat(DOCUMENT_LIMITS.labelValueChars + 1) } },
    { ...fullParseRequest, labels: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
    { ...fullParseRequest, page_range: "1,".repeat(600) },
    { raw_text: "x".repeat(DOCUMENT_LIMITS.rawTextChars + 1) },
    { ...fullParseRequest, page_classifications: [{ name: "a" }] },
    { ...fullParseRequest, structured_extraction_options: [{ schema_name: "a" }] },
    { ...fullParseRequest, structured_extraction_options: [{ schema_name: "a", json_schema: "{}" }] },
    {
      ...fullParseRequest,
      structured_extraction_options: [{ schema_name: "a", json_schema: {}, model_provider: "not a name" }],
    },
    {
      ...fullParseRequest,
      structured_extraction_options: [{ schema_name: "a", json_schema: {}, partition_strategy: "chapter" }],
    },
    {
      ...fullParseRequest,
      structured_extraction_options: Array.from({ length: 21 }, (_, i) => ({
        schema_name: `s${i}`,
        json_schema: {},
      })),
    },
    {
      ...fullParseRequest,
      structured_extraction_options: [
        {
          schema_name: "a",
          json_schema: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 1])),
        },
      ],
    },
  ];
  for (const [index, value] of bad.entries())
    assert.equal(check(ParseRequest, value), false, `case ${index}`);
});

test("a read request has no extraction or classification", () => {
  const { structured_extraction_options, page_classifications, ...read } = fullParseRequest;
  assert.equal(check(ReadRequest, read), true);
  assert.equal(check(ReadRequest, { ...read, structured_extraction_options }), false);
  assert.equal(check(ReadRequest, { ...read, page_classifications }), false);
  assert.equal(check(ReadRequest, { ...read, typo: 1 }), false);
});

test("parsing and enrichment options default to the spec's values", () => {
  const parsing = {
    table_output_mode: "html",
    table_parsing_format: "tsr",
    chunking_strategy: "none",
    signature_detection: false,
    remove_strikethrough_lines: false,
    skew_detection: false,
    disable_layout_detection: false,
    ignore_sections: [],
    cross_page_header_detection: false,
    include_images: false,
    barcode_detection: false,
    table_merging: false,
    ocr_model: "model03",
    ocr_languages: [],
  };
  assert.deepEqual(Value.Default(ParsingOptions, {}), parsing);
  assert.deepEqual(PARSING_OPTION_DEFAULTS, parsing);
  assert.deepEqual(Value.Default(ParsingOptions, { chunking_strategy: "page" }), {
    ...parsing,
    chunking_strategy: "page",
  });
  assert.deepEqual(STRUCTURED_EXTRACTION_DEFAULTS, {
    skip_ocr: false,
    model_provider: "tensorlake",
    partition_strategy: "none",
    provide_citations: false,
  });
  const enrichment = Value.Default(EnrichmentOptions, {}) as Record<string, unknown>;
  for (const [field, value] of Object.entries(ENRICHMENT_OPTION_DEFAULTS)) {
    assert.equal(enrichment[field] ?? null, value, field);
  }
});

test("model provider aliases are accepted and mapped to the canonical names", () => {
  for (const name of [...MODEL_PROVIDERS, "gpt4o_mini", "gpt-4o-mini", "claude-3-5-sonnet-latest"] as const) {
    const options = [{ schema_name: "a", json_schema: invoiceSchema, model_provider: name }];
    assert.equal(
      check(ParseRequest, { file_id: "file_a", structured_extraction_options: options }),
      true,
      name,
    );
  }
  assert.equal(canonicalModelProvider("gpt4o_mini"), "gpt_4o_mini");
  assert.equal(canonicalModelProvider("gpt-4o-mini"), "gpt_4o_mini");
  assert.equal(canonicalModelProvider("claude-3-5-sonnet-latest"), "sonnet");
  assert.equal(canonicalModelProvider("gemini3"), "gemini3");
  assert.equal(canonicalModelProvider("tensorlake"), "tensorlake");
});

test("datasets: create needs a name, update takes any subset, dataset parse takes a source only", () => {
  assert.equal(
    check(CreateDatasetRequest, { name: "invoices", parsing_options: { chunking_strategy: "page" } }),
    true,
  );
  assert.equal(check(CreateDatasetRequest, { description: "no name" }), false);
  assert.equal(check(CreateDatasetRequest, { name: "x".repeat(101) }), false);
  assert.equal(check(UpdateDatasetRequest, {}), true);
  assert.equal(check(UpdateDatasetRequest, { name: "renamed", description: null }), true);
  assert.equal(check(UpdateDatasetRequest, { settings: {} }), false);
  assert.equal(check(DatasetParseRequest, { file_id: "file_a", page_range: "1", labels: { a: "b" } }), true);
  assert.equal(check(DatasetParseRequest, { file_id: "file_a", parsing_options: {} }), false);
  assert.equal(check(GetDatasetQuery, { include_analytics: true }), true);
  assert.equal(check(GetDatasetQuery, { include_analytics: "yes" }), false);
});

test("list queries are closed and bounded", () => {
  assert.equal(check(ListParseJobsQuery, { status: "successful", limit: 10, direction: "prev" }), true);
  assert.equal(check(ListParseJobsQuery, { created_after: "2025-01-01T00:00:00Z", dataset_name: "d" }), true);
  assert.equal(check(ListParseJobsQuery, { limit: 0 }), false);
  assert.equal(check(ListParseJobsQuery, { limit: DOCUMENT_LIMITS.listLimit + 1 }), false);
  assert.equal(check(ListParseJobsQuery, { status: "done" }), false);
  assert.equal(check(ListParseJobsQuery, { created_after: "yesterday" }), false);
  assert.equal(check(ListParseJobsQuery, { page: 2 }), false);
  assert.equal(isForward(undefined), true);
  assert.equal(isForward("next"), true);
  assert.equal(isForward("backward"), false);
});

test("webhook create: http(s) URL, whsec_ secret, known events", () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  assert.equal(check(CreateWebhookRequest, { url: "https://example.com/hook" }), true);
  assert.equal(
    check(CreateWebhookRequest, {
      url: "http://localhost:8080/h",
      secret,
      events: ["document_ingestion.job.failed"],
    }),
    true,
  );
  assert.equal(check(CreateWebhookRequest, { url: "ftp://example.com" }), false);
  assert.equal(check(CreateWebhookRequest, { url: "https://e.com", secret: "hunter2" }), false);
  assert.equal(check(CreateWebhookRequest, { url: "https://e.com", events: [] }), false);
  assert.equal(
    check(CreateWebhookRequest, { url: "https://e.com", events: ["document_ingestion.job.done"] }),
    false,
  );
});

const parseResult = {
  parse_id: "parse_1",
  status: "successful",
  created_at: "2025-01-01T00:00:00Z",
  finished_at: "2025-01-01T00:00:05Z",
  error: null,
  labels: { a: "b" },
  dataset_id: null,
  parsed_pages_count: 1,
  total_pages: 1,
  chunks: [{ page_number: 1, content: "# Title" }],
  pages: [
    {
      page_number: 1,
      dimensions: [612, 792],
      page_dimensions: { width: 612, height: 792 },
      page_fragments: [
        {
          fragment_type: "table",
          content: {
            content: "a b",
            html: "<table></table>",
            markdown: "| a | b |",
            cells: [{ text: "a", bounding_box: { x1: 0, y1: 0, x2: 1, y2: 1 } }],
            summary: null,
          },
          reading_order: 1,
          bbox: { x1: 0, y1: 0, x2: 10, y2: 10 },
        },
        { fragment_type: "section_header", content: { level: 1, content: "Title" }, reading_order: 0 },
        { fragment_type: "figure", content: { content: "", summary: "A chart" } },
      ],
    },
  ],
  page_classes: [{ page_class: "invoice", page_numbers: [1] }],
  structured_data: [{ schema_name: "invoice", data: { total: 1 }, page_numbers: [1] }],
  merged_tables: [],
  usage: { pages_parsed: 1 },
};

test("a parse result validates, and bad ones do not", () => {
  assert.equal(check(ParseResult, parseResult), true);
  assert.equal(check(ParseResult, { ...parseResult, status: "done" }), false);
  const badFragment = structuredClone(parseResult);
  (badFragment.pages[0].page_fragments[0] as { fragment_type: string }).fragment_type = "paragraph";
  assert.equal(check(ParseResult, badFragment), false);
  const badBox = structuredClone(parseResult);
  (badBox.pages[0].page_fragments[0] as { bbox: unknown }).bbox = { x: 1 };
  assert.equal(check(ParseResult, badBox), false);
});

test("serializing a parse result keeps table and header content", () => {
  const serialize = fastJson(ParseResult as object);
  const round = JSON.parse(serialize(parseResult));
  assert.deepEqual(round.pages[0].page_fragments, parseResult.pages[0].page_fragments);
  assert.deepEqual(round.structured_data, parseResult.structured_data);
});

test("the webhook payload's status values are the parse statuses", () => {
  const statuses = (schema: TSchema) => (schema as unknown as { enum: string[] }).enum;
  assert.deepEqual(statuses(WebhookPayload.properties.status), statuses(ParseStatus));
});

const routes: Record<string, RouteDef> = documentRoutes;

test("document routes are consistent", () => {
  const seen = new Set<string>();
  for (const [name, route] of Object.entries(routes)) {
    assert.ok(route.path.startsWith("/documents/v2/"), name);
    assert.equal(route.surface, "control", name);
    assert.equal(route.auth, "apiKey", name);
    assert.match(route.tag, /^documents-(files|parse|datasets|webhooks)$/, name);
    const key = `${route.method} ${route.path}`;
    assert.ok(!seen.has(key), `${key} declared twice`);
    seen.add(key);
    for (const code of route.errors ?? []) assert.ok(Object.hasOwn(errorCatalog, code), `${name}: ${code}`);
    const placeholders = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const params = Object.keys(
      (route.params as { properties?: object } | undefined)?.properties ?? {},
    ).sort();
    assert.deepEqual(params, placeholders, `${name} params`);
    if (route.status === 204) assert.equal(route.responseKind, "empty", name);
    else assert.ok(route.response, `${name} has a response schema`);
    if (route.method === "POST" || route.method === "PUT") {
      assert.ok(route.body || route.bodyKind === "multipart", `${name} has a body`);
    }
  }
  assert.equal(routes.uploadDocumentFile.bodyKind, "multipart");
  assert.equal(routes.deleteDocumentFile.status, 204);
});

test("every route schema compiles in strict Ajv, as a server would use it", () => {
  for (const [name, route] of Object.entries(routes)) {
    for (const part of ["params", "query", "body", "response"] as const) {
      const schema = route[part];
      if (!schema) continue;
      const ajv = new Ajv({ strict: true, strictTypes: true, allErrors: true, useDefaults: true });
      addFormats.default(ajv);
      assert.doesNotThrow(() => ajv.compile(schema), `${name}.${part}`);
    }
  }
  const ajv = new Ajv({ strict: true, useDefaults: true });
  addFormats.default(ajv);
  const validate = ajv.compile(ParseRequest);
  const body: Record<string, unknown> = { file_id: "file_a", parsing_options: {} };
  assert.equal(validate(body), true);
  assert.equal((body.parsing_options as Record<string, unknown>).ocr_model, "model03");
});
