import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  defaultRegistry,
  parseDocument,
  sniffMimeType,
} from "./index.ts";

const MARKDOWN = [
  "# Report",
  "",
  "Intro with **bold** text.",
  "",
  "## Numbers",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
  "- one",
  "    - nested",
  "- two",
  "",
  "## Code",
  "",
  "```ts",
  "const x = 1;",
  "```",
  "",
  "> quoted",
  "",
  "![a duck](duck.png)",
].join("\n");

describe("parseDocument", () => {
  test("reads markdown into the model: labels, levels, table cells, lists, code, figures, provenance", async () => {
    const { document } = await parseDocument({ text: MARKDOWN, mimeType: "text/markdown" });
    assert.equal(document.version, DOCUMENT_MODEL_VERSION);
    assert.deepEqual(
      document.items.map((item) => item.label),
      [
        "title",
        "text",
        "section_header",
        "table",
        "list_item",
        "list_item",
        "list_item",
        "section_header",
        "code",
        "text",
        "figure",
      ],
    );
    const table = document.items[3];
    assert.ok(table.label === "table");
    assert.equal(table.numRows, 2);
    assert.equal(table.numCols, 2);
    assert.deepEqual(
      table.cells.map((c) => [c.row, c.col, c.text, c.columnHeader]),
      [
        [0, 0, "a", true],
        [0, 1, "b", true],
        [1, 0, "1", false],
        [1, 1, "2", false],
      ],
    );
    const nested = document.items[5];
    assert.ok(nested.label === "list_item");
    assert.equal(nested.depth, 1);
    const intro = document.items[1];
    const span = intro.prov[0].charSpan;
    assert.ok(span);
    assert.equal(MARKDOWN.slice(span[0], span[1]), "Intro with **bold** text.");
    assert.ok(intro.label === "text" && intro.text === "Intro with bold text.");
    const figure = document.items[10];
    assert.ok(figure.label === "figure" && figure.caption === "a duck" && figure.source === "duck.png");
  });

  test("renders markdown with tables as html by default, as markdown on request", async () => {
    const html = await parseDocument({ text: MARKDOWN, mimeType: "text/markdown" });
    assert.match(
      html.result.markdown,
      /<table><tr><th>a<\/th><th>b<\/th><\/tr><tr><td>1<\/td><td>2<\/td><\/tr><\/table>/,
    );
    assert.match(html.result.markdown, /^# Report\n\nIntro with \*\*bold\*\* text\.\n\n## Numbers/);
    assert.match(html.result.markdown, /- one\n {4}- nested\n- two/);
    assert.match(html.result.markdown, /```ts\nconst x = 1;\n```/);
    assert.match(html.result.markdown, /> quoted/);
    const md = await parseDocument({
      text: MARKDOWN,
      mimeType: "text/markdown",
      options: { parsing: { table_output_mode: "markdown" } },
    });
    assert.match(md.result.markdown, /\| a \| b \|\n\| --- \| --- \|\n\| 1 \| 2 \|/);
  });

  test("chunks per strategy", async () => {
    const chunks = async (strategy: "none" | "page" | "section" | "fragment") =>
      (
        await parseDocument({
          text: MARKDOWN,
          mimeType: "text/markdown",
          options: { parsing: { chunking_strategy: strategy } },
        })
      ).result.chunks;
    const none = await chunks("none");
    assert.equal(none.length, 1);
    assert.equal(none[0].page_number, 1);
    assert.equal((await chunks("page")).length, 1);
    const sections = await chunks("section");
    assert.deepEqual(
      sections.map((c) => c.content.split("\n")[0]),
      ["# Report", "## Numbers", "## Code"],
    );
    assert.equal((await chunks("fragment")).length, 11);
  });

  test("fragments: types, per-page reading order, table content by table_output_mode, ignore_sections", async () => {
    const { result } = await parseDocument({
      text: MARKDOWN,
      mimeType: "text/markdown",
      options: { parsing: { table_output_mode: "markdown", ignore_sections: ["list_item"] } },
    });
    assert.equal(result.pages.length, 1);
    const fragments = result.pages[0].page_fragments ?? [];
    assert.deepEqual(
      fragments.map((f) => f.reading_order),
      fragments.map((_, i) => i),
    );
    assert.ok(!fragments.some((f) => f.fragment_type === "list_item"));
    assert.ok(!result.markdown.includes("- one"));
    const header = fragments.find((f) => f.fragment_type === "section_header");
    assert.deepEqual(header?.content, { level: 2, content: "Numbers" });
    const table = fragments.find((f) => f.fragment_type === "table")?.content as {
      content: string;
      html: string;
      cells: unknown[];
    };
    assert.match(table.content, /^\| a \| b \|/);
    assert.match(table.html, /^<table>/);
    assert.equal(table.cells.length, 4);
  });

  test("plain text: paragraphs at blank lines, pages at form feeds, page_range keeps pages", async () => {
    const text = "First para\nline two\n\n\nSecond para\f# not a heading\n\fThird page";
    const all = await parseDocument({ text, mimeType: "text/plain" });
    assert.equal(all.result.total_pages, 3);
    assert.deepEqual(
      all.document.items.map((i) => [i.prov[0].page, i.label === "text" ? i.text : ""]),
      [
        [1, "First para\nline two"],
        [1, "Second para"],
        [2, "# not a heading"],
        [3, "Third page"],
      ],
    );
    for (const item of all.document.items) {
      const span = item.prov[0].charSpan;
      assert.ok(span && item.label === "text");
      assert.equal(text.slice(span[0], span[1]), item.text);
    }
    assert.match(all.result.markdown, /\\# not a heading/);
    const some = await parseDocument({
      text,
      mimeType: "text/plain",
      options: { pageRange: "2-3", parsing: { chunking_strategy: "page" } },
    });
    assert.equal(some.result.parsed_pages_count, 2);
    assert.deepEqual(
      some.result.pages.map((p) => p.page_number),
      [2, 3],
    );
    assert.deepEqual(
      some.result.chunks.map((c) => c.page_number),
      [2, 3],
    );
    assert.equal(some.result.usage.pages_parsed, 2);
  });

  test("bytes are decoded: UTF-8 with a BOM, Windows-1252 with a warning", async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("héllo")]);
    const a = await parseDocument({ bytes: bom, mimeType: "text/plain; charset=utf-8" });
    assert.equal(a.result.markdown, "héllo");
    const latin = await parseDocument({
      bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      mimeType: "text/plain",
    });
    assert.equal(latin.result.markdown, "café");
    assert.equal(latin.result.warnings.length, 1);
  });

  test("bad input is a DocumentLoadError: unknown type, binary as text, page beyond the document", async () => {
    await assert.rejects(
      parseDocument({ bytes: new Uint8Array([1, 2]), mimeType: "application/x-unknown-format" }),
      (error) =>
        error instanceof DocumentLoadError &&
        error.code === "INVALID_MIME_TYPE" &&
        /application\/x-unknown-format/.test(error.message),
    );
    await assert.rejects(
      parseDocument({ bytes: new Uint8Array([1, 2]), mimeType: "application/pdf" }),
      (error) => error instanceof DocumentLoadError && error.code === "INVALID_FILE",
    );
    await assert.rejects(
      parseDocument({ bytes: new Uint8Array([0x61, 0, 0x62]), mimeType: "text/plain" }),
      (error) => error instanceof DocumentLoadError && /binary/.test(error.message),
    );
    await assert.rejects(
      parseDocument({ text: "one page", mimeType: "text/markdown", options: { pageRange: "1-2" } }),
      (error) =>
        error instanceof DocumentLoadError &&
        error.code === "INVALID_PAGE_RANGE" &&
        /has 1 page/.test(error.message),
    );
  });

  test("the registry knows text, markdown, PDF, images, HTML, CSV and Office (OOXML)", () => {
    const types = defaultRegistry.mimeTypes();
    for (const type of [
      "application/pdf",
      "application/vnd.ms-excel.sheet.macroenabled.12",
      "application/vnd.ms-excel.template.macroenabled.12",
      "application/vnd.ms-powerpoint.presentation.macroenabled.12",
      "application/vnd.ms-powerpoint.slideshow.macroenabled.12",
      "application/vnd.ms-word.document.macroenabled.12",
      "application/vnd.ms-word.template.macroenabled.12",
      "application/vnd.openxmlformats-officedocument.presentationml.presentation",
      "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
      "application/vnd.openxmlformats-officedocument.presentationml.template",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.template",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
      "application/x-pdf",
      "image/avif",
      "image/gif",
      "image/jpeg",
      "image/png",
      "image/tiff",
      "image/webp",
      "text/markdown",
      "text/plain",
      "text/x-markdown",
      "text/html",
      "application/xhtml+xml",
      "text/csv",
    ]) {
      assert.ok(types.includes(type), type);
    }
    assert.deepEqual(types, [...types].sort());
    assert.equal(defaultRegistry.get("Text/X-Markdown")?.name, "markdown");
    assert.equal(defaultRegistry.get("application/pdf")?.name, "pdf");
    assert.equal(defaultRegistry.get("image/webp")?.name, "image");
    assert.equal(defaultRegistry.get("text/html; charset=utf-8")?.name, "html");
    assert.equal(defaultRegistry.get("application/vnd.ms-excel.sheet.macroEnabled.12")?.name, "xlsx");
  });

  test("a vague declared type is told from the bytes' signature", () => {
    assert.equal(sniffMimeType(new TextEncoder().encode("%PDF-1.7\n%âãÏÓ\n1 0 obj")), "application/pdf");
    assert.equal(
      sniffMimeType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])),
      "image/png",
    );
    assert.equal(
      sniffMimeType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0])),
      "image/jpeg",
    );
    assert.equal(sniffMimeType(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 ")), "image/webp");
    assert.equal(sniffMimeType(new TextEncoder().encode("just some words here")), "text/plain");
    assert.equal(sniffMimeType(new Uint8Array([0, 1, 2, 3, 4, 5, 0, 0, 9, 9, 9, 9])), null);
  });
});
