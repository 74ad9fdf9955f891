import assert from "node:assert/strict";
import { test } from "node:test";
import { blockText } from "./blocks.ts";
import type { DetectedTable } from "./geometry.ts";
import { layoutPage } from "./layout.ts";
import { tableReader } from "./table-leftovers.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

/** A two-row table of labels and values whose detector kept the second row only (as a real one did). */
const runs = [
  textRun("Customer", { x1: 300, y1: 100, x2: 345, y2: 110 }),
  textRun("Bayside Wholesale", { x1: 400, y1: 100, x2: 480, y2: 110 }),
  textRun("Invoice Number", { x1: 300, y1: 115, x2: 370, y2: 125 }),
  textRun("INV-0046", { x1: 400, y1: 115, x2: 440, y2: 125 }),
];
const cell = (row: number, col: number, text: string, b: DetectedTable["cells"][number]["box"]) => ({
  row,
  col,
  rowSpan: 1,
  colSpan: 1,
  text,
  box: b,
  columnHeader: false,
  rowHeader: false,
});
const partial: DetectedTable = {
  box: { x1: 300, y1: 100, x2: 480, y2: 125 },
  numRows: 1,
  numCols: 2,
  cells: [
    cell(0, 0, "Invoice Number", { x1: 300, y1: 115, x2: 370, y2: 125 }),
    cell(0, 1, "INV-0046", { x1: 400, y1: 115, x2: 440, y2: 125 }),
  ],
  method: "aligned",
};

test("a run inside a table's box that the cells leave out is not read by the table", () => {
  const reads = tableReader([partial]);
  assert.deepEqual(
    runs.map((run) => reads(run)),
    [false, false, true, true],
  );
});

test("text a table's detector left out stays on the page as text", () => {
  const layout = layoutPage(pageGeometry({ runs }), { detectTables: () => [partial], dropStruck: false });
  const text = layout.entries.map((entry) =>
    entry.kind === "block" ? blockText(entry.block) : `[${entry.kind}]`,
  );
  assert.ok(text.join(" | ").includes("Customer"), text.join(" | "));
  assert.ok(text.join(" | ").includes("Bayside Wholesale"), text.join(" | "));
  // The cells' own text is read once, by the table.
  assert.ok(!text.join(" | ").includes("INV-0046"), text.join(" | "));
});
