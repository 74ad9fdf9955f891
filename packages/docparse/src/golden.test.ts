import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname } from "node:path";
import { test } from "node:test";
import type { ParsingOptions } from "@svc/contract";
import { parseDocument } from "./index.ts";
import { corpusPath, NO_CORPUS } from "./test-corpus.ts";

/**
 * Golden outputs of the paginated engine: the markdown and the page fragments (type, box, a prefix of the text)
 * of a few chosen pages, compared exactly. A change to layout shows up here as a diff to review; when it is
 * an improvement, regenerate with `SVC_UPDATE_GOLDEN=1 node --test packages/docparse/src/golden.test.ts` and
 * commit the new files. CI refuses the flag, so a run there can never rewrite what it checks.
 */
const UPDATE = process.env.SVC_UPDATE_GOLDEN === "1";
const GOLDEN = new URL("../test/golden/", import.meta.url);

const MIME: Record<string, string> = {
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".tif": "image/tiff",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

interface GoldenCase {
  name: string;
  /** What the case is there to hold steady. */
  covers: string;
  file: string;
  options?: Partial<ParsingOptions>;
}

const CASES: GoldenCase[] = [
  {
    name: "table-booktabs",
    covers: "a table with horizontal rules only, caption, headings",
    file: "pdf/sources/2305.03393v1-pg9.pdf",
  },
  {
    name: "two-columns-figures",
    covers: "two columns around figures, italic run-in headings",
    file: "pdf/sources/amt_handbook_sample.pdf",
  },
  {
    name: "headers-footers",
    covers: "repeated page headers and footers, page numbers, a contents table",
    file: "pdf/sources/redp5110_sampled.pdf",
  },
  {
    name: "right-to-left",
    covers: "Arabic text read right to left with numbers and Latin words inside",
    file: "pdf/sources/right_to_left_01.pdf",
  },
  {
    name: "lists-multipage",
    covers: "bold headings and bulleted list items over five pages",
    file: "pdf/sources/multi_page.pdf",
    options: { table_output_mode: "markdown" },
  },
  { name: "ocr-scanned-pdf", covers: "a scanned PDF page read by OCR", file: "ocr/sources/ocr_test.pdf" },
  { name: "ocr-webp", covers: "a WebP image read by OCR", file: "webp/sources/webp-test.webp" },
  {
    name: "docx-sample",
    covers: "DOCX title, headings, lists, a table, a figure with its caption",
    file: "docx/sources/word_sample.docx",
  },
  {
    name: "pptx-sample",
    covers: "PPTX slides with boxes, a table with spans, lists, notes as furniture",
    file: "pptx/sources/powerpoint_sample.pptx",
  },
  {
    name: "xlsx-sheets-charts",
    covers: "XLSX sheets as pages, separate blocks as tables, charts with their data",
    file: "xlsx/sources/xlsx_01.xlsx",
  },
];

/** What is compared: the markdown, and each fragment's type, page, rounded box and first characters. */
function snapshot(result: Awaited<ReturnType<typeof parseDocument>>["result"]): {
  markdown: string;
  fragments: string;
} {
  const lines: string[] = [];
  for (const page of result.pages) {
    for (const fragment of page.page_fragments ?? []) {
      const b = fragment.bbox;
      const where = b ? [b.x1, b.y1, b.x2, b.y2].map((v) => Math.round(v)).join(",") : "-";
      const text = fragment.content.content.replace(/\s+/g, " ").slice(0, 60);
      lines.push(
        `p${page.page_number} #${fragment.reading_order} ${fragment.fragment_type} [${where}] ${text}`,
      );
    }
  }
  return { markdown: `${result.markdown}\n`, fragments: `${lines.join("\n")}\n` };
}

test("the golden files are never regenerated in CI", () => {
  if (process.env.CI)
    assert.notEqual(process.env.SVC_UPDATE_GOLDEN, "1", "SVC_UPDATE_GOLDEN must be off in CI");
});

for (const golden of CASES) {
  test(`golden: ${golden.name} (${golden.covers})`, { skip: NO_CORPUS }, async () => {
    const bytes = new Uint8Array(readFileSync(corpusPath("docling/tests/data", golden.file)));
    const { result } = await parseDocument({
      bytes,
      mimeType: MIME[extname(golden.file)],
      options: { parsing: golden.options ?? {} },
    });
    const actual = snapshot(result);
    const markdownFile = new URL(`${golden.name}.md`, GOLDEN);
    const fragmentsFile = new URL(`${golden.name}.fragments.txt`, GOLDEN);
    if (UPDATE || !existsSync(markdownFile)) {
      assert.ok(
        UPDATE,
        `no golden file for ${golden.name}: run with SVC_UPDATE_GOLDEN=1 and commit the result`,
      );
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(markdownFile, actual.markdown);
      writeFileSync(fragmentsFile, actual.fragments);
      return;
    }
    assert.equal(actual.markdown, readFileSync(markdownFile, "utf8"), `${golden.name}: markdown changed`);
    assert.equal(actual.fragments, readFileSync(fragmentsFile, "utf8"), `${golden.name}: fragments changed`);
  });
}
