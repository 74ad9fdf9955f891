import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

describe("documents datasets API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 2, pollIntervalMs: 50, testHooks: true } });
    api = documentsApi(server);
  });
  after(() => server.stop());
  const base = "/documents/v2/datasets";

  test("create checks the name and the settings; names are unique per project", async () => {
    for (const name of ["has space", "dots.not.allowed", "ümlaut", "a/b"]) {
      await api.expect(400, "POST", base, { name }, "INVALID_DATASET_NAME");
    }
    await api.expect(400, "POST", base, { name: "" }, "INVALID_REQUEST");
    await api.expect(
      400,
      "POST",
      base,
      {
        name: "bad-schema",
        structured_extraction_options: [
          { schema_name: "s", json_schema: { type: "object", properties: { a: { type: "string" } } } },
        ],
      },
      "INVALID_JSON_SCHEMA",
    );
    const created = await api.expect(200, "POST", base, { name: "Invoices_2026-a", description: "bills" });
    assert.equal(created.name, "Invoices_2026-a");
    assert.match(created.dataset_id, /^dataset_/);
    await api.expect(409, "POST", base, { name: "Invoices_2026-a" }, "ENTITY_ALREADY_EXISTS");
    const dataset = await api.expect(200, "GET", `${base}/${created.dataset_id}`);
    assert.equal(dataset.status, "idle");
    assert.equal(dataset.description, "bills");
    assert.equal(dataset.parsing_options.chunking_strategy, "none");
    assert.equal(dataset.analytics, undefined);
    await api.expect(204, "DELETE", `${base}/${created.dataset_id}`);
    await api.expect(404, "GET", `${base}/${created.dataset_id}`, undefined, "ENTITY_NOT_FOUND");
    await api.expect(
      404,
      "POST",
      `${base}/${created.dataset_id}/parse`,
      { raw_text: "x" },
      "ENTITY_NOT_FOUND",
    );
    await api.expect(200, "POST", base, { name: "Invoices_2026-a" });
  });

  test("parse into a dataset; results, analytics and status follow its jobs; updates apply to later jobs only", async () => {
    const { dataset_id } = await api.expect(200, "POST", base, {
      name: "notes",
      parsing_options: { chunking_strategy: "fragment" },
    });
    const text = "svc-test:sleep=300\n\nOne.\n\nTwo.";
    const first = await api.expect(200, "POST", `${base}/${dataset_id}/parse`, {
      raw_text: text,
      labels: { n: "1" },
    });
    const busy = await api.expect(200, "GET", `${base}/${dataset_id}?include_analytics=true`);
    assert.equal(busy.status, "processing");
    assert.equal(busy.analytics.pending + busy.analytics.processing, 1);
    const updated = await api.expect(200, "PUT", `${base}/${dataset_id}`, {
      name: "notes-v2",
      parsing_options: { chunking_strategy: "none" },
    });
    assert.equal(updated.name, "notes-v2");
    assert.equal(updated.parsing_options.chunking_strategy, "none");
    const second = await api.expect(200, "POST", `${base}/${dataset_id}/parse`, { raw_text: text });
    const a = await api.finished(first.parse_id);
    const b = await api.finished(second.parse_id);
    assert.equal(a.dataset_id, dataset_id);
    assert.deepEqual(a.labels, { n: "1" });
    assert.equal(a.chunks?.length, 3, "the first job keeps the settings it was created with");
    assert.equal(b.chunks?.length, 1, "the second job has the new settings");
    const failed = await api.expect(200, "POST", `${base}/${dataset_id}/parse`, {
      // Text that is not a PDF: this job fails.
      raw_text: "x",
      mime_type: "application/pdf",
    });
    await api.finished(failed.parse_id);
    const idle = await api.expect(200, "GET", `${base}/${dataset_id}?include_analytics=true`);
    assert.equal(idle.status, "idle");
    assert.deepEqual(idle.analytics, { pending: 0, processing: 0, successful: 2, error: 1 });
    const data = await api.expect(200, "GET", `${base}/${dataset_id}/data?limit=2`);
    assert.deepEqual(
      data.items.map((r: { parse_id: string }) => r.parse_id),
      [failed.parse_id, second.parse_id],
    );
    assert.equal(data.has_more, true);
    const successful = await api.expect(200, "GET", `${base}/${dataset_id}/data?status=successful`);
    assert.equal(successful.items.length, 2);
    const byName = await api.expect(200, "GET", "/documents/v2/parse?dataset_name=notes-v2");
    assert.equal(byName.items.length, 3);
    await api.expect(404, "GET", `${base}/dataset_nope/data`, undefined, "ENTITY_NOT_FOUND");
  });

  test("dataset parse takes only a source: settings are the dataset's", async () => {
    const { dataset_id } = await api.expect(200, "POST", base, { name: "only-source" });
    await api.expect(
      400,
      "POST",
      `${base}/${dataset_id}/parse`,
      { raw_text: "x", parsing_options: {} },
      "INVALID_REQUEST",
    );
    await api.expect(400, "POST", `${base}/${dataset_id}/parse`, {}, "INVALID_CONFIGURATION");
    await api.expect(
      400,
      "POST",
      `${base}/${dataset_id}/parse`,
      { raw_text: "x", page_range: "2-1" },
      "INVALID_PAGE_RANGE",
    );
  });

  test("update: rename to a taken name is 409; a field left out keeps its value; lists filter by name and status", async () => {
    const a = await api.expect(200, "POST", base, {
      name: "list-a",
      description: "A",
      parsing_options: { chunking_strategy: "page" },
    });
    await api.expect(200, "POST", base, { name: "list-b" });
    await api.expect(409, "PUT", `${base}/${a.dataset_id}`, { name: "list-b" }, "ENTITY_ALREADY_EXISTS");
    await api.expect(400, "PUT", `${base}/${a.dataset_id}`, { name: "bad name" }, "INVALID_DATASET_NAME");
    const kept = await api.expect(200, "PUT", `${base}/${a.dataset_id}`, { description: null });
    assert.equal(kept.description, null);
    assert.equal(kept.name, "list-a");
    assert.equal(kept.parsing_options.chunking_strategy, "page");
    await api.expect(404, "PUT", `${base}/dataset_nope`, { description: "x" }, "ENTITY_NOT_FOUND");
    const named = await api.expect(200, "GET", `${base}?name=list-b`);
    assert.deepEqual(
      named.items.map((d: { name: string }) => d.name),
      ["list-b"],
    );
    const idle = await api.expect(200, "GET", `${base}?status=idle&limit=100`);
    assert.ok(idle.items.some((d: { name: string }) => d.name === "list-a"));
    const page = await api.expect(200, "GET", `${base}?limit=1`);
    assert.equal(page.items.length, 1);
    assert.equal(page.has_more, true);
  });
});
