import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { ListItem, TableItem } from "../model.ts";

const html = async (text: string) =>
  parseDocument({ text, mimeType: "text/html", options: { parsing: { table_output_mode: "markdown" } } });

test("headings with levels, paragraphs with inline formatting and links, boilerplate and hidden parts left out", async () => {
  const { document, result } = await html(`<!doctype html><html><head><title>T</title><style>p{}</style>
    <script>alert(1)</script></head><body><nav><a href="/">Home</a></nav>
    <h1>Report</h1><p>Some <b>bold</b>, <em>italic</em> and <a href="https://example.com/a b">a link</a>.</p>
    <h3>Detail</h3><p hidden>secret</p><div style="display: none">also secret</div><p>Line<br>break</p>
    <footer>© footer</footer></body></html>`);
  assert.equal(
    result.markdown,
    "# Report\n\nSome **bold**, *italic* and [a link](<https://example.com/a b>).\n\n### Detail\n\nLine  \nbreak",
  );
  assert.deepEqual(
    document.items.map((item) => item.label),
    ["title", "text", "section_header", "text"],
  );
  // Provenance: the heading's span is its element in the source.
  const span = document.items[0].prov[0].charSpan;
  assert.ok(span);
});

test("nested and ordered lists, description lists, code blocks, quotes and figures", async () => {
  const { document, result } =
    await html(`<ol start="3"><li>three<ul><li>inner</li></ul></li><li><p>four</p></li></ol>
    <dl><dt>Term</dt><dd>Meaning</dd></dl><pre><code class="language-py">print(1)
</code></pre><blockquote><p>quoted</p></blockquote>
    <figure><img src="x.png" alt="alt text"><figcaption>The caption</figcaption></figure>`);
  const lists = document.items.filter((item): item is ListItem => item.label === "list_item");
  assert.deepEqual(
    lists.map((item) => [item.marker, item.depth, item.text]),
    [
      ["3.", 0, "three"],
      ["-", 1, "inner"],
      ["4.", 0, "four"],
      ["-", 0, "Term"],
      ["-", 1, "Meaning"],
    ],
  );
  assert.match(result.markdown, /```py\nprint\(1\)\n```/);
  assert.match(result.markdown, /> quoted/);
  assert.match(result.markdown, /The caption\n\n<!-- image: The caption -->/);
  assert.ok(document.items.some((item) => item.label === "figure_caption"));
});

test("tables: spans placed on the grid, thead and th as header cells, nested tables also on their own", async () => {
  const { document } =
    await html(`<table><caption>Cap</caption><thead><tr><th>A</th><th colspan="2">B</th></tr></thead>
    <tr><th rowspan="2">r</th><td>1</td><td>2</td></tr><tr><td colspan="2"><table><tr><td>x</td></tr></table></td></tr></table>`);
  const tables = document.items.filter((item): item is TableItem => item.label === "table");
  assert.equal(tables.length, 2);
  const [outer] = tables;
  assert.equal(outer.numRows, 3);
  assert.equal(outer.numCols, 3);
  assert.equal(outer.caption, "Cap");
  const at = (row: number, col: number) => outer.cells.find((cell) => cell.row === row && cell.col === col);
  assert.equal(at(0, 1)?.colSpan, 2);
  assert.equal(at(0, 1)?.columnHeader, true);
  assert.equal(at(1, 0)?.rowSpan, 2);
  assert.equal(at(1, 0)?.rowHeader, true);
  assert.equal(at(2, 1)?.text, "x");
  // A huge span is clamped, not allocated.
  const { document: wide } = await html(
    '<table><tr><td colspan="99999999" rowspan="99999999">w</td></tr></table>',
  );
  const table = wide.items[0] as TableItem;
  assert.equal(table.numCols, 1000);
  assert.equal(table.numRows, 1);
});

test("bytes: the declared charset and UTF-16 byte-order marks are honoured", async () => {
  const latin = new Uint8Array([
    ...new TextEncoder().encode('<meta charset="iso-8859-1"><p>caf'),
    0xe9,
    ...new TextEncoder().encode("</p>"),
  ]);
  const { result } = await parseDocument({ bytes: latin, mimeType: "text/html" });
  assert.equal(result.markdown, "café");
  const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from("<p>ünïcode</p>", "utf16le")]);
  assert.equal((await parseDocument({ bytes: utf16, mimeType: "text/html" })).result.markdown, "ünïcode");
});

test("a page of 2,000 nested elements is read without exhausting the stack", async () => {
  const deep = `${"<div>".repeat(2000)}deep text${"</div>".repeat(2000)}`;
  const { result } = await html(deep);
  assert.equal(result.markdown, "deep text");
});
