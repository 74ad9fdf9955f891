import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parseDocument } from "./index.ts";
import { corpusPath, NO_CORPUS } from "./test-corpus.ts";

test("every markdown file of the corpus parses into items that carry their source span", {
  skip: NO_CORPUS,
}, async () => {
  const markdownSources = corpusPath("docling/tests/data/md/sources");
  for (const name of readdirSync(markdownSources)) {
    const bytes = new Uint8Array(readFileSync(path.join(markdownSources, name)));
    const { document, result } = await parseDocument({
      bytes,
      mimeType: "text/markdown",
      options: { parsing: { chunking_strategy: "section" } },
    });
    assert.ok(document.items.length > 0, name);
    assert.ok(result.markdown.length > 0, name);
    assert.ok(result.chunks.length > 0, name);
    for (const item of document.items) {
      const span = item.prov[0].charSpan;
      assert.ok(
        span && span[0] <= span[1] && span[1] <= new TextDecoder().decode(bytes).length,
        `${name}: ${item.id}`,
      );
    }
  }
});
