import assert from "node:assert/strict";
import { test } from "node:test";
import type { DetectedTable, Rule, TextRun } from "../paginated/geometry.ts";
import { hRule as h, pageGeometry, vRule as v } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, run } from "./test-geometry.ts";

/** Rows as `a | b | …` of the cells from `from` on. */
const rowTexts = (tables: readonly DetectedTable[], from = 0) =>
  tables.flatMap((t) => grid(t)).map((row) => row.slice(from).join(" | "));

// Columns 100|200|300|400|500|540: group, label, code, site, cluster. Rules under the header and between the
// groups only; every column ruled. Entries 12 pt apart; a group's label and number set between its entries.
const XS = [100, 200, 300, 400, 500, 540];
const groupRules = (ys: number[]): Rule[] => [
  ...ys.map((y) => h(y, XS[0], XS[XS.length - 1])),
  ...XS.map((x) => v(x, ys[0], ys[ys.length - 1])),
];

test("a table ruled only between groups splits each group into its aligned rows, the labels spanning them", () => {
  const runs: TextRun[] = [
    ...["Group", "Label", "Code", "Site", "No."].map((text, c) => run(text, XS[c] + 4, 104, { bold: true })),
    // Group one: two entries, label and number centered between them.
    run("Low", 104, 130),
    run("High Forb", 204, 130),
    run("CPO2117", 304, 124),
    run("Potwisha", 404, 124),
    run("DHO2697", 304, 136),
    run("Hospital", 404, 136),
    run("1", 504, 130),
    // Group two: four entries, a two-line label between the first and the last, the number on a middle line.
    run("Mid", 104, 190),
    run("Moderate", 204, 178),
    run("Richness", 204, 190),
    run("CBU2822", 304, 166),
    run("Buckeye", 404, 166),
    run("DMF2112", 304, 178),
    run("Flume", 404, 178),
    run("DPB1398", 304, 190),
    run("Boundary", 404, 190),
    run("DNF1773", 304, 202),
    run("Parking", 404, 202),
    run("2", 504, 184),
  ];
  const tables = detectRuledTables(pageGeometry({ runs, rules: groupRules([100, 120, 160, 220]) }));
  assert.equal(tables.length, 1);
  const rows = rowTexts(tables, 2);
  for (const entry of [
    "CPO2117 | Potwisha",
    "DHO2697 | Hospital",
    "CBU2822 | Buckeye",
    "DMF2112 | Flume",
    "DPB1398 | Boundary",
    "DNF1773 | Parking",
  ]) {
    assert.ok(
      rows.some((row) => row.startsWith(entry)),
      `${entry} a row of its own:\n${rows.join("\n")}`,
    );
  }
  // The labels and numbers span their group's rows, whole.
  const cell = (text: string) => tables[0].cells.find((c) => c.text === text);
  assert.equal(cell("High Forb")?.rowSpan, 2);
  assert.equal(cell("Moderate Richness")?.rowSpan, 4);
  assert.equal(cell("2")?.rowSpan, 4);
});

test("a ruled row whose cells wrap in parallel beside a centered label stays one row", () => {
  const runs: TextRun[] = [
    ...["Item", "Note", "More"].map((text, c) => run(text, [100, 200, 400][c] + 4, 104, { bold: true })),
    run("Alpha", 104, 130),
    run("The first line of a long note", 204, 124),
    run("wraps onto its next line.", 204, 136),
    run("Another note set beside it", 404, 124),
    run("goes on below as well.", 404, 136),
    run("Beta", 104, 166),
    run("A short note", 204, 166),
    run("Another", 404, 166),
  ];
  const xs = [100, 200, 400, 560];
  const rules = [...[100, 120, 160, 180].map((y) => h(y, 100, 560)), ...xs.map((x) => v(x, 100, 180))];
  const tables = detectRuledTables(pageGeometry({ runs, rules }));
  assert.equal(tables.length, 1);
  assert.equal(tables[0].numRows, 3, rowTexts(tables).join("\n"));
  assert.ok(
    rowTexts(tables).includes(
      "Alpha | The first line of a long note wraps onto its next line. | Another note set beside it goes on below as well.",
    ),
  );
});

test("the park service's table, ruled between groups: each site code beside its site's name", async () => {
  const tables = await realWorldRuledTables("nps-alien-plant-table-p24.pdf");
  const rows = rowTexts(tables);
  for (const pair of [
    "CPO2117 | Potwisha Campground",
    "DHO2697 | Hospital Rock Picnic Area",
    "DMF2112 | Middle Fork Flume",
    "RYU1829 | Yucca Creek",
    "DCS4897 | Crystal Cave Parking Lot",
  ]) {
    assert.ok(
      rows.some((row) => row.includes(pair)),
      `${pair} side by side:\n${rows.join("\n")}`,
    );
  }
});

test("cells of a caseless script wrapped in parallel beside a centered label stay one row", () => {
  // Korean has no lower case to tell a wrapped line by: each line but the last fills its column.
  const runs: TextRun[] = [
    ...["구분", "개정전", "개정후"].map((text, c) => run(text, [100, 200, 380][c] + 4, 104, { bold: true })),
    run("분류 기준", 104, 130),
    run("마시는 물 또는 식품을 매개로 발생", 204, 124),
    run("하고 집단 발생의 우려가 큰 감염", 204, 136),
    run("병이다", 204, 148),
    run("생물테러감염병 또는 치명률이 높거", 384, 124),
    run("나 집단 발생의 우려가 커 높은 수", 384, 136),
    run("준의 격리", 384, 148),
    run("분류", 104, 176),
    run("1군", 204, 176),
    run("1급", 384, 176),
    run("대상", 104, 201),
    run("6종", 204, 201),
    run("17종", 384, 201),
  ];
  const xs = [100, 200, 380, 560];
  const rules = [...[100, 120, 165, 190, 215].map((y) => h(y, 100, 560)), ...xs.map((x) => v(x, 100, 215))];
  const tables = detectRuledTables(pageGeometry({ runs, rules }));
  assert.equal(tables.length, 1);
  assert.equal(tables[0].numRows, 4, rowTexts(tables).join("\n"));
});

test("bands that all hold two aligned lines are rows ruled one by one, their cells on two lines", () => {
  // The same ruling, each band two lines beside a label between them: no group is larger than another.
  const band = (y: number, label: string, codes: [string, string]): TextRun[] => [
    run(label, 104, y + 6),
    run(codes[0], 304, y),
    run(`${codes[0]}x`, 404, y),
    run(codes[1], 304, y + 12),
    run(`${codes[1]}x`, 404, y + 12),
    run(label, 504, y + 6),
  ];
  const runs: TextRun[] = [
    ...["Group", "Label", "Code", "Site", "No."].map((text, c) => run(text, XS[c] + 4, 104, { bold: true })),
    ...band(124, "6", ["OTSL", "HTML"]),
    ...band(164, "4", ["OTSL", "HTML"]),
    ...band(204, "2", ["OTSL", "HTML"]),
  ];
  const tables = detectRuledTables(pageGeometry({ runs, rules: groupRules([100, 120, 160, 200, 240]) }));
  assert.equal(tables.length, 1);
  assert.equal(tables[0].numRows, 4, rowTexts(tables).join("\n"));
  assert.ok(rowTexts(tables, 2).includes("OTSL HTML | OTSLx HTMLx | 6"), rowTexts(tables).join("\n"));
});
