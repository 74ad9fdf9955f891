import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { mimeTypeOf } from "../eval/reference.ts";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

test("every DOCX, PPTX and XLSX of the corpus parses, with items on existing pages and every view built", {
  skip: NO_CORPUS,
}, async () => {
  for (const format of ["docx", "pptx", "xlsx"]) {
    const dir = corpusPath("docling/tests/data", `${format}/sources`);
    for (const name of readdirSync(dir)) {
      const mimeType = mimeTypeOf(name);
      if (!mimeType) continue;
      const bytes = new Uint8Array(readFileSync(path.join(dir, name)));
      const { document, result } = await parseDocument({
        bytes,
        mimeType,
        options: { parsing: { chunking_strategy: "section" } },
      });
      assert.ok(document.items.length > 0, name);
      assert.ok(result.markdown.length > 0, name);
      const pages = new Set(document.pages.map((page) => page.pageNumber));
      for (const item of document.items) assert.ok(pages.has(item.prov[0].page), `${name}: ${item.id}`);
      assert.equal(result.pages.length, document.pages.length, name);
    }
  }
});
