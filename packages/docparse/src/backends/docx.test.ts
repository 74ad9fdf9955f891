import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { FigureItem, HeadingItem, ListItem, TableItem } from "../model.ts";
import { docx } from "../ooxml/test-package.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

function corpus(name: string): Uint8Array {
  return new Uint8Array(readFileSync(corpusPath("docling/tests/data", `docx/sources/${name}`)));
}

async function parse(bytes: Uint8Array, parsing = {}) {
  return parseDocument({
    bytes,
    mimeType: DOCX,
    options: { parsing: { table_output_mode: "markdown", ...parsing } },
  });
}

test("word_sample.docx: title, headings by level, bullet and numbered lists, a table with its header row, a figure and its caption", {
  skip: NO_CORPUS,
}, async () => {
  const { document, result } = await parse(corpus("word_sample.docx"));
  const title = document.items.find((item) => item.label === "title");
  assert.equal(title && "text" in title ? title.text : null, "Swimming in the lake");
  const headings = document.items.filter((item): item is HeadingItem => item.label === "section_header");
  assert.deepEqual(
    headings.map((item) => [item.level, item.text]),
    [
      [2, "Let’s swim!"],
      [3, "Let’s eat"],
    ],
  );
  const lists = document.items.filter((item): item is ListItem => item.label === "list_item");
  assert.deepEqual(
    lists.slice(0, 6).map((item) => item.marker),
    ["-", "-", "-", "1.", "2.", "3."],
  );
  const table = document.items.find((item): item is TableItem => item.label === "table");
  assert.equal(table?.numRows, 4);
  assert.equal(table?.numCols, 3);
  assert.ok(table?.cells.filter((cell) => cell.row === 0).every((cell) => cell.columnHeader));
  assert.ok(document.items.some((item): item is FigureItem => item.label === "figure"));
  const caption = document.items.find((item) => item.label === "figure_caption");
  assert.equal(caption && "text" in caption ? caption.text : null, "Figure 1: This is a cute duckling");
  assert.match(result.markdown, /\| Berries \| Blueberry, Strawberry, Cranberry \| 150 \|/);
});

test("docx_lists.docx: nested bullet levels become list depth", { skip: NO_CORPUS }, async () => {
  const { document } = await parse(corpus("docx_lists.docx"));
  const nested = document.items.find(
    (item): item is ListItem => item.label === "list_item" && item.text === "List item 1.1.1",
  );
  assert.equal(nested?.depth, 2);
});

test("unit_test_formatting.docx: bold, italic and links inline as markdown", {
  skip: NO_CORPUS,
}, async () => {
  const { result } = await parse(corpus("unit_test_formatting.docx"));
  assert.match(
    result.markdown,
    /Normal \*italic\* \*\*bold\*\* underline and \[hyperlink\]\(https:\/\/github\.com\/DS4SD\/docling\)/,
  );
});

test("equations.docx: display equations are formula items in LaTeX-like text, inline ones stay in the sentence", {
  skip: NO_CORPUS,
}, async () => {
  const { document, result } = await parse(corpus("equations.docx"));
  const formulas = document.items.filter((item) => item.label === "formula");
  assert.ok(formulas.some((item) => "text" in item && item.text.includes("a^{2}+b^{2}=c^{2}")));
  assert.ok(formulas.some((item) => "text" in item && item.text.includes("\\sum_{n=1}^{\\infty}")));
  assert.match(result.markdown, /inline equation: \$A= \\pi r\^\{2\}\$/);
});

test("docx_page_header_footer_first_page.docx: page headers and footers are furniture, out of the markdown", {
  skip: NO_CORPUS,
}, async () => {
  const { document, result } = await parse(corpus("docx_page_header_footer_first_page.docx"));
  const furniture = document.items.filter((item) => item.furniture);
  assert.ok(furniture.some((item) => item.label === "page_header"));
  assert.ok(furniture.some((item) => item.label === "page_footer"));
  for (const item of furniture) if ("text" in item) assert.ok(!result.markdown.includes(item.text));
});

const CELL = (text: string, props = "") =>
  `<w:tc><w:tcPr>${props}</w:tcPr><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:tc>`;

test("merged cells: gridSpan widens a cell, vMerge continues one downwards", async () => {
  const body = `<w:tbl>
    <w:tr>${CELL("Wide", '<w:gridSpan w:val="2"/>')}${CELL("Tall", '<w:vMerge w:val="restart"/>')}</w:tr>
    <w:tr>${CELL("a")}${CELL("b")}${CELL("", "<w:vMerge/>")}</w:tr>
  </w:tbl>`;
  const { document } = await parse(docx(body));
  const table = document.items.find((item): item is TableItem => item.label === "table");
  assert.ok(table);
  assert.equal(table.numCols, 3);
  assert.deepEqual(
    table.cells.map((cell) => [cell.text, cell.row, cell.col, cell.rowSpan, cell.colSpan]),
    [
      ["Wide", 0, 0, 1, 2],
      ["Tall", 0, 2, 2, 1],
      ["a", 1, 0, 1, 1],
      ["b", 1, 1, 1, 1],
    ],
  );
});

test("tracked changes: insertions kept, deletions dropped", async () => {
  const body = `<w:p><w:r><w:t xml:space="preserve">Keep </w:t></w:r><w:ins w:id="1"><w:r><w:t>inserted</w:t></w:r></w:ins><w:del w:id="2"><w:r><w:delText>deleted</w:delText></w:r></w:del></w:p>`;
  const { result } = await parse(docx(body));
  assert.equal(result.markdown, "Keep inserted");
});

test("strikethrough: kept as ~~text~~ by default, dropped and counted with remove_strikethrough_lines", async () => {
  const body = `<w:p><w:r><w:t xml:space="preserve">Price </w:t></w:r><w:r><w:rPr><w:strike/></w:rPr><w:t>10</w:t></w:r><w:r><w:t xml:space="preserve"> 8</w:t></w:r></w:p>`;
  const kept = await parse(docx(body));
  assert.equal(kept.result.markdown, "Price ~~10~~ 8");
  const removed = await parse(docx(body), { remove_strikethrough_lines: true });
  assert.equal(removed.result.markdown, "Price 8");
  assert.equal(removed.result.usage.strikethrough_removed_pages, 1);
});

test("footnotes are read after the body, numbered in reference order", async () => {
  const body = `<w:p><w:r><w:t>Claim</w:t></w:r><w:r><w:footnoteReference w:id="7"/></w:r></w:p>`;
  const bytes = docx(body, {
    "word/_rels/document.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rF" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>`,
    "word/footnotes.xml": `<?xml version="1.0"?><w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:footnote w:id="7"><w:p><w:r><w:t>The source.</w:t></w:r></w:p></w:footnote></w:footnotes>`,
  });
  const { result } = await parse(bytes);
  assert.equal(result.markdown, "Claim[^1]\n\n[^1]: The source.");
});

test("a paragraph led by a check box is a task-list item", async () => {
  const box = (glyph: string, text: string) =>
    `<w:p><w:sdt><w:sdtContent><w:r><w:t>${glyph}</w:t></w:r></w:sdtContent></w:sdt><w:r><w:t xml:space="preserve"> ${text}</w:t></w:r></w:p>`;
  const { result } = await parse(docx(box("☒", "Design") + box("☐", "Docs")));
  assert.equal(result.markdown, "- [x] Design\n- [ ] Docs");
});

test("lists of one abstract numbering continue each other's count unless one restarts", async () => {
  const item = (numId: number, text: string) =>
    `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="${numId}"/></w:numPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
  const numbering = `<?xml version="1.0"?><w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
    <w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>
    <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="0"/></w:num>
    <w:num w:numId="3"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
  </w:numbering>`;
  const bytes = docx(
    `${item(1, "a") + item(1, "b")}<w:p><w:r><w:t>between</w:t></w:r></w:p>${item(2, "c")}${item(3, "d")}`,
    {
      "word/_rels/document.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rN" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`,
      "word/numbering.xml": numbering,
    },
  );
  const { result } = await parse(bytes);
  assert.equal(result.markdown, "1. a\n2. b\n\nbetween\n\n3. c\n1. d");
});
