import assert from "node:assert/strict";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { hRule as h, pageGeometry, vRule as v } from "../paginated/test-geometry.ts";
import { listColumns } from "./list-columns.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, run } from "./test-geometry.ts";

/** 12 pt line pitch; a column's entries from `y` down, "" for a blank line. */
function column(x: number, y: number, lines: string[][]): TextRun[] {
  return lines.flatMap((cells, i) => cells.map((text, k) => run(text, x + k * 100, y + i * 12)));
}

/** Contests of a results bulletin: a title, then an entry per candidate (name, votes), then a blank line. */
function contests(x: number, y: number, sizes: number[], tag: string): TextRun[] {
  const lines: string[][] = [];
  sizes.forEach((size, c) => {
    lines.push([`${tag} CONTEST ${c + 1}`]);
    for (let k = 0; k < size; k++) lines.push([`${tag}${c + 1} CANDIDATE ${k + 1}`, `${100 + k}`]);
    lines.push([]);
  });
  return column(x, y, lines);
}

/** A frame from x 40 to 640, ruled columns at 240 and 440, a rule under a one-line header at 62. */
const FRAME = [
  h(40, 40, 640),
  h(62, 40, 640),
  h(400, 40, 640),
  v(40, 40, 400),
  v(240, 62, 400),
  v(440, 62, 400),
  v(640, 40, 400),
];

test("three columns of lists in one ruled frame are three tables, each list whole", () => {
  const runs = [
    run("RESULTS BULLETIN", 280, 45),
    ...contests(45, 70, [3, 3, 3, 3, 3], "A"),
    ...contests(245, 70, [2, 2, 2, 2, 2, 2, 2], "B"),
    ...contests(445, 70, [4, 4, 4, 4], "C"),
  ];
  const tables = detectRuledTables(pageGeometry({ runs, rules: FRAME }));
  assert.equal(tables.length, 3);
  const [a, b] = tables.sort((x, y) => x.box.x1 - y.box.x1).map(grid);
  assert.deepEqual(a[0], ["A CONTEST 1", ""]);
  assert.deepEqual(a[1], ["A1 CANDIDATE 1", "100"]);
  assert.deepEqual(b.at(-1), ["B7 CANDIDATE 2", "101"]);
});

test("lists under a ruled row naming each column are that table's cells: one table", () => {
  const named = [
    h(40, 40, 640),
    h(62, 40, 640),
    h(400, 40, 640),
    v(40, 40, 400),
    v(240, 40, 400),
    v(440, 40, 400),
    v(640, 40, 400),
  ];
  const runs = [
    run("Ours", 45, 45),
    run("Theirs", 245, 45),
    run("Others", 445, 45),
    ...contests(45, 70, [3, 3, 3, 3, 3], "A"),
    ...contests(245, 70, [2, 2, 2, 2, 2, 2, 2], "B"),
    ...contests(445, 70, [4, 4, 4, 4], "C"),
  ];
  const tables = detectRuledTables(pageGeometry({ runs, rules: named }));
  assert.equal(tables.length, 1);
  assert.deepEqual(grid(tables[0])[0].filter(Boolean), ["Ours", "Theirs", "Others"]);
});

test("a ruled table whose groups are set apart by blank lines across its columns stays one table", () => {
  // Row labels run on through the group headings; the numbers leave the headings' lines blank.
  const labels: string[][] = [];
  const a: string[][] = [];
  const b: string[][] = [];
  for (let g = 0; g < 4; g++) {
    labels.push([`Group ${g + 1}`]);
    a.push([]);
    b.push([]);
    for (let k = 0; k < 3; k++) {
      labels.push([`item ${g + 1}.${k + 1}`]);
      a.push([`${10 * g + k}.5`]);
      b.push([`${20 * g + k}.1`]);
    }
    labels.push([]);
    a.push([]);
    b.push([]);
  }
  const runs = [
    run("Header", 280, 45),
    ...column(45, 70, labels),
    ...column(245, 70, a),
    ...column(445, 70, b),
  ];
  const tables = detectRuledTables(pageGeometry({ runs, rules: FRAME }));
  assert.equal(tables.length, 1);
});

test("listColumns wants blocks of several lines in every column, blank lines not shared", () => {
  const lists = [contests(45, 70, [3, 3, 3, 3], "A"), contests(245, 70, [2, 2, 2, 2, 2, 2], "B")];
  assert.equal(listColumns(lists), true);
  // The same contests side by side, blank lines on the same rows: a table's groups.
  assert.equal(listColumns([contests(45, 70, [3, 3, 3], "A"), contests(245, 70, [3, 3, 3], "B")]), false);
  // A column without blank lines is a column of row labels.
  assert.equal(listColumns([contests(45, 70, [3, 3, 3], "A"), contests(245, 70, [12], "B")]), false);
});
