import assert from "node:assert/strict";
import { test } from "node:test";
import { markdownRows } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

const XS = [100, 180, 250, 320];
const ROWS = [
  ["Arm", "197.8", "159.6", "0.807"],
  ["Ribs", "143.1", "98.7", "0.689"],
  ["Spine", "148.8", "130.7", "0.878"],
  ["Pelvis", "240.0", "307.2", "1.280"],
  ["Leg", "376.7", "485.6", "1.289"],
];

/** A results table without rules: a header, its units on a second line set solid under it, rows 16 pt apart. */
function results(second: (string | null)[], secondGap = -1): TextRun[] {
  const runs = ["Region", "Area", "Mass", "Density"].map((label, c) => run(label, XS[c], 100));
  for (const [c, unit] of second.entries()) if (unit) runs.push(run(unit, XS[c], 112 + secondGap));
  for (const [r, row] of ROWS.entries())
    for (const [c, text] of row.entries()) runs.push(run(text, XS[c], 134 + 16 * r));
  return runs;
}

test("an aligned table's header labels wrapped on a second line set solid under them are one header row", () => {
  const [table] = detectAlignedTables(pageGeometry({ runs: results([null, "(cm2)", "(g)", "(g/cm2)"]) }));
  assert.ok(table);
  const rows = grid(table);
  assert.deepEqual(rows[0], ["Region", "Area (cm2)", "Mass (g)", "Density (g/cm2)"]);
  assert.deepEqual(rows[1], ROWS[0]);
  assert.equal(rows.length, ROWS.length + 1);
});

test("a second line set a row's gap under the header, or with a cell under no label, or over no figures, stays a row", () => {
  // Set as far under the header as the rows are apart: a row of its own.
  const spaced = detectAlignedTables(pageGeometry({ runs: results([null, "(cm2)", "(g)", "(g/cm2)"], 4) }));
  assert.equal(grid(spaced[0]).length, ROWS.length + 2);
  // A second line with a word under the first column only where the header has none there: no wrapped label.
  const runs = ["Area", "Mass", "Density"].map((label, c) => run(label, XS[c + 1], 100));
  runs.push(run("Region", XS[0], 111), run("(cm2)", XS[1], 111));
  for (const [r, row] of ROWS.entries())
    for (const [c, text] of row.entries()) runs.push(run(text, XS[c], 134 + 16 * r));
  const [table] = detectAlignedTables(pageGeometry({ runs }));
  assert.equal(grid(table).length, ROWS.length + 2);
  // Authors' blocks side by side: a name over an affiliation set solid, more names and places under them.
  const blocks = [
    ["Ann Lee", "Bo Chan", "Cy Diaz"],
    ["Acme Labs", "Beta Inc", "Core Group"],
    ["Oslo, Norway", "Lund, Sweden", "Turku, Finland"],
    ["Dee Fox", "Eve Gray", "Flo Hart"],
    ["Delta Co", "Echo Ltd", "Fox Corp"],
    ["Rome, Italy", "Pisa, Italy", "Bari, Italy"],
  ];
  const ys = [100, 111, 130, 146, 162, 178];
  const people = blocks.flatMap((row, r) => row.map((text, c) => run(text, 100 + 120 * c, ys[r])));
  const [authors] = detectAlignedTables(pageGeometry({ runs: people }));
  if (authors) assert.deepEqual(grid(authors)[0], blocks[0]);
});

// The public test of junk-columns.ts and glued-words.ts too: the scan's rule read as `|)` beside the header's
// second line made a seventh column, and a cell under no label of the first line; OCR read `L Arm` as `LArm`.
test("public page: a scanned body-scan report's results table has one header row over its regions, six columns", {
  timeout: 300_000,
}, async () => {
  const markdown = await engineMarkdown(`${REAL_WORLD_DIR}/scan-dxa-body-report.pdf`, []);
  const rows = markdownRows(markdown);
  const header = rows.findIndex((row) => row[0] === "region");
  assert.ok(header >= 0, markdown);
  assert.match(rows[header][1], /^area cm/);
  assert.equal(rows[header].length, 6);
  assert.deepEqual(rows[header + 1].slice(0, 2), ["l arm", "197 82"]);
});
