import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { FigureItem, HeadingItem, TableItem } from "../model.ts";
import { xlsx } from "../ooxml/test-package.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

async function parse(bytes: Uint8Array, mimeType = XLSX) {
  return parseDocument({ bytes, mimeType, options: { parsing: { table_output_mode: "markdown" } } });
}

function tables(items: readonly { label: string }[]): TableItem[] {
  return items.filter((item): item is TableItem => item.label === "table");
}

test("xlsx_01.xlsx: a page and a heading per sheet, blocks apart as tables, charts with their data", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = new Uint8Array(readFileSync(corpusPath("docling/tests/data", "xlsx/sources/xlsx_01.xlsx")));
  const { document, result } = await parse(bytes);
  assert.equal(result.total_pages, 4);
  const headings = document.items.filter((item): item is HeadingItem => item.label === "section_header");
  assert.deepEqual(
    headings.map((item) => item.text),
    ["Sheet1", "Sheet2", "Sheet3", "Sheet4"],
  );
  const sheet2 = tables(document.items).filter((table) => table.prov[0].page === 2 && table.caption === null);
  assert.deepEqual(
    sheet2.map((table) => [table.numRows, table.numCols]),
    [
      [9, 4],
      [5, 3],
      [5, 3],
    ],
  );
  const charts = document.items.filter(
    (item): item is FigureItem => item.label === "figure" && item.chart !== undefined,
  );
  assert.deepEqual(
    charts.map((chart) => chart.chart?.type),
    ["line", "scatter"],
  );
  assert.match(result.markdown, /\| first \| second \| third \|/);
});

test("xlsx_02_sample_sales_data.xlsm: macro-enabled workbooks read alike; dates shown through their format", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = new Uint8Array(
    readFileSync(corpusPath("docling/tests/data", "xlsx/sources/xlsx_02_sample_sales_data.xlsm")),
  );
  const { result } = await parse(bytes, "application/vnd.ms-excel.sheet.macroEnabled.12");
  assert.match(result.markdown, /\| Widget A \| 2024-01-01[^|]* \| 5 \| 5000 \|/);
});

test("number formats: dates, percentages, thousands, decimals, currency, booleans and errors as shown", async () => {
  const styles = `<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/><numFmt numFmtId="165" formatCode="&quot;$&quot;#,##0.00"/></numFmts>
    <cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="10"/><xf numFmtId="3"/><xf numFmtId="165"/><xf numFmtId="14"/></cellXfs>`;
  const data = `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>inline</t></is></c></row>
    <row r="2"><c r="A2" s="1"><v>45292</v></c><c r="B2" s="2"><v>0.1234</v></c></row>
    <row r="3"><c r="A3" s="3"><v>1234567</v></c><c r="B3" s="4"><v>-1234.5</v></c></row>
    <row r="4"><c r="A4" t="b"><v>1</v></c><c r="B4" t="e"><v>#DIV/0!</v></c></row>
    <row r="5"><c r="A5" s="5"><v>45322</v></c><c r="B5"><f>1/3</f><v>0.333333333333333</v></c></row>`;
  const { document } = await parse(xlsx([{ name: "Data", data }], styles, ["shared"]));
  const [table] = tables(document.items);
  assert.deepEqual(
    table.cells.map((cell) => cell.text),
    [
      "shared",
      "inline",
      "2024-01-01",
      "12.34%",
      "1,234,567",
      "-$1,234.50",
      "TRUE",
      "#DIV/0!",
      "1/31/2024",
      "0.3333333333",
    ],
  );
});

test("merged cells span, fully empty rows split tables, hidden sheets are kept and flagged", async () => {
  const data = `<row r="1"><c r="A1" t="inlineStr"><is><t>Title</t></is></c></row>
    <row r="2"><c r="A2" t="inlineStr"><is><t>a</t></is></c><c r="B2" t="inlineStr"><is><t>b</t></is></c></row>
    <row r="4"><c r="A4"><v>1</v></c><c r="B4"><v>2</v></c></row>`;
  const bytes = xlsx([
    { name: "Visible", data, after: '<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>' },
    { name: "Secret", data: '<row r="1"><c r="A1"><v>7</v></c></row>', state: "hidden" },
  ]);
  const { document, result } = await parse(bytes);
  const found = tables(document.items);
  assert.deepEqual(
    found.map((table) => [table.prov[0].page, table.numRows, table.numCols]),
    [
      [1, 2, 2],
      [1, 1, 2],
      [2, 1, 1],
    ],
  );
  assert.deepEqual(found[0].cells[0], {
    row: 0,
    col: 0,
    rowSpan: 1,
    colSpan: 2,
    text: "Title",
    columnHeader: true,
    rowHeader: false,
    bbox: null,
  });
  assert.ok(result.warnings.some((warning) => warning.includes('"Secret"') && warning.includes("hidden")));
});

test("xlsx_comments.xlsx: notes and threaded comments (replies included) after the sheet's tables", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = new Uint8Array(
    readFileSync(corpusPath("docling/tests/data", "xlsx/sources/xlsx_comments.xlsx")),
  );
  const { document } = await parse(bytes);
  const comments = document.items.filter(
    (item) => item.label === "text" && "comment" in item && item.comment,
  );
  assert.deepEqual(
    comments.map((item) => ("text" in item ? item.text : "")),
    [
      "Why Python specifically?",
      "Which libraries are you referring to?",
      "Minimum number of saltwater ducks",
      "I never thought it would be so low",
      "Maximum number of ducks",
    ],
  );
  assert.ok(!comments.some((item) => "text" in item && item.text.includes("[Threaded comment]")));
});

test("a lone label above a wider block is the block's title, read as text before the table", async () => {
  const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
  const data = `<row r="1">${cell("A1", "Reading List")}</row><row r="2">${cell("A2", "Title")}${cell("B2", "Year")}</row>
    <row r="3">${cell("A3", "Dune")}<c r="B3"><v>1965</v></c></row>`;
  const { result } = await parse(xlsx([{ name: "Books", data }]));
  assert.equal(
    result.markdown,
    "## Books\n\nReading List\n\n| Title | Year |\n| --- | --- |\n| Dune | 1965 |",
  );
});
