import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { Client } from "./client.ts";
import { pagesOfClass, structuredDataOf } from "./documents.ts";
import { InvalidRequestError } from "./errors.ts";

describe("documents intelligence through the SDK (offline provider)", () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50 } });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });
  after(() => server.stop());

  test("classification and typed structured data of a parse", async () => {
    const text =
      "INVOICE\n\nInvoice Number: INV-5\n\nTotal Due: 19.99\n\f\nMeeting notes: the team discussed the roadmap.\n";
    const job = await client.documents.parse({
      raw_text: text,
      page_classifications: [
        { name: "invoice", description: "An invoice with an invoice number and a total due" },
        { name: "notes", description: "Meeting notes: what a team discussed" },
      ],
      structured_extraction_options: [
        {
          schema_name: "invoice",
          json_schema: {
            type: "object",
            properties: { invoice_number: { type: "string" }, total_due: { type: "number" } },
            required: ["invoice_number", "total_due"],
          },
          page_classes: ["invoice"],
        },
      ],
    });
    const result = await client.documents.wait(job.parse_id, { timeoutMs: 60_000 });
    assert.equal(result.status, "successful", result.error ?? "");
    assert.deepEqual(pagesOfClass(result, "invoice"), [1]);
    assert.deepEqual(pagesOfClass(result, "notes"), [2]);
    assert.deepEqual(pagesOfClass(result, "absent"), []);
    const [invoice] = structuredDataOf<{ invoice_number: string | null; total_due: number | null }>(
      result,
      "invoice",
    );
    assert.equal(invoice.data.invoice_number, "INV-5");
    assert.equal(invoice.data.total_due, 19.99);
    assert.deepEqual(structuredDataOf(result, "other"), []);
  });

  test("an unconfigured model provider is an InvalidRequestError with the code and the name", async () => {
    await assert.rejects(
      client.documents.parse({
        raw_text: "x",
        structured_extraction_options: [
          {
            schema_name: "a",
            json_schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            model_provider: "gpt-4o-mini",
          },
        ],
      }),
      (error: InvalidRequestError) =>
        error instanceof InvalidRequestError &&
        error.code === "INVALID_CONFIGURATION" &&
        /"gpt-4o-mini"/.test(error.message),
    );
  });
});
