import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { tableStage } from "./tables-stage.ts";
import { LEFT_COLUMN, pageGeometry, parallelPageRuns } from "./test-geometry.ts";

test("two texts side by side, each line numbered at its margin, are no table of numbers and lines", () => {
  // Ten numbered lines on the left, four on the right: the numbers line up as a table's first and last columns.
  const left = [...LEFT_COLUMN, "and then a ninth line and a tenth", "that ends the column."];
  assert.deepEqual(tableStage(pageGeometry({ runs: parallelPageRuns(left, true) })), []);
});

test("a parallel edition's numbered columns read as text, not as one table", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "reledpar-ru-he-parallel.pdf"));
  assert.doesNotMatch(markdown, /<table|\|/, markdown);
});
