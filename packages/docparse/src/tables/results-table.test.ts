import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * A report's results table without rules (a scan's, read by OCR): score columns filled in one row of many under
 * their header, and an image's caption beside the table's lower rows, across a wide gap.
 */

const REGIONS = ["Arm", "Ribs", "Spine", "Pelvis", "Leg", "Neck", "Hip", "Subtotal", "Total"];
const XS = [320, 380, 430, 480, 530, 570];

/** Header over region rows: area, mass and density filled; the two score columns only in the last row. */
function results(): TextRun[] {
  const runs = ["Region", "Area", "Mass", "Dens", "T", "Z"].map((label, c) => run(label, XS[c], 100));
  for (const [r, region] of REGIONS.entries()) {
    const y = 116 + 14 * r;
    runs.push(run(region, XS[0], y));
    for (const [c, value] of [`${100 + r}.5`, `${200 + r}.1`, `0.${80 + r}`].entries())
      runs.push(run(value, XS[c + 1], y));
    if (r === REGIONS.length - 1) runs.push(run("-0.5", XS[4], y), run("0.3", XS[5], y));
  }
  return runs;
}

test("columns nearly empty under their header do not keep a results table from being one", () => {
  const tables = detectAlignedTables(pageGeometry({ runs: results() }));
  assert.equal(tables.length, 1);
  const rows = grid(tables[0]);
  assert.deepEqual(rows[0], ["Region", "Area", "Mass", "Dens", "T", "Z"]);
  assert.deepEqual(rows[2], ["Ribs", "101.5", "201.1", "0.81", "", ""]);
  assert.deepEqual(rows[rows.length - 1], ["Total", "108.5", "208.1", "0.88", "-0.5", "0.3"]);
});

test("a caption beside a table's lower rows, across a wide gap, is no column of it", () => {
  const caption = ["Image not for diagnosis", "k = 1.180", "DAP: 13.1"].map((line, k) =>
    run(line, 60, 186 + 14 * k),
  );
  const tables = detectAlignedTables(pageGeometry({ runs: [...results(), ...caption] }));
  const table = tables.find((t) => grid(t).some((row) => row.includes("Region")));
  assert.ok(table, JSON.stringify(tables.map(grid)));
  const rows = grid(table);
  assert.equal(rows.length, REGIONS.length + 1);
  assert.ok(!rows.flat().some((cell) => cell.includes("Image")));
});

test("public page: a scanned body-scan report's results table keeps its columns", {
  timeout: 300_000,
}, async () => {
  await assertPdfFacts("scan-dxa-body-report.pdf", [
    { neighbours: ["211.89", "169.76"] },
    { neighbours: ["Pelvis", "240.04"] },
    { neighbours: ["Subtotal", "1896.58"] },
    { neighbours: ["2455.33", "1.152"] },
  ]);
});
