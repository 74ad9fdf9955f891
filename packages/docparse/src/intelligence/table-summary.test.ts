import assert from "node:assert/strict";
import { test } from "node:test";
import { ENRICHMENT_OPTION_DEFAULTS, type EnrichmentOptions } from "@svc/contract";
import {
  drawGrid,
  drawGridText,
  drawLine,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
} from "../backends/pdf-fixtures.ts";
import { applyEnrichment, parseDocument } from "../index.ts";
import type { TableCell, TableItem } from "../model.ts";
import { parseNumber, summarizeTableOffline } from "./table-summary.ts";

test("numbers are read as written in tables: separators, currency, percent, negatives in parentheses", () => {
  const cases: [string, number | null][] = [
    ["1,234.50", 1234.5],
    ["$ 1 234", 1234],
    ["(12)", -12],
    ["-3.5%", -3.5],
    ["€4.2", 4.2],
    ["12 %", 12],
    ["USD 99", 99],
    ["0.965", 0.965],
    ["1,23", null],
    ["2020-01-02", null],
    ["12 apples", null],
    ["0.965 0.969", null],
    ["", null],
  ];
  for (const [text, expected] of cases) assert.equal(parseNumber(text), expected, text);
});

function cell(row: number, col: number, text: string, header = false): TableCell {
  return { row, col, rowSpan: 1, colSpan: 1, text, columnHeader: header, rowHeader: false, bbox: null };
}

test("a total row is reported as the table's stated total and kept out of the column's figures", () => {
  const rows = [
    ["Item", "Amount"],
    ["Rent", "1,200.00"],
    ["Power", "80.10"],
    ["Water", "19.90"],
    ["Total", "1,300.00"],
  ];
  const table: TableItem = {
    id: "#/items/0",
    readingOrder: 0,
    furniture: false,
    prov: [],
    label: "table",
    numRows: rows.length,
    numCols: 2,
    cells: rows.flatMap((row, r) => row.map((text, c) => cell(r, c, text, r === 0))),
    caption: "Monthly costs",
  };
  const summary = summarizeTableOffline(table);
  assert.equal(
    summary,
    'Table with 5 rows and 2 columns (1 header row, 4 body rows). Caption: "Monthly costs". Columns: "Item", "Amount". ' +
      'Numeric columns: "Amount": 3 values from 19.90 to 1200.00, sum 1300.00, stated total 1300.00. ' +
      'Row labels include "Rent", "Power", "Water", "Total".',
  );
});

const HEADER = ["Item", "Quantity", "Price"];
const row = (i: number) => [`Article ${i + 1}`, String((i * 7) % 23), `${10 + i}.50`];

/** One ruled table over two pages, its header repeated on the second (as pdf.test.ts's continued table). */
async function continuedTable(firstRows: number, secondRows: number): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const widths = [200, 120, 120];
  const rowHeight = 20;
  const first = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(first, "Order Details", 72, 80, fonts.bold, 16);
  const rows1 = [HEADER, ...Array.from({ length: firstRows }, (_, i) => row(i))];
  const top1 = PAGE_HEIGHT - 40 - rows1.length * rowHeight;
  drawGrid(first, { x: 72, top: top1, widths, rows: rows1.length, rowHeight });
  drawGridText(first, rows1, { x: 72, top: top1, widths, rowHeight, fonts, header: true });
  const second = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const rows2 = [HEADER, ...Array.from({ length: secondRows }, (_, i) => row(firstRows + i))];
  drawGrid(second, { x: 72, top: 60, widths, rows: rows2.length, rowHeight });
  drawGridText(second, rows2, { x: 72, top: 60, widths, rowHeight, fonts, header: true });
  return pdfBytes(pdf);
}

test("a table continued over pages is summarized whole in merged_tables, each part on its own", async () => {
  const firstRows = 12;
  const secondRows = 5;
  const bytes = await continuedTable(firstRows, secondRows);
  const options = { parsing: { table_merging: true } };
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf", options });
  const enrichment = {
    ...ENRICHMENT_OPTION_DEFAULTS,
    table_summarization: true,
  } as Required<EnrichmentOptions>;
  await applyEnrichment(document, { bytes, mimeType: "application/pdf" }, enrichment);
  const { documentViews } = await import("../index.ts");
  const views = documentViews(document, options);
  assert.equal(views.merged_tables?.length, 1);
  const summary = views.merged_tables?.[0].summary ?? "";
  const all = Array.from({ length: firstRows + secondRows }, (_, i) => row(i));
  const quantities = all.map((r) => Number(r[1]));
  const prices = all.map((r) => Number(r[2]));
  const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
  assert.ok(
    summary.startsWith(
      `Table with ${1 + all.length} rows and 3 columns (1 header row, ${all.length} body rows)`,
    ),
    summary,
  );
  assert.ok(
    summary.includes(
      `"Quantity": ${all.length} values from ${Math.min(...quantities)} to ${Math.max(...quantities)}, sum ${total(quantities)}`,
    ),
    summary,
  );
  assert.ok(
    summary.includes(
      `"Price": ${all.length} values from 10.50 to ${prices.at(-1)?.toFixed(2)}, sum ${total(prices).toFixed(2)}`,
    ),
    summary,
  );
  // The part on page 2 alone has its own summary.
  const parts = views.pages.flatMap((page) =>
    (page.page_fragments ?? []).filter((f) => f.fragment_type === "table"),
  );
  assert.equal(parts.length, 2);
  assert.ok(
    ((parts[1].content as { summary?: string }).summary ?? "").includes(`"Quantity": ${secondRows} values`),
  );
});
