import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectKeyValueTables } from "./key-value.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * A key-value table's value ends where its alignment ends: a block set further right on the labels' lines (a
 * form's second column of fields) is not run into the value. At one left edge it is a column of its own; at none,
 * it stays out of the table.
 */

const bold = { bold: true, fontName: "Helvetica-Bold" };

/** Four bold labels at x 60 with values at x 180, rows 28 pt apart from y 100, and `beside` runs added. */
function form(beside: TextRun[]) {
  const labels = ["Insurance Agent", "Named Insured", "Effective Date", "Expiration Date"];
  const values = ["Jane Roe", "John Doe", "09/01/2015 09:52", "03/02/2016 12:01"];
  const runs = labels.flatMap((label, i) => [
    run(label, 60, 100 + 28 * i, bold),
    run(values[i], 180, 100 + 28 * i),
  ]);
  return pageGeometry({ runs: [...runs, ...beside] });
}

test("a block beside the values at one left edge is a third column, not part of the values", () => {
  const beside = [
    run("Insurance Company", 360, 100),
    run("Acme Mutual", 360, 112),
    run("Policy Address", 360, 128),
    run("12 Elm Road", 360, 140),
  ];
  const tables = detectKeyValueTables(form(beside));
  assert.equal(tables.length, 1);
  assert.deepEqual(grid(tables[0]), [
    ["Insurance Agent", "Jane Roe", "Insurance Company Acme Mutual"],
    ["Named Insured", "John Doe", "Policy Address 12 Elm Road"],
    ["Effective Date", "09/01/2015 09:52", ""],
    ["Expiration Date", "03/02/2016 12:01", ""],
  ]);
});

test("text far beside the values at no common edge stays out of the table", () => {
  const tables = detectKeyValueTables(form([run("see note", 380, 100), run("overleaf", 450, 128)]));
  assert.equal(tables.length, 1);
  assert.deepEqual(
    grid(tables[0]).map((row) => row[1]),
    ["Jane Roe", "John Doe", "09/01/2015 09:52", "03/02/2016 12:01"],
  );
  assert.equal(tables[0].numCols, 2);
});

test("public page: an insurance declaration's values end before the column of fields beside them", async () => {
  const bytes = readFileSync(
    new URL("../../test/real-world/insurance-declarations-page.pdf", import.meta.url),
  );
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const [table] = detectKeyValueTables(await extractPdfPage(doc, 1));
    assert.ok(table);
    const rows = grid(table);
    assert.deepEqual(rows[0].slice(0, 2), ["Insurance Agent", "XXXXXXX"]);
    assert.deepEqual(rows[2].slice(0, 2), ["Effective Date & Time", "09/01/2015 09:52 AM EDT"]);
  } finally {
    await doc.destroy();
  }
});
