import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { startProtocolServer } from "@svc/docparse/protocol-server";
import { corpusPath, NO_CORPUS } from "@svc/docparse/test-corpus";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

/**
 * Document intelligence through the HTTP API: page classification, structured extraction with citations,
 * datasets that carry these settings, model provider names, and a provider configured to a loopback
 * OpenAI-compatible server (which returns a fixed answer: the test checks our request and our handling of the
 * answer, not a model).
 */

/** A two-page invoice: header fields, a ruled line-item table and a total on page 1; terms in prose on page 2. */
async function invoicePdf(): Promise<Uint8Array<ArrayBuffer>> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const page = pdf.addPage([612, 792]);
  page.drawText("INVOICE", { x: 72, y: 720, size: 24, font: bold });
  const fields = ["Invoice Number: INV-7731", "Invoice Date: 2026-02-03", "Bill To: Contoso Ltd"];
  fields.forEach((line, index) => {
    page.drawText(line, { x: 72, y: 680 - index * 18, size: 11, font: regular });
  });
  const rows = [
    ["Description", "Quantity", "Amount"],
    ["Consulting hours", "10", "950.00"],
    ["Travel expenses", "1", "230.00"],
  ];
  const [left, top, width, height] = [72, 600, 150, 22];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      page.drawText(cell, {
        x: left + c * width + 6,
        y: top - (r + 1) * height + 7,
        size: 11,
        font: r === 0 ? bold : regular,
      });
    });
  });
  for (let r = 0; r <= rows.length; r++) {
    page.drawLine({
      start: { x: left, y: top - r * height },
      end: { x: left + 3 * width, y: top - r * height },
    });
  }
  for (let c = 0; c <= 3; c++) {
    page.drawLine({
      start: { x: left + c * width, y: top },
      end: { x: left + c * width, y: top - rows.length * height },
    });
  }
  page.drawText("Total Due: 1,180.00", { x: 72, y: 500, size: 11, font: regular });
  const terms = pdf.addPage([612, 792]);
  terms.drawText("Terms and Conditions", { x: 72, y: 720, size: 18, font: bold });
  terms.drawText("These terms govern the services described. Either party may end the agreement", {
    x: 72,
    y: 690,
    size: 11,
    font: regular,
  });
  terms.drawText("with thirty days written notice. Disputes are settled under the laws of the state.", {
    x: 72,
    y: 675,
    size: 11,
    font: regular,
  });
  return new Uint8Array(await pdf.save());
}

const invoiceSchema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    invoice_date: { type: "string", description: "The invoice date, ISO 8601" },
    total_due: { type: "number" },
    line_items: {
      type: "array",
      items: {
        type: "object",
        properties: {
          description: { type: "string" },
          quantity: { type: "number" },
          amount: { type: "number" },
        },
        required: ["description", "quantity", "amount"],
      },
    },
  },
  required: ["invoice_number", "invoice_date", "total_due", "line_items"],
};

const pageClassifications = [
  {
    name: "invoice",
    description: "An invoice: a bill with an invoice number, line items, amounts and a total due",
  },
  { name: "terms", description: "Terms and conditions of an agreement, in prose" },
];

describe("document intelligence through the API (offline provider)", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  let invoiceFileId: string;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50 } });
    api = documentsApi(server);
    const upload = await api.upload(await invoicePdf(), "invoice.pdf", { type: "application/pdf" });
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    invoiceFileId = upload.body.file_id;
  });
  after(() => server.stop());

  test("a corpus PDF's pages are classified within the page range, with reasons", {
    skip: NO_CORPUS,
  }, async () => {
    const bytes = new Uint8Array(await readFile(corpusPath("docling/tests/data/pdf/sources/multi_page.pdf")));
    const upload = await api.upload(bytes, "multi_page.pdf", { type: "application/pdf" });
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      page_range: "1-3",
      page_classifications: [
        {
          name: "history",
          description: "A history of word processors and typewriters, with eras and milestones",
        },
        pageClassifications[0],
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.deepEqual(
      result.page_classes?.map((entry) => [entry.page_class, entry.page_numbers]),
      [
        ["history", [1, 2, 3]],
        ["invoice", []],
      ],
    );
    assert.deepEqual(Object.keys(result.page_classes?.[0].classification_reasons ?? {}), ["1", "2", "3"]);
    // Each page also carries the reason of the class it was put in.
    assert.match(result.pages?.[1].classification_reason ?? "", /^history: /);
    assert.match(result.page_classes?.[0].classification_reasons?.["1"] ?? "", /typewrit/);
    assert.equal(result.structured_data, null);
  });

  test("extraction limited to the invoice pages, with citations pointing at page 1's boxes", async () => {
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: invoiceFileId,
      page_classifications: pageClassifications,
      structured_extraction_options: [
        {
          schema_name: "invoice",
          json_schema: invoiceSchema,
          page_classes: ["invoice"],
          provide_citations: true,
        },
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.deepEqual(
      result.page_classes?.map((entry) => [entry.page_class, entry.page_numbers]),
      [
        ["invoice", [1]],
        ["terms", [2]],
      ],
    );
    assert.equal(result.structured_data?.length, 1);
    const [entry] = result.structured_data ?? [];
    assert.equal(entry.schema_name, "invoice");
    assert.deepEqual(entry.page_numbers, [1]);
    const data = entry.data as Record<string, unknown>;
    assert.equal(data.invoice_number, "INV-7731");
    assert.equal(data.invoice_date, "2026-02-03");
    assert.equal(data.total_due, 1180);
    assert.deepEqual(data.line_items, [
      { description: "Consulting hours", quantity: 10, amount: 950 },
      { description: "Travel expenses", quantity: 1, amount: 230 },
    ]);
    const cited = new Map((entry.citations ?? []).map((citation) => [citation.field, citation]));
    const number = cited.get("/invoice_number");
    assert.ok(number, JSON.stringify(entry.citations));
    assert.equal(number.page_number, 1);
    assert.ok(number.bbox && number.bbox.x2 > number.bbox.x1 && number.bbox.y2 > number.bbox.y1);
    assert.match(number.text, /INV-7731/);
    assert.ok(cited.has("/line_items/1/amount"), JSON.stringify([...cited.keys()]));
    assert.equal(result.usage?.model_providers, undefined);
  });

  test("a dataset applies its classification and extraction settings to parses into it", async () => {
    const dataset = await api.expect(200, "POST", "/documents/v2/datasets", {
      name: "invoices",
      page_classifications: pageClassifications,
      structured_extraction_options: [
        {
          schema_name: "totals",
          json_schema: {
            type: "object",
            properties: { invoice_number: { type: "string" }, total_due: { type: "number" } },
            required: ["invoice_number", "total_due"],
          },
          partition_strategy: "page",
          model_provider: "tensorlake",
        },
      ],
    });
    const { parse_id } = await api.expect(200, "POST", `/documents/v2/datasets/${dataset.dataset_id}/parse`, {
      file_id: invoiceFileId,
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(result.dataset_id, dataset.dataset_id);
    assert.deepEqual(result.page_classes?.[1], {
      page_class: "terms",
      page_numbers: [2],
      classification_reasons: result.page_classes?.[1].classification_reasons,
    });
    // One entry per page: the invoice's values on page 1, nothing invented for page 2.
    assert.deepEqual(
      result.structured_data?.map((entry) => [entry.schema_name, entry.page_numbers, entry.data]),
      [
        ["totals", [1], { invoice_number: "INV-7731", total_due: 1180 }],
        ["totals", [2], { invoice_number: null, total_due: null }],
      ],
    );
  });

  test("a read job applies enrichment offline: a table summary and page images", async () => {
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/read", {
      file_id: invoiceFileId,
      enrichment_options: { table_summarization: true, include_full_page_image: true },
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    const table = result.pages?.[0].page_fragments?.find((fragment) => fragment.fragment_type === "table");
    assert.ok(table, "the invoice's table is a table fragment");
    assert.match((table.content as { summary?: string }).summary ?? "", /Amount/);
    for (const page of result.pages ?? []) {
      assert.ok(
        Buffer.from(page.page_image ?? "", "base64")
          .subarray(0, 4)
          .equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])),
      );
    }
    assert.equal(result.page_classes, undefined);
    assert.equal(result.structured_data, undefined);
  });

  test("a page range beyond the document fails the job as bad input, classification or not", async () => {
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: invoiceFileId,
      page_range: "3",
      page_classifications: pageClassifications,
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /INVALID_PAGE_RANGE.*has 2 pages/);
  });

  test("a model_provider this server has not configured is a 400 INVALID_CONFIGURATION naming it", async () => {
    const extraction = (model_provider: string) => ({
      file_id: invoiceFileId,
      structured_extraction_options: [{ schema_name: "invoice", json_schema: invoiceSchema, model_provider }],
    });
    for (const name of ["gpt5", "sonnet", "claude-3-5-sonnet-latest"]) {
      const body = await api.expect(
        400,
        "POST",
        "/documents/v2/parse",
        extraction(name),
        "INVALID_CONFIGURATION",
      );
      assert.match(body.message, new RegExp(`model_provider "${name}" is not configured`));
    }
    const created = await api.call("POST", "/documents/v2/datasets", {
      name: "bad",
      structured_extraction_options: extraction("gemini3").structured_extraction_options,
    });
    assert.equal(created.status, 400);
    assert.equal(created.body.code, "INVALID_CONFIGURATION");
    assert.match(created.body.message, /"gemini3"/);
    const dataset = await api.expect(200, "POST", "/documents/v2/datasets", { name: "good" });
    const updated = await api.call("PUT", `/documents/v2/datasets/${dataset.dataset_id}`, {
      structured_extraction_options: extraction("gpt_4o_mini").structured_extraction_options,
    });
    assert.equal(updated.status, 400);
    assert.match(updated.body.message, /"gpt_4o_mini" is not configured/);
    // The offline provider's name is always accepted.
    await api.expect(200, "POST", "/documents/v2/parse", extraction("tensorlake"));
  });
});

describe("extraction through a configured OpenAI-compatible provider (a loopback fake; checks our adapter)", () => {
  const fixed = { invoice_number: "INV-7731", invoice_date: "2026-02-03", total_due: 1180, line_items: [] };
  let fake: Awaited<ReturnType<typeof startProtocolServer>>;
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    fake = await startProtocolServer((request) => {
      const body = request.body as { response_format?: { json_schema: { name: string } } };
      if (JSON.stringify(body).includes("FAIL-ME"))
        return { status: 500, json: { error: { message: "boom" } } };
      if (request.path === "/anthropic/v1/messages") {
        // The messages protocol: the forced tool's input is the answer.
        const tool = (request.body as { tools: { name: string }[] }).tools[0].name;
        return {
          json: {
            id: "msg_fixed",
            type: "message",
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_1", name: tool, input: fixed }],
            stop_reason: "tool_use",
            usage: { input_tokens: 500, output_tokens: 60 },
          },
        };
      }
      const schemaName = body.response_format?.json_schema.name;
      const content =
        schemaName === "page_class"
          ? JSON.stringify({ page_class: "invoice", reason: "the fake always says invoice" })
          : schemaName
            ? JSON.stringify(fixed)
            : "A fixed summary.";
      return {
        json: {
          id: "chatcmpl-fixed",
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 },
        },
      };
    });
    server = await startTestServer(
      {
        modelProviders: {
          gpt_4o_mini: { kind: "openai", baseUrl: `${fake.url}/v1`, model: "local-model", retries: 0 },
          "local-llama": { kind: "openai", baseUrl: `${fake.url}/v1`, model: "llama", retries: 0 },
          sonnet: { kind: "anthropic", baseUrl: `${fake.url}/anthropic/v1`, model: "claude-x", retries: 0 },
        },
        classificationProvider: "local-llama",
        enrichmentProvider: "local-llama",
      },
      { documents: { workers: 1, pollIntervalMs: 50 } },
    );
    api = documentsApi(server);
  });
  after(async () => {
    await server.stop();
    await fake.close();
  });

  test("the alias gpt-4o-mini reaches the configured provider; its answer, citations and tokens are the result", async () => {
    const upload = await api.upload(await invoicePdf(), "invoice.pdf", { type: "application/pdf" });
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      page_range: "1",
      structured_extraction_options: [
        {
          schema_name: "invoice",
          json_schema: invoiceSchema,
          model_provider: "gpt-4o-mini",
          prompt: "Extract the invoice header and lines.",
          provide_citations: true,
        },
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(fake.received.length, 1);
    const request = fake.received[0];
    assert.equal(request.path, "/v1/chat/completions");
    const body = request.body as {
      model: string;
      messages: { role: string; content: string }[];
      response_format: { type: string; json_schema: { name: string; schema: { properties: object } } };
    };
    assert.equal(body.model, "local-model");
    assert.equal(body.response_format.type, "json_schema");
    assert.equal(body.response_format.json_schema.name, "invoice");
    assert.deepEqual(
      Object.keys(body.response_format.json_schema.schema.properties),
      Object.keys(invoiceSchema.properties),
    );
    const user = body.messages.find((message) => message.role === "user")?.content ?? "";
    assert.match(user, /^Extract the invoice header and lines\./);
    assert.match(user, /INV-7731/);
    assert.match(user, /Consulting hours/);
    assert.doesNotMatch(user, /Terms and Conditions/, "page 2 is outside the page range");
    const [entry] = result.structured_data ?? [];
    assert.deepEqual(entry.data, fixed);
    assert.deepEqual(entry.page_numbers, [1]);
    assert.ok(
      entry.citations?.some((citation) => citation.field === "/invoice_number" && citation.page_number === 1),
    );
    assert.equal(result.usage?.extraction_input_tokens_used, 321);
    assert.equal(result.usage?.extraction_output_tokens_used, 45);
    assert.deepEqual(result.usage?.model_providers, {
      gpt_4o_mini: { input_tokens: 321, output_tokens: 45 },
    });
  });

  test("a provider that fails ends the job failure with a message naming the provider and the status", async () => {
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "Invoice Number: FAIL-ME",
      structured_extraction_options: [
        { schema_name: "invoice", json_schema: invoiceSchema, model_provider: "gpt_4o_mini" },
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /model provider gpt_4o_mini: answered 500/);
  });

  test("classification and table summaries go to the configured providers; tokens are counted per provider", async () => {
    const upload = await api.upload(await invoicePdf(), "invoice.pdf", { type: "application/pdf" });
    const before = fake.received.length;
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      page_classifications: pageClassifications,
      enrichment_options: {
        table_summarization: true,
        table_summarization_prompt: "Name the costliest line.",
      },
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    const sent = fake.received.slice(before).map((request) => request.body as Record<string, unknown>);
    // Two pages classified, one table summarized, all by the model the configuration names.
    assert.equal(sent.length, 3);
    assert.ok(sent.every((body) => body.model === "llama"));
    const summaryRequest = sent.find((body) => body.response_format === undefined) as {
      messages: { role: string; content: string }[];
    };
    assert.match(summaryRequest.messages[1].content, /^Name the costliest line\./);
    assert.match(summaryRequest.messages[1].content, /Consulting hours/);
    assert.deepEqual(result.page_classes, [
      {
        page_class: "invoice",
        page_numbers: [1, 2],
        classification_reasons: { "1": "the fake always says invoice", "2": "the fake always says invoice" },
      },
      { page_class: "terms", page_numbers: [], classification_reasons: {} },
    ]);
    const table = result.pages?.[0].page_fragments?.find((fragment) => fragment.fragment_type === "table");
    assert.ok(table, "the invoice's table is a table fragment");
    assert.equal((table.content as { summary?: string }).summary, "A fixed summary.");
    assert.equal(result.usage?.extraction_input_tokens_used, 642);
    assert.equal(result.usage?.summarization_input_tokens_used, 321);
    assert.deepEqual(result.usage?.model_providers, {
      "local-llama": { input_tokens: 963, output_tokens: 135 },
    });
  });

  test("a configured name other than the spec's is accepted as model_provider", async () => {
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "Invoice Number: INV-1",
      structured_extraction_options: [
        { schema_name: "invoice", json_schema: invoiceSchema, model_provider: "local-llama" },
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.deepEqual(result.structured_data?.[0].data, fixed);
  });

  test("claude-3-5-sonnet-latest reaches the configured Anthropic provider through a forced tool", async () => {
    const before = fake.received.length;
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "Invoice Number: INV-7731",
      structured_extraction_options: [
        { schema_name: "invoice", json_schema: invoiceSchema, model_provider: "claude-3-5-sonnet-latest" },
      ],
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", result.error ?? "");
    const [request] = fake.received.slice(before);
    assert.equal(request.path, "/anthropic/v1/messages");
    assert.equal(request.headers["anthropic-version"], "2023-06-01");
    const body = request.body as { model: string; tool_choice: unknown; tools: { name: string }[] };
    assert.equal(body.model, "claude-x");
    assert.deepEqual(body.tool_choice, { type: "tool", name: "invoice" });
    assert.deepEqual(result.structured_data?.[0].data, fixed);
    assert.deepEqual(result.usage?.model_providers, { sonnet: { input_tokens: 500, output_tokens: 60 } });
  });
});
