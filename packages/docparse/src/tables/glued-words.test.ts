import assert from "node:assert/strict";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

// The public page of this rule is header-lines.test.ts's body-scan report (`LArm`, `LLeg`).

const ROWS = [
  ["LArm", "197.8", "0.807"],
  ["R Arm", "211.9", "0.801"],
  ["L Ribs", "143.1", "0.689"],
  ["R Ribs", "134.3", "0.715"],
  ["LLeg", "376.7", "1.289"],
  ["R Leg", "396.9", "1.246"],
];

function regions(fontName: string): TextRun[] {
  const runs = ["Region", "Area", "BMD"].map((label, c) => run(label, 100 + 90 * c, 100, { fontName }));
  for (const [r, row] of ROWS.entries())
    for (const [c, text] of row.entries()) runs.push(run(text, 100 + 90 * c, 116 + 14 * r, { fontName }));
  return runs;
}

test("OCR's glued words in a table's column are set apart where the column shows both words apart", () => {
  const [table] = detectAlignedTables(pageGeometry({ runs: regions("ocr") }));
  assert.ok(table);
  const names = grid(table).map((row) => row[0]);
  assert.deepEqual(names, ["Region", "L Arm", "R Arm", "L Ribs", "R Ribs", "L Leg", "R Leg"]);
});

test("a text layer's words stay as printed", () => {
  const [table] = detectAlignedTables(pageGeometry({ runs: regions("Helvetica") }));
  assert.ok(table);
  assert.equal(grid(table)[1][0], "LArm");
});
