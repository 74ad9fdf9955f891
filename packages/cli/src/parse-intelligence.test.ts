import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { runSvc } from "./svc.testing.ts";

describe("svc parse --extract and --classify against a real server (offline provider)", () => {
  let server: TestServer;
  let env: Record<string, string>;
  let dir: string;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50 } });
    env = { SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey, SVC_DATA_DIR: "/nonexistent" };
    dir = await mkdtemp(path.join(tmpdir(), "svc-cli-intel-"));
    await writeFile(
      path.join(dir, "invoice.txt"),
      "INVOICE\n\nInvoice Number: INV-88\n\nTotal Due: 42.00\n\f\nTerms and conditions: either party may end the agreement with notice.\n",
    );
    await writeFile(
      path.join(dir, "invoice.schema.json"),
      JSON.stringify({
        type: "object",
        properties: { invoice_number: { type: "string" }, total_due: { type: "number" } },
        required: ["invoice_number", "total_due"],
      }),
    );
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("prints the page classes and the structured data as JSON", async () => {
    const run = await runSvc(
      [
        "parse",
        path.join(dir, "invoice.txt"),
        "--classify",
        "invoice=An invoice with an invoice number and a total due",
        "--classify",
        "terms=Terms and conditions of an agreement",
        "--extract",
        `invoice=${path.join(dir, "invoice.schema.json")}`,
        "--partition",
        "page",
        "--citations",
      ],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    assert.deepEqual(
      printed.page_classes.map((entry: { page_class: string; page_numbers: number[] }) => [
        entry.page_class,
        entry.page_numbers,
      ]),
      [
        ["invoice", [1]],
        ["terms", [2]],
      ],
    );
    assert.deepEqual(printed.structured_data[0].data, { invoice_number: "INV-88", total_due: 42 });
    assert.ok(printed.structured_data[0].citations.length > 0);
  });

  test("an unconfigured provider is refused with the server's message; a bad option is a usage error", async () => {
    const refused = await runSvc(
      [
        "parse",
        path.join(dir, "invoice.txt"),
        "--extract",
        `invoice=${path.join(dir, "invoice.schema.json")}`,
        "--provider",
        "sonnet",
      ],
      env,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /model_provider "sonnet" is not configured/);
    const usage = await runSvc(["parse", path.join(dir, "invoice.txt"), "--extract", "no-equals-sign"], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--extract takes NAME=VALUE/);
  });

  test("svc datasets create --settings: a parse into the dataset applies its extraction", async () => {
    const settings = path.join(dir, "settings.json");
    await writeFile(
      settings,
      JSON.stringify({
        structured_extraction_options: [
          {
            schema_name: "invoice",
            json_schema: {
              type: "object",
              properties: { invoice_number: { type: "string" } },
              required: ["invoice_number"],
            },
          },
        ],
      }),
    );
    const created = await runSvc(["datasets", "create", "cli-invoices", "--settings", settings], env);
    assert.equal(created.code, 0, created.stderr);
    const run = await runSvc(
      ["parse", path.join(dir, "invoice.txt"), "--dataset", "cli-invoices", "--json"],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.structured_data[0].data, { invoice_number: "INV-88" });
    const bad = await runSvc(
      ["datasets", "create", "cli-bad", "--settings", path.join(dir, "invoice.schema.json")],
      env,
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--settings: type, properties, required not one of/);
  });
});
