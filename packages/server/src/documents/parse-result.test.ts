import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { documentRoutes, type ParsingOptions, routeSchema } from "@svc/contract";
import { parseDocument } from "@svc/docparse";
import Fastify from "fastify";
import { DOCLING_DATA, NO_CORPUS } from "../../../docparse/src/test-corpus.ts";
import { storedResultOf } from "./job-intelligence.ts";
import type { JobRecord } from "./jobs.ts";
import { toParseResult } from "./parse-result.ts";

/** A successful job of `pages` pages, as the store reads it back. */
function successfulJob(pages: number): JobRecord {
  return {
    id: "parse_0123456789abcdef",
    projectId: "project",
    kind: "parse",
    datasetId: null,
    status: "successful",
    request: {} as JobRecord["request"],
    fileName: "document",
    labels: { team: "docs" },
    attempts: 1,
    leaseOwner: null,
    error: null,
    totalPages: pages,
    parsedPagesCount: pages,
    createdAt: 1_700_000_000_000,
    startedAt: 1_700_000_000_100,
    finishedAt: 1_700_000_001_000,
  } as JobRecord;
}

/** The body GET /documents/v2/parse/{id} sent through the route's response schema (fast-json-stringify). */
async function throughSchema(body: unknown): Promise<string> {
  const app = Fastify();
  const schema = routeSchema(documentRoutes.getParseResult);
  app.get("/", { schema: { response: schema.response } }, async () => body);
  try {
    const response = await app.inject({ method: "GET", url: "/" });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  } finally {
    await app.close();
  }
}

const DOCUMENTS: { dir: string; name: string; mimeType: string }[] = [
  { dir: "pdf", name: "2305.03393v1-pg9.pdf", mimeType: "application/pdf" },
  { dir: "pdf", name: "picture_classification.pdf", mimeType: "application/pdf" },
  { dir: "pdf", name: "code_and_formula.pdf", mimeType: "application/pdf" },
  { dir: "pdf", name: "right_to_left_01.pdf", mimeType: "application/pdf" },
  {
    dir: "docx",
    name: "docx_rich_tables_01.docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  },
  {
    dir: "docx",
    name: "docx_page_header_footer_first_page.docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  },
];

const OPTIONS: Partial<ParsingOptions>[] = [
  {},
  { table_output_mode: "markdown", chunking_strategy: "section", include_images: true, table_merging: true },
];

test("a stored result sent with JSON.stringify is the same JSON value as through the route's response schema", {
  skip: NO_CORPUS,
  timeout: 600_000,
}, async () => {
  for (const document of DOCUMENTS) {
    const bytes = new Uint8Array(
      await readFile(path.join(DOCLING_DATA as string, document.dir, "sources", document.name)),
    );
    for (const parsing of OPTIONS) {
      const { result: views } = await parseDocument({
        bytes: bytes.slice(),
        mimeType: document.mimeType,
        options: { parsing },
      });
      assert.ok(views.pages.length > 0, document.name);
      // As the store keeps it: JSON written, read back.
      const stored = JSON.parse(JSON.stringify(storedResultOf("parse", views, null)));
      const body = toParseResult(successfulJob(views.total_pages), stored);
      const label = `${document.name} ${JSON.stringify(parsing)}`;
      // The schema's serializer drops what the schema lacks and coerces what it types otherwise: neither happens.
      assert.deepEqual(JSON.parse(JSON.stringify(body)), JSON.parse(await throughSchema(body)), label);
    }
  }
});

test("a job's state before its end is the same JSON value either way", async () => {
  const job = { ...successfulJob(3), status: "processing" as const, finishedAt: null, labels: null };
  const body = toParseResult(job, null);
  assert.deepEqual(JSON.parse(JSON.stringify(body)), JSON.parse(await throughSchema(body)));
});
