import assert from "node:assert/strict";
import { test } from "node:test";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

/**
 * One ruled band split into field boxes, each a small label over its value, is a table of two rows (labels over
 * values); boxes side by side whose upper line is the larger (cards: a title over its text) stay apart.
 */

const XS = [100, 220, 340, 460];
const YS = [200, 250];

test("a ruled row of small labels over their values is a table of labels over values", () => {
  const small = { fontSize: 7 };
  const page = ruledPage(
    [
      run("Country of", 105, 204, small),
      run("destination:", 105, 213, small),
      run("Norway", 105, 232),
      run("Carrier", 225, 204, small),
      run("Posten", 225, 232),
      run("Packages", 345, 204, small),
      run("3", 345, 232),
    ],
    fullGrid(XS, YS),
  );
  const [table, ...more] = detectRuledTables(page);
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["Country of destination:", "Carrier", "Packages"],
    ["Norway", "Posten", "3"],
  ]);
});

test("boxes side by side, a larger title over its text in each, make no table", () => {
  const big = { fontSize: 14 };
  const page = ruledPage(
    [
      run("Fast", 105, 204, big),
      run("Runs in a second", 105, 232),
      run("Small", 225, 204, big),
      run("Fits any disk", 225, 232),
      run("Open", 345, 204, big),
      run("Read the code", 345, 232),
    ],
    fullGrid(XS, YS),
  );
  assert.deepEqual(detectRuledTables(page), []);
});

test("the shipment box of a commercial invoice reads as labels over values", async () => {
  const tables = await realWorldRuledTables("duck-commercial-invoice-p1.pdf");
  const box = tables.find((t) => t.cells.some((c) => c.text === "Exporting Carrier"));
  assert.ok(box);
  assert.deepEqual(grid(box), [
    ["Country of ultimate destination:", "Exporting Carrier", "Total number of packages", "Gross Weight"],
    ["Brazil", "FedEx", "1", "1 lb 1 oz"],
  ]);
});
