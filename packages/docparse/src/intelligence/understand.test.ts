import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ENRICHMENT_OPTION_DEFAULTS, type EnrichmentOptions } from "@svc/contract";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { loadDocument } from "../index.ts";
import { OpenAiProvider } from "../providers/openai.ts";
import { startProtocolServer } from "../providers/protocol-server.testing.ts";
import { PROVIDER_DEFAULTS } from "../providers/provider.ts";
import { type ExtractionTask, UnderstandingError, understandDocument } from "./understand.ts";

const INVOICE = [
  "# Invoice",
  "",
  "Invoice Number: INV-2041",
  "",
  "Invoice Date: 2026-03-14",
  "",
  "Vendor: Northwind Traders",
  "",
  "Total Due: $1,234.50",
  "",
  "\f",
  "# Annual report",
  "",
  "Our revenue grew in every quarter of the year, and the board thanks the staff.",
].join("\n");

const schema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    total_due: { type: "number" },
    vendor: { type: "string" },
  },
  required: ["invoice_number", "total_due", "vendor"],
};

function task(extra: Partial<ExtractionTask> = {}): ExtractionTask {
  return {
    schemaName: "invoice",
    jsonSchema: schema,
    prompt: null,
    partitionStrategy: "none",
    pageClasses: null,
    provideCitations: true,
    provider: null,
    ...extra,
  };
}

const noEnrichment = null as Required<EnrichmentOptions> | null;
const classes = [
  { name: "invoice", description: "An invoice: a bill with an invoice number, amounts and a total due" },
  { name: "report", description: "A narrative annual report about revenue and the year" },
];

describe("understandDocument", () => {
  test("offline: classification, then extraction limited to the invoice pages, with citations", async () => {
    const model = await loadDocument({ text: INVOICE, mimeType: "text/plain" });
    assert.ok(model.pages.length >= 2, "the form feed makes two pages");
    const result = await understandDocument(model, {
      pageClassifications: classes,
      extractions: [task({ pageClasses: ["invoice"] })],
      enrichment: noEnrichment,
      source: { bytes: null, mimeType: "text/plain" },
      pages: null,
      classificationProvider: null,
      enrichmentProvider: null,
    });
    assert.deepEqual(
      result.page_classes?.map((entry) => [entry.page_class, entry.page_numbers]),
      [
        ["invoice", [1]],
        ["report", [2]],
      ],
    );
    const [entry] = result.structured_data ?? [];
    assert.deepEqual(entry.page_numbers, [1]);
    assert.deepEqual(entry.data, {
      invoice_number: "INV-2041",
      total_due: 1234.5,
      vendor: "Northwind Traders",
    });
    assert.ok(
      entry.citations?.some((citation) => citation.field === "/total_due" && citation.page_number === 1),
    );
    assert.deepEqual(result.usage, { extraction: [], summarization: [] });
  });

  test("the page range limits classification", async () => {
    const model = await loadDocument({ text: INVOICE, mimeType: "text/plain" });
    const result = await understandDocument(model, {
      pageClassifications: classes,
      extractions: null,
      enrichment: noEnrichment,
      source: { bytes: null, mimeType: "text/plain" },
      pages: [2],
      classificationProvider: null,
      enrichmentProvider: null,
    });
    assert.deepEqual(result.page_classes?.[0].page_numbers, []);
    assert.deepEqual(result.page_classes?.[1].page_numbers, [2]);
  });
});

// The provider here is our OpenAI-compatible adapter talking to a loopback server with fixed answers: these
// tests check the orchestration's requests, validation, retry and usage, not a model.
describe("understandDocument with a provider (loopback protocol server, not a model)", () => {
  let server: Awaited<ReturnType<typeof startProtocolServer>>;
  const answers: string[] = [];
  /** An answer chosen by the request's text, for calls that run concurrently (pages classified at once). */
  let answerFor: ((request: string) => string | undefined) | null = null;
  before(async () => {
    server = await startProtocolServer((request) => {
      const content = answerFor?.(JSON.stringify(request.body)) ?? answers.shift() ?? "{}";
      return {
        json: {
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
        },
      };
    });
  });
  after(() => server.close());

  const provider = () =>
    new OpenAiProvider(
      "gpt_4o_mini",
      { kind: "openai", baseUrl: server.url, model: "m", apiKey: null, ...PROVIDER_DEFAULTS },
      { sleep: async () => {} },
    );

  test("an answer outside the schema is asked for once more; the valid one is kept and cited", async () => {
    answers.push('{"invoice_number": 2041, "total_due": "lots", "vendor": null}');
    answers.push('{"invoice_number": "INV-2041", "total_due": 1234.5, "vendor": "Northwind Traders"}');
    const model = await loadDocument({ text: INVOICE, mimeType: "text/plain" });
    const before = server.received.length;
    const result = await understandDocument(model, {
      pageClassifications: null,
      extractions: [task({ provider: provider(), partitionStrategy: "page", prompt: "Read the invoice." })],
      enrichment: noEnrichment,
      source: { bytes: null, mimeType: "text/plain" },
      pages: [1],
      classificationProvider: null,
      enrichmentProvider: null,
    });
    assert.equal(server.received.length - before, 2);
    const first = server.received[before].body as { messages: { role: string; content: string }[] };
    assert.match(first.messages[1].content, /^Read the invoice\./);
    assert.match(first.messages[1].content, /Invoice Number: INV-2041/);
    assert.doesNotMatch(first.messages[1].content, /Annual report/);
    const retry = server.received[before + 1].body as { messages: { content: string }[] };
    assert.match(retry.messages[1].content, /did not fit the schema: \/invoice_number: expected string/);
    const [entry] = result.structured_data ?? [];
    assert.deepEqual(entry.data, {
      invoice_number: "INV-2041",
      total_due: 1234.5,
      vendor: "Northwind Traders",
    });
    assert.deepEqual(entry.page_numbers, [1]);
    assert.ok(entry.citations?.some((citation) => citation.field === "/invoice_number"));
    assert.deepEqual(result.usage.extraction, [["gpt_4o_mini", { inputTokens: 200, outputTokens: 20 }]]);
  });

  test("two answers outside the schema fail with a message naming the provider", async () => {
    answers.push("not json", '{"invoice_number": []}');
    const model = await loadDocument({ text: INVOICE, mimeType: "text/plain" });
    await assert.rejects(
      understandDocument(model, {
        pageClassifications: null,
        extractions: [task({ provider: provider() })],
        enrichment: noEnrichment,
        source: { bytes: null, mimeType: "text/plain" },
        pages: null,
        classificationProvider: null,
        enrichmentProvider: null,
      }),
      (error: Error) =>
        error instanceof UnderstandingError && /gpt_4o_mini answered twice/.test(error.message),
    );
  });

  test("classification through a provider: one call per page, the class and reason it names", async () => {
    answerFor = (request) =>
      request.includes("Page 1:")
        ? '{"page_class": "invoice", "reason": "invoice number and total due"}'
        : '{"page_class": "none", "reason": "narrative"}';
    const model = await loadDocument({ text: INVOICE, mimeType: "text/plain" });
    const before = server.received.length;
    const result = await understandDocument(model, {
      pageClassifications: classes,
      extractions: null,
      enrichment: noEnrichment,
      source: { bytes: null, mimeType: "text/plain" },
      pages: null,
      classificationProvider: provider(),
      enrichmentProvider: null,
    });
    assert.equal(server.received.length - before, 2);
    const sent = server.received[before].body as {
      response_format: { json_schema: { schema: { properties: { page_class: { enum: unknown[] } } } } };
    };
    assert.deepEqual(sent.response_format.json_schema.schema.properties.page_class.enum, [
      "invoice",
      "report",
      "none",
      null,
    ]);
    answerFor = null;
    assert.deepEqual(result.page_classes, [
      {
        page_class: "invoice",
        page_numbers: [1],
        classification_reasons: { "1": "invoice number and total due" },
      },
      { page_class: "report", page_numbers: [], classification_reasons: {} },
    ]);
  });

  test("enrichment through a provider: the table summary is the provider's answer to the request's prompt", async () => {
    answers.push("Two products; Widgets sold the most.");
    const model = await loadDocument({
      text: "# Sales\n\n| Product | Units |\n|---|---|\n| Widgets | 40 |\n| Gadgets | 12 |\n",
      mimeType: "text/markdown",
    });
    const before = server.received.length;
    const result = await understandDocument(model, {
      pageClassifications: null,
      extractions: null,
      enrichment: {
        ...ENRICHMENT_OPTION_DEFAULTS,
        table_summarization: true,
        table_summarization_prompt: "Say which product sold the most.",
      },
      source: { bytes: null, mimeType: "text/markdown" },
      pages: null,
      classificationProvider: null,
      enrichmentProvider: provider(),
    });
    assert.equal(server.received.length - before, 1);
    const sent = server.received[before].body as { messages: { content: string }[] };
    assert.match(sent.messages[1].content, /^Say which product sold the most\./);
    assert.match(sent.messages[1].content, /\| Widgets \| 40 \|/);
    const table = model.items.find((item) => item.label === "table");
    assert.equal(
      table && "summary" in table ? table.summary : undefined,
      "Two products; Widgets sold the most.",
    );
    assert.deepEqual(result.usage.summarization, [["gpt_4o_mini", { inputTokens: 100, outputTokens: 10 }]]);
  });

  test("skip_ocr on a vision provider sends a PDF's pages as PNG pictures instead of their text", async () => {
    answers.push('{"invoice_number": "INV-9", "total_due": 5, "vendor": null}');
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage([300, 200]).drawText("Invoice Number: INV-9", { x: 20, y: 150, size: 12, font });
    const bytes = new Uint8Array(await pdf.save());
    const model = await loadDocument({ bytes, mimeType: "application/pdf" });
    const vision = new OpenAiProvider(
      "vision",
      { kind: "openai", baseUrl: server.url, model: "m", apiKey: null, ...PROVIDER_DEFAULTS, vision: true },
      { sleep: async () => {} },
    );
    const before = server.received.length;
    const result = await understandDocument(model, {
      pageClassifications: null,
      extractions: [task({ provider: vision, skipOcr: true, provideCitations: false })],
      enrichment: noEnrichment,
      source: { bytes, mimeType: "application/pdf" },
      pages: null,
      classificationProvider: null,
      enrichmentProvider: null,
    });
    const sent = server.received[before].body as { messages: { content: unknown }[] };
    const parts = sent.messages[1].content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.equal(parts[0].type, "text");
    assert.doesNotMatch(parts[0].text ?? "", /INV-9/, "the text is not sent");
    assert.equal(parts.length, 2);
    assert.match(parts[1].image_url?.url ?? "", /^data:image\/png;base64,iVBORw0KGgo/);
    assert.deepEqual(result.structured_data?.[0].data, {
      invoice_number: "INV-9",
      total_due: 5,
      vendor: null,
    });
  });
});
