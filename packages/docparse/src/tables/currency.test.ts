import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * A `$` set in a column of its own, on some rows only, belongs to the figure beside it: a row's label stands next
 * to its figure, not next to an empty cell.
 */

test("a column of currency signs alone joins the figures to its right", () => {
  const rows = [
    ["Revenue", "$", "31,999", "$", "28,822"],
    ["Costs and expenses", "", "22,607", "", "20,464"],
    ["Income from operations", "$", "9,392", "$", "8,358"],
    ["Net income", "$", "7,788", "$", "6,687"],
  ];
  const xs = [60, 300, 340, 400, 440];
  const runs = rows.flatMap((row, r) =>
    row.flatMap((text, c) => (text ? [run(text, xs[c], 100 + 16 * r)] : [])),
  );
  const [table] = detectAlignedTables(pageGeometry({ runs }));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["Revenue", "$ 31,999", "$ 28,822"],
    ["Costs and expenses", "22,607", "20,464"],
    ["Income from operations", "$ 9,392", "$ 8,358"],
    ["Net income", "$ 7,788", "$ 6,687"],
  ]);
});

test("public page: a results release's costs stand next to their figure", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/meta-q2-2023-results.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const rows = detectAlignedTables(await extractPdfPage(doc, 1)).flatMap(grid);
    const costs = rows.find((row) => row[0] === "Costs and expenses");
    assert.deepEqual(costs?.slice(0, 3), ["Costs and expenses", "22,607", "20,464"]);
  } finally {
    await doc.destroy();
  }
});
