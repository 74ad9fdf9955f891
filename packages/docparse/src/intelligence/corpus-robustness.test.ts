import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { PartitionStrategy } from "@svc/contract";
import { defaultRegistry, parseDocument } from "../index.ts";
import { DOCLING_DATA, NO_CORPUS } from "../test-corpus.ts";
import { classifyPages } from "./classify.ts";
import { FORM_SCHEMA, INVOICE_SCHEMA, PAGE_CLASSES, REPORT_SCHEMA } from "./eval/extraction-set.ts";
import { extractStructured } from "./extract.ts";
import { partitionDocument } from "./partition.ts";
import { type JsonSchema, validateAgainstSchema } from "./schema.ts";

/** A schema with every shape the extractor handles, run over documents it was not made for. */
const WIDE_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    title: { type: "string" },
    date: { type: "string", format: "date" },
    total: { type: "number" },
    count: { type: "integer" },
    approved: { type: "boolean" },
    status: { type: ["string", "null"], enum: ["draft", "final", null] },
    authors: { type: "array", items: { type: "string" } },
    owner: { $ref: "#/$defs/party" },
    rows: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, value: { type: "number" } },
        required: ["name", "value"],
      },
    },
  },
  required: ["title", "date", "total", "count", "approved", "status", "authors", "owner", "rows"],
  $defs: { party: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
};

const EXTENSIONS: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  html: "text/html",
  md: "text/markdown",
  csv: "text/csv",
};

function pointerValue(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = (node as Record<string, unknown> | null)?.[key];
  }
  return node;
}

test("on real documents of every format, classification, partitions and extraction hold their contracts", {
  skip: NO_CORPUS,
}, async () => {
  let documents = 0;
  for (const [ext, mimeType] of Object.entries(EXTENSIONS)) {
    const dir = path.join(DOCLING_DATA as string, ext, "sources");
    // The smaller files of each format (up to 400 kB), to keep the test quick.
    const files = readdirSync(dir)
      .filter((name) => name.endsWith(`.${ext}`) && statSync(path.join(dir, name)).size < 400_000)
      .sort()
      .slice(0, 6);
    for (const name of files) {
      const bytes = new Uint8Array(readFileSync(path.join(dir, name)));
      const { document } = await parseDocument({ bytes, mimeType }, defaultRegistry);
      documents++;
      const label = `${ext}/${name}`;
      const pageNumbers = document.pages.map((page) => page.pageNumber);

      const classes = classifyPages(document, PAGE_CLASSES);
      assert.deepEqual(
        classes.map((entry) => entry.page_class),
        PAGE_CLASSES.map((entry) => entry.name),
        label,
      );
      const classified = classes.flatMap((entry) => entry.page_numbers);
      assert.equal(new Set(classified).size, classified.length, `${label}: a page in one class at most`);
      for (const entry of classes) {
        for (const page of entry.page_numbers) {
          assert.ok(pageNumbers.includes(page), `${label}: page ${page} exists`);
          assert.match(entry.classification_reasons?.[String(page)] ?? "", /^score /, `${label}: a reason`);
        }
      }

      const strategies: PartitionStrategy[] = [
        "none",
        "page",
        "section",
        "fragment",
        { patterns: { start_patterns: ["^\\d"] } },
      ];
      for (const strategy of strategies) {
        const partitions = partitionDocument(document, strategy, null);
        for (const partition of partitions) {
          assert.ok(
            partition.pageNumbers.every((page) => pageNumbers.includes(page)),
            `${label}: partition pages`,
          );
        }
        if (strategy === "page") assert.equal(partitions.length, pageNumbers.length, label);
      }

      const [all] = partitionDocument(document, "none", null);
      for (const schema of [INVOICE_SCHEMA, FORM_SCHEMA, REPORT_SCHEMA, WIDE_SCHEMA]) {
        const { data, citations } = extractStructured(all, schema, { provideCitations: true });
        assert.deepEqual(validateAgainstSchema(schema, data), [], `${label}: data validates`);
        for (const citation of citations) {
          assert.notEqual(pointerValue(data, citation.field), undefined, `${label}: ${citation.field} cited`);
          assert.notEqual(pointerValue(data, citation.field), null, `${label}: ${citation.field} cited`);
          assert.ok(pageNumbers.includes(citation.page_number), `${label}: cited page`);
        }
      }
    }
  }
  assert.ok(documents >= 20, `${documents} documents read`);
});
