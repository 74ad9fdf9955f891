import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { hRule, pageGeometry } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectAlignedTables } from "./aligned.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, ruledPage, run } from "./test-geometry.ts";

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

test("a ruled statement's signs join their figures, also beside a tinted column", () => {
  // Rules between the rows, none between the columns; the current year's figures on a tint whose left edge
  // stands between each sign and its figure.
  const rows = [
    ["", "", "2020", "", "2021"],
    ["Net profit", "¥", "233,512", "¥", "201,683"],
    ["Remeasurements of defined benefit plans", "", "(23,574)", "", "84,501"],
    ["Net changes in the fair value of hedges", "", "20", "", "92"],
    ["Non-controlling interests", "¥", "7,630", "¥", "14,395"],
  ];
  // Labels flush left, signs flush left of their column, figures flush right.
  const right = (text: string, x2: number) => x2 - text.length * 5;
  const at = [104, 340, (t: string) => right(t, 420), 445, (t: string) => right(t, 515)];
  const runs = rows.flatMap((row, r) =>
    row.flatMap((text, c) => {
      if (!text) return [];
      const x = at[c];
      return [run(text, typeof x === "number" ? x : x(text), 104 + 20 * r)];
    }),
  );
  const rules = [0, 1, 2, 3, 4, 5].map((r) => hRule(100 + 20 * r, 100, 520, r === 1 ? 1 : 0.5));
  const tint = { x1: 455, y1: 100, x2: 520, y2: 200 };
  const [table] = detectRuledTables(ruledPage(runs, rules, [tint]));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["", "2020", "2021"],
    ["Net profit", "¥ 233,512", "¥ 201,683"],
    ["Remeasurements of defined benefit plans", "(23,574)", "84,501"],
    ["Net changes in the fair value of hedges", "20", "92"],
    ["Non-controlling interests", "¥ 7,630", "¥ 14,395"],
  ]);
});

test("public page: an annual report's statement rows stand next to their figures", async () => {
  await assertPdfFacts("mitsubishi-income-equity-statements.pdf", [
    { neighbours: ["Remeasurements of defined benefit plans", "(23,574)"] },
    { neighbours: ["(23,574)", "84,501"] },
    { neighbours: ["Net changes in the fair value of cash flow hedges", "20"] },
  ]);
});
