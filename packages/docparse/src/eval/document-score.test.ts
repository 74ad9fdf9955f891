import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { predictedBlocks, scoreDocument } from "./document-score.ts";
import { defaultCorpus, doclingTableHtml, loadReference, mimeTypeOf, sourceFiles } from "./reference.ts";
import { parseHtmlTable } from "./teds.ts";

/** Docling's test data in the shared corpus; only called by tests that skip without it. */
const corpus = () => corpusPath("docling/tests/data");

describe("reference", () => {
  test("media types by extension", () => {
    assert.equal(mimeTypeOf("a.PDF"), "application/pdf");
    assert.equal(mimeTypeOf("scan.tif"), "image/tiff");
    assert.equal(mimeTypeOf("photo.jpeg"), "image/jpeg");
    assert.equal(mimeTypeOf("notes.md"), "text/markdown");
    assert.equal(mimeTypeOf("notes.txt"), null);
  });

  test("Docling table cells become HTML with spans and header cells", () => {
    const cell = (text: string, row: number, col: number, rows = 1, cols = 1, header = false) => ({
      text,
      start_row_offset_idx: row,
      end_row_offset_idx: row + rows,
      start_col_offset_idx: col,
      end_col_offset_idx: col + cols,
      column_header: header,
    });
    const html = doclingTableHtml(
      [
        cell("A & B", 0, 0, 1, 2, true),
        cell("1", 1, 0, 2),
        cell("2", 1, 1),
        cell("3", 2, 1),
        cell("2", 1, 1),
      ],
      3,
    );
    assert.equal(
      html,
      '<table><tr><th colspan="2">A &amp; B</th></tr><tr><td rowspan="2">1</td><td>2</td></tr><tr><td>3</td></tr></table>',
    );
    assert.equal(parseHtmlTable(html).children.length, 3);
  });

  test("the corpus lists every format's sources and finds their references", { skip: NO_CORPUS }, () => {
    assert.equal(defaultCorpus(), corpus());
    const files = sourceFiles(corpus());
    const names = (format: string) => files.filter((file) => file.format === format).map((file) => file.name);
    assert.ok(names("pdf").includes("multi_page.pdf") && names("pdf").includes("bookmark_sample.pdf"));
    assert.ok(names("ocr").includes("ocr_test.pdf") && names("ocr").includes("old_newspaper.png"));
    assert.deepEqual(names("tiff"), ["2206.01062.tif"]);
    assert.deepEqual(names("webp"), ["webp-test.webp"]);
    const find = (name: string) => files.find((file) => file.name === name) ?? assert.fail(name);

    const pdf = loadReference(find("2305.03393v1-pg9.pdf"), corpus());
    assert.equal(pdf?.origin, "groundtruth");
    assert.equal(pdf?.pages, 1);
    assert.equal(pdf?.tables.length, 1);
    assert.match(pdf?.tables[0].html ?? "", /^<table><tr><th rowspan="2"># enc-layers<\/th>/);
    // The page header is furniture: not a body block.
    assert.ok(!pdf?.blocks.some((block) => block.text.startsWith("Optimized Table Tokenization")));
    assert.equal(pdf?.blocks[0].page, 1);

    assert.equal(loadReference(find("ocr_test.pdf"), corpus())?.origin, "tesseract/full_page");
    assert.equal(loadReference(find("webp-test.webp"), corpus())?.origin, "tesseract/full_page");
    assert.equal(loadReference(find("2206.01062.tif"), corpus()), null);
    assert.equal(loadReference(find("bookmark_sample.pdf"), corpus()), null);
  });
});

describe("document scores", { skip: NO_CORPUS }, () => {
  const source = () => sourceFiles(corpus(), ["pdf"]).find((file) => file.name === "2305.03393v1-pg9.pdf");

  test("the reference's own markdown, parsed again, scores full text and order", async () => {
    const reference =
      loadReference(source() ?? assert.fail("no source"), corpus()) ?? assert.fail("no reference");
    const { result } = await parseDocument({
      text: reference.markdown,
      mimeType: "text/markdown",
      options: { parsing: { table_output_mode: "markdown" } },
    });
    const scores = scoreDocument(reference, result);
    assert.equal(scores.nid, 1);
    assert.equal(scores.readingOrder, 1);
    assert.equal(scores.tablesMatched, 1);
    // Markdown has no spans: the table's structure is not all there.
    assert.ok(scores.teds !== null && scores.teds > 0.5 && scores.teds < 1, String(scores.teds));
    assert.ok(predictedBlocks(result.pages).every((block) => block.page === 1));
  });

  test("a failed parse scores as an empty prediction", () => {
    const reference =
      loadReference(source() ?? assert.fail("no source"), corpus()) ?? assert.fail("no reference");
    assert.deepEqual(scoreDocument(reference, { markdown: "", pages: [] }), {
      nid: 0,
      teds: 0,
      tedsStructure: 0,
      tablesMatched: 0,
      tablesReference: 1,
      readingOrder: null,
    });
  });
});
