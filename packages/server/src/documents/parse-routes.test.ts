import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readSseStream } from "@svc/contract";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

const objectSchema = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
});

/** Nests `depth` objects, the root being level 1. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = objectSchema({ leaf: { type: "string" } });
  for (let level = 1; level < depth; level++) schema = objectSchema({ child: schema });
  return schema;
}

/** An error body as the documents API sends it. */
interface ErrorJson {
  code: string;
  error: string;
  message: string;
  details?: { code: string };
}

describe("documents parse API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 2, pollIntervalMs: 50, testHooks: true } });
    api = documentsApi(server);
  });
  after(() => server.stop());

  test("every invalid request is a 400 with its code, and queues nothing", async () => {
    const { body: file } = await api.upload("# One page", "one.md");
    const extraction = (json_schema: unknown) => ({
      raw_text: "x",
      structured_extraction_options: [{ schema_name: "s", json_schema }],
    });
    const cases: [string, unknown, string][] = [
      ["no source", {}, "INVALID_CONFIGURATION"],
      ["two sources", { raw_text: "x", file_url: "https://example.com/a.pdf" }, "INVALID_CONFIGURATION"],
      [
        "three sources",
        { raw_text: "x", file_url: "https://example.com/a.pdf", file_id: file.file_id },
        "INVALID_CONFIGURATION",
      ],
      ["file_name without file_id", { raw_text: "x", file_name: "a.txt" }, "INVALID_CONFIGURATION"],
      ["blank raw_text", { raw_text: "  \n" }, "INVALID_FILE"],
      ["empty raw_text", { raw_text: "" }, "INVALID_REQUEST"],
      ["file_url not http", { file_url: "ftp://example.com/a" }, "INVALID_REQUEST"],
      ["file_id of another shape", { file_id: "doc_1" }, "INVALID_REQUEST"],
      ["page_range syntax", { raw_text: "x", page_range: "1-" }, "INVALID_PAGE_RANGE"],
      ["page_range letters", { raw_text: "x", page_range: "a,b" }, "INVALID_PAGE_RANGE"],
      ["page_range page 0", { raw_text: "x", page_range: "0-2" }, "INVALID_PAGE_RANGE"],
      ["page_range reversed", { raw_text: "x", page_range: "5-2" }, "INVALID_PAGE_RANGE"],
      ["page_range empty item", { raw_text: "x", page_range: "1,,2" }, "INVALID_PAGE_RANGE"],
      ["page_range past the limit", { raw_text: "x", page_range: "1-100001" }, "INVALID_PAGE_RANGE"],
      [
        "page_range past raw text's pages",
        { raw_text: "one\fpage two", page_range: "3" },
        "INVALID_PAGE_RANGE",
      ],
      [
        "mime_type outside the enum",
        { raw_text: "x", mime_type: "application/x-unknown" },
        "INVALID_REQUEST",
      ],
      ["unknown option", { raw_text: "x", parsing_options: { chunking: "page" } }, "INVALID_REQUEST"],
      [
        "option value",
        { raw_text: "x", parsing_options: { chunking_strategy: "paragraph" } },
        "INVALID_REQUEST",
      ],
      ["option type", { raw_text: "x", parsing_options: { include_images: "yes" } }, "INVALID_REQUEST"],
      ["labels not strings", { raw_text: "x", labels: { a: 1 } }, "INVALID_REQUEST"],
      ["schema 6 levels deep", extraction(nested(6)), "INVALID_JSON_SCHEMA"],
      [
        "schema field not required",
        extraction({
          type: "object",
          properties: { a: { type: "string" }, b: { type: "string" } },
          required: ["a"],
        }),
        "INVALID_JSON_SCHEMA",
      ],
      [
        "schema root field not an object",
        extraction({ type: "object", properties: { a: 5 }, required: ["a"] }),
        "INVALID_JSON_SCHEMA",
      ],
      [
        "schema root not an object",
        extraction({ type: "array", items: { type: "string" } }),
        "INVALID_JSON_SCHEMA",
      ],
      ["schema without fields", extraction({ type: "object", properties: {} }), "INVALID_JSON_SCHEMA"],
      [
        "page class not declared",
        {
          raw_text: "x",
          structured_extraction_options: [
            { schema_name: "s", json_schema: nested(1), page_classes: ["invoice"] },
          ],
        },
        "INVALID_PAGE_CLASSIFICATION",
      ],
      [
        "page classes twice",
        {
          raw_text: "x",
          page_classifications: [
            { name: "a", description: "A" },
            { name: "a", description: "again" },
          ],
        },
        "INVALID_PAGE_CLASSIFICATION",
      ],
    ];
    const before = (await api.call("GET", "/documents/v2/parse?limit=1000")).body.items.length;
    for (const [name, body, code] of cases) {
      const response = await api.call("POST", "/documents/v2/parse", body);
      assert.equal(response.status, 400, `${name}: ${JSON.stringify(response.body)}`);
      assert.equal(
        response.body.details?.code ?? response.body.code,
        code,
        `${name}: ${JSON.stringify(response.body)}`,
      );
      assert.equal(typeof response.body.message, "string");
    }
    await api.expect(
      404,
      "POST",
      "/documents/v2/parse",
      { file_id: "file_doesnotexist" },
      "ENTITY_NOT_FOUND",
    );
    // Five levels is the limit, not past it.
    await api.expect(200, "POST", "/documents/v2/parse", extraction(nested(5)));
    const after = (await api.call("GET", "/documents/v2/parse?limit=1000")).body.items.length;
    assert.equal(after, before + 1);
  });

  test("read refuses the extraction and classification fields", async () => {
    const schema = [{ schema_name: "s", json_schema: nested(1) }];
    const refused = await api.expect(
      400,
      "POST",
      "/documents/v2/read",
      { raw_text: "x", structured_extraction_options: schema },
      "INVALID_REQUEST",
    );
    assert.match(refused.message, /structured_extraction_options/);
    await api.expect(400, "POST", "/documents/v2/read", {
      raw_text: "x",
      page_classifications: [{ name: "a", description: "b" }],
    });
    await api.expect(400, "POST", "/documents/v2/read", {}, "INVALID_CONFIGURATION");
    const job = await api.expect(200, "POST", "/documents/v2/read", {
      raw_text: "Just text",
      labels: { k: "v" },
    });
    const result = await api.finished(job.parse_id);
    assert.equal(result.status, "successful");
    assert.deepEqual(result.labels, { k: "v" });
    assert.equal(result.structured_data, undefined);
    assert.equal(result.page_classes, undefined);
  });

  test("parse answers at once; the job records every default; the result has pages, chunks, usage and the labels", async () => {
    const labels = { customer: "acme", "batch id": "42" };
    const started = performance.now();
    const job = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "# Title\n\nFirst.\n\n## Part\n\nSecond.",
      mime_type: "text/markdown",
      parsing_options: { chunking_strategy: "section" },
      labels,
    });
    assert.ok(performance.now() - started < 1000);
    assert.match(job.parse_id, /^parse_/);
    assert.ok(!Number.isNaN(Date.parse(job.created_at)));
    const [row] = await server.store.db.query<{ request: string }>(
      "SELECT request FROM parse_jobs WHERE id = ?",
      [job.parse_id],
    );
    const snapshot = JSON.parse(row.request);
    assert.deepEqual(snapshot.parsingOptions, {
      table_output_mode: "html",
      table_parsing_format: "tsr",
      chunking_strategy: "section",
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
    });
    assert.deepEqual(snapshot.enrichmentOptions, {
      table_summarization: false,
      table_summarization_prompt: null,
      figure_summarization: false,
      figure_summarization_prompt: null,
      chart_extraction: false,
      include_full_page_image: false,
    });
    const result = await api.finished(job.parse_id);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.deepEqual(result.labels, labels);
    assert.equal(result.total_pages, 1);
    assert.equal(result.parsed_pages_count, 1);
    assert.deepEqual(result.usage, { pages_parsed: 1 });
    assert.deepEqual(
      result.chunks?.map((c) => c.content),
      ["# Title\n\nFirst.", "## Part\n\nSecond."],
    );
    assert.deepEqual(
      result.pages?.[0].page_fragments?.map((f) => f.fragment_type),
      ["title", "text", "section_header", "text"],
    );
    assert.equal(result.structured_data, null);
    assert.ok(result.finished_at);
  });

  test("an uploaded file is parsed with its type; file_name renames it; page_range past its pages fails the job", async () => {
    const { body: file } = await api.upload("Alpha\f\fBeta\f", "pages.txt");
    const job = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: file.file_id,
      file_name: "renamed.txt",
      page_range: "3",
      parsing_options: { chunking_strategy: "page" },
    });
    const result = await api.finished(job.parse_id);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(result.total_pages, 3);
    assert.deepEqual(result.chunks, [{ page_number: 3, content: "Beta" }]);
    const listed = await api.expect(200, "GET", "/documents/v2/parse?filename=renamed.txt");
    assert.deepEqual(
      listed.items.map((r: { parse_id: string }) => r.parse_id),
      [job.parse_id],
    );
    const past = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: file.file_id,
      page_range: "2-4",
    });
    const failed = await api.finished(past.parse_id);
    assert.equal(failed.status, "failure");
    assert.match(failed.error ?? "", /INVALID_PAGE_RANGE.*has 3 pages/);
  });

  test("raw CSV text is read as a table; extraction and enrichment run offline without a provider", async () => {
    const csv = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "a;b\n1;2",
      mime_type: "text/csv",
    });
    const csvResult = await api.finished(csv.parse_id);
    assert.equal(csvResult.status, "successful");
    const fragments = csvResult.pages?.[0]?.page_fragments ?? [];
    assert.equal(fragments[0]?.fragment_type, "table");
    assert.match(JSON.stringify(fragments[0]?.content), /<th>a<\/th><th>b<\/th>.*<td>1<\/td><td>2<\/td>/);
    const extraction = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "Total: 5",
      structured_extraction_options: [{ schema_name: "invoice", json_schema: nested(1) }],
      enrichment_options: { table_summarization: true },
    });
    const extractionResult = await api.finished(extraction.parse_id);
    assert.equal(extractionResult.status, "successful", extractionResult.error ?? "");
    assert.deepEqual(
      extractionResult.structured_data?.map((entry) => [entry.schema_name, entry.data, entry.page_numbers]),
      [["invoice", { leaf: null }, [1]]],
    );
  });

  test("Accept: text/event-stream streams the job's states until it ends", async () => {
    const job = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "svc-test:sleep=400\n\nbody",
    });
    const response = await fetch(`${server.url}/documents/v2/parse/${job.parse_id}`, {
      headers: { authorization: api.authorization, accept: "text/event-stream" },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events: { event: string; status: string }[] = [];
    for await (const message of readSseStream(response.body as AsyncIterable<Uint8Array>)) {
      events.push({ event: message.event, status: JSON.parse(message.data).status });
    }
    assert.ok(events.length >= 2, JSON.stringify(events));
    assert.deepEqual(events.at(-1), { event: "parse_done", status: "successful" });
    const order = ["parse_queued", "parse_update", "parse_done"];
    for (let i = 1; i < events.length; i++) {
      assert.ok(order.indexOf(events[i].event) > order.indexOf(events[i - 1].event), JSON.stringify(events));
    }
    const failed = await api.expect(200, "POST", "/documents/v2/parse", {
      raw_text: "x",
      mime_type: "image/png",
    });
    await api.finished(failed.parse_id);
    const again = await fetch(`${server.url}/documents/v2/parse/${failed.parse_id}`, {
      headers: { authorization: api.authorization, accept: "text/event-stream" },
    });
    const names = [];
    for await (const message of readSseStream(again.body as AsyncIterable<Uint8Array>))
      names.push(message.event);
    assert.deepEqual(names, ["parse_failed"]);
    const missing = await fetch(`${server.url}/documents/v2/parse/parse_nope`, {
      headers: { authorization: api.authorization, accept: "text/event-stream" },
    });
    assert.equal(missing.status, 404);
  });

  test("lists jobs with filters and cursors; delete removes a job", async () => {
    const a = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "a" });
    const b = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "b" });
    await api.finished(a.parse_id);
    await api.finished(b.parse_id);
    const page = await api.expect(200, "GET", "/documents/v2/parse?limit=1");
    assert.equal(page.items[0].parse_id, b.parse_id);
    assert.equal(page.has_more, true);
    const next = await api.expect(200, "GET", `/documents/v2/parse?limit=1&cursor=${page.next_cursor}`);
    assert.equal(next.items[0].parse_id, a.parse_id);
    const since = await api.expect(
      200,
      "GET",
      `/documents/v2/parse?created_after=${encodeURIComponent(a.created_at)}`,
    );
    assert.ok(since.items.every((r: { created_at: string }) => r.created_at > a.created_at));
    const failures = await api.expect(200, "GET", "/documents/v2/parse?status=failure");
    assert.ok(
      failures.items.length > 0 && failures.items.every((r: { status: string }) => r.status === "failure"),
    );
    await api.expect(400, "GET", "/documents/v2/parse?status=done", undefined, "INVALID_QUERY_PARAMS");
    await api.expect(204, "DELETE", `/documents/v2/parse/${a.parse_id}`);
    await api.expect(404, "GET", `/documents/v2/parse/${a.parse_id}`, undefined, "ENTITY_NOT_FOUND");
    await api.expect(404, "DELETE", `/documents/v2/parse/${a.parse_id}`, undefined, "ENTITY_NOT_FOUND");
  });

  test("a file deleted before its job runs fails the job with the reason", async () => {
    const { body: file } = await api.upload("text", "gone.txt");
    const blocker = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:sleep=300" });
    const blocker2 = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:sleep=300" });
    const job = await api.expect(200, "POST", "/documents/v2/parse", { file_id: file.file_id });
    await api.expect(204, "DELETE", `/documents/v2/files/${file.file_id}`);
    const result = await api.finished(job.parse_id);
    await api.finished(blocker.parse_id);
    await api.finished(blocker2.parse_id);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /was deleted before the job ran/);
  });
  test("extract and classify queue jobs that run only what they name; edit is a 501", async () => {
    const invoice = "INVOICE\nInvoice Number: INV-7\nSubtotal: 10.00\nTotal Due: 12.50";
    const schema = {
      schema_name: "invoice",
      json_schema: objectSchema({ invoice_number: { type: "string" }, total_due: { type: "number" } }),
    };
    const classes = [
      { name: "invoice", description: "an invoice with amounts due" },
      { name: "resume", description: "a curriculum vitae listing work experience" },
    ];
    const extractJob = await api.expect(200, "POST", "/documents/v2/extract", {
      raw_text: invoice,
      structured_extraction_options: [schema],
      labels: { via: "extract" },
    });
    const extracted = await api.finished(extractJob.parse_id, 120_000);
    assert.equal(extracted.status, "successful", extracted.error ?? "");
    assert.deepEqual(extracted.structured_data?.[0].data, { invoice_number: "INV-7", total_due: 12.5 });
    assert.deepEqual(extracted.labels, { via: "extract" });
    assert.equal(extracted.page_classes ?? null, null);
    const classifyJob = await api.expect(200, "POST", "/documents/v2/classify", {
      raw_text: invoice,
      page_classifications: classes,
    });
    const classified = await api.finished(classifyJob.parse_id, 120_000);
    assert.equal(classified.status, "successful", classified.error ?? "");
    assert.deepEqual(
      classified.page_classes?.map((c) => [c.page_class, c.page_numbers]),
      [
        ["invoice", [1]],
        ["resume", []],
      ],
    );
    assert.equal(classified.structured_data ?? null, null);
    // Each names what it runs, checked as parse checks it.
    await api.expect(400, "POST", "/documents/v2/extract", { raw_text: "x" }, "INVALID_REQUEST");
    await api.expect(
      400,
      "POST",
      "/documents/v2/extract",
      { raw_text: "x", structured_extraction_options: [] },
      "INVALID_JSON_SCHEMA",
    );
    await api.expect(
      400,
      "POST",
      "/documents/v2/classify",
      { raw_text: "x", page_classifications: [] },
      "INVALID_PAGE_CLASSIFICATION",
    );
    await api.expect(
      404,
      "POST",
      "/documents/v2/classify",
      { file_id: "file_missing", page_classifications: classes },
      "ENTITY_NOT_FOUND",
    );
    const edit = await api.call("POST", "/documents/v2/edit", {
      file_id: "file_abc",
      form_filling: { fill_prompt: "fill it" },
    });
    assert.equal(edit.status, 501);
    assert.deepEqual([edit.body.code, edit.body.details.code], ["INVALID_CONFIGURATION", "NOT_IMPLEMENTED"]);
    assert.match(edit.body.message, /Form filling \(edit\) is not offered/);
  });

  test("errors carry the Python SDK's code in code and the catalog's in details.code", async () => {
    const cases: [string, string, string | undefined, number, string, string | undefined][] = [
      ["POST", "/documents/v2/parse", "{bad", 400, "INVALID_CONFIGURATION", "INVALID_JSON"],
      ["GET", "/documents/v2/nowhere", undefined, 404, "ENTITY_NOT_FOUND", "ROUTE_NOT_FOUND"],
      ["GET", "/documents/v2/parse?limit=0", undefined, 400, "INVALID_QUERY_PARAMS", undefined],
      ["GET", "/documents/v2/parse/parse_missing", undefined, 404, "ENTITY_NOT_FOUND", undefined],
    ];
    for (const [method, path, raw, status, code, ours] of cases) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: api.authorization, "content-type": "application/json" },
        body: raw,
      });
      const body = (await response.json()) as ErrorJson;
      assert.equal(response.status, status, `${method} ${path}`);
      assert.equal(body.code, code, JSON.stringify(body));
      assert.equal(body.details?.code, ours, JSON.stringify(body));
      assert.equal(body.message, body.error);
    }
    // Outside the documents API the catalog code stays in code.
    const sandbox = await fetch(`${server.url}/sandboxes/nowhere`, {
      headers: { authorization: api.authorization },
    });
    const sandboxBody = (await sandbox.json()) as ErrorJson;
    assert.deepEqual([sandboxBody.code, sandboxBody.details], ["SANDBOX_NOT_FOUND", undefined]);
  });

  test("an empty body with a JSON Content-Type is no body, on every route", async () => {
    const { body: file } = await api.upload("# Gone", "gone.md");
    const job = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "x" });
    await api.finished(job.parse_id);
    const dataset = await api.expect(200, "POST", "/documents/v2/datasets", { name: "empty-bodies" });
    const empty = (method: string, path: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: api.authorization, "content-type": "application/json" },
        body: method === "GET" ? undefined : "",
      });
    for (const [method, path] of [
      ["GET", "/documents/v2/files"],
      ["DELETE", `/documents/v2/files/${file.file_id}`],
      ["DELETE", `/documents/v2/parse/${job.parse_id}`],
      ["DELETE", `/documents/v2/datasets/${dataset.dataset_id}`],
    ]) {
      const response = await empty(method, path);
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${await response.text()}`);
    }
    await api.expect(
      404,
      "GET",
      `/documents/v2/files/${file.file_id}/metadata`,
      undefined,
      "ENTITY_NOT_FOUND",
    );
    // A route that needs a body still says what is missing.
    const parse = await empty("POST", "/documents/v2/parse");
    const parseBody = (await parse.json()) as ErrorJson;
    assert.equal(parse.status, 400);
    assert.equal(parseBody.code, "INVALID_CONFIGURATION");
    assert.match(parseBody.message, /file_id/);
  });
});
