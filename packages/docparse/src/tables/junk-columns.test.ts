import assert from "node:assert/strict";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

// The public page of this rule is header-lines.test.ts's body-scan report.

const XS = [100, 180, 250, 320];
const ROWS = [
  ["Arm", "197.8", "159.6", "0.807"],
  ["Ribs", "143.1", "98.7", "0.689"],
  ["Spine", "148.8", "130.7", "0.878"],
  ["Pelvis", "240.0", "307.2", "1.280"],
];

/** A results table read by OCR, with its readings of the frame's right side (`|)`, `|`, `l`) in a strip right of it. */
function framed(readings: (string | null)[], fontName = "ocr"): TextRun[] {
  const runs = ["Region", "Area", "Mass", "Density"].map((label, c) => run(label, XS[c], 100, { fontName }));
  for (const [r, row] of ROWS.entries()) {
    for (const [c, text] of row.entries()) runs.push(run(text, XS[c], 116 + 16 * r, { fontName }));
    const reading = readings[r];
    if (reading) runs.push(run(reading, 400, 116 + 16 * r, { fontName }));
  }
  return runs;
}

test("a column of OCR's readings of a rule, `|)` and `l`, is no column of an aligned table", () => {
  const [table] = detectAlignedTables(pageGeometry({ runs: framed(["|)", null, "l", "|"]) }));
  assert.ok(table);
  assert.deepEqual(grid(table), [["Region", "Area", "Mass", "Density"], ...ROWS]);
  // The table still covers the strip, so its signs are read as part of it, not as loose text beside it.
  assert.ok(table.box.x2 >= 400);
});

test("a column of `l` alone (litres) stays a column", () => {
  const [litres] = detectAlignedTables(pageGeometry({ runs: framed(["l", "l", "l", "l"]) }));
  assert.ok(litres);
  assert.equal(litres.numCols, 5);
});
