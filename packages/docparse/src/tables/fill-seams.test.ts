import assert from "node:assert/strict";
import { test } from "node:test";
import type { Rule } from "../paginated/geometry.ts";
import { hRule as h, vRule as v } from "../paginated/test-geometry.ts";
import { detectRuledTables } from "./ruled.ts";
import { cellAt, grid, ruledPage, run } from "./test-geometry.ts";

test("a header row of shaded cells is part of the table", () => {
  // The header is three filled rectangles above the ruled body, with no rule of its own.
  const rects = [
    { x1: 100, y1: 80, x2: 200, y2: 100 },
    { x1: 200, y1: 80, x2: 300, y2: 100 },
    { x1: 300, y1: 80, x2: 400, y2: 100 },
  ];
  const rules = [h(120, 100, 400), h(140, 100, 400), v(200, 100, 140), v(300, 100, 140)];
  const runs = [
    ...["Key", "Old", "New"].map((t, c) => run(t, 104 + 100 * c, 84)),
    ...["a", "1", "2"].map((t, c) => run(t, 104 + 100 * c, 104)),
    ...["b", "3", "4"].map((t, c) => run(t, 104 + 100 * c, 124)),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rules, rects));
  assert.equal(table.numRows, 3);
  assert.deepEqual(grid(table)[0], ["Key", "Old", "New"]);
});

test("cells painted as padding strips beside a content fill have their columns at the strips' seam", () => {
  // Each cell of a word processor's shaded table: a 5 pt strip, the content area, a 5 pt strip, all touching.
  const xs = [100, 200, 300, 400];
  const ys = [100, 120, 140, 160];
  const rects = ys.slice(0, -1).flatMap((y1, r) =>
    xs.slice(0, -1).flatMap((x1, c) => {
      const x2 = xs[c + 1];
      const y2 = ys[r + 1];
      return [
        { x1, y1, x2: x1 + 5, y2 },
        { x1: x1 + 5, y1, x2: x2 - 5, y2 },
        { x1: x2 - 5, y1, x2, y2 },
      ];
    }),
  );
  const rows = [
    ["Key", "Old", "New"],
    ["a", "1", "2"],
    ["b", "3", "4"],
  ];
  const runs = rows.flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 10, ys[r] + 4)));
  const [table] = detectRuledTables(ruledPage(runs, [], rects));
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table), rows);
  assert.deepEqual(cellAt(table, 1, 1).box, { x1: 200, y1: 120, x2: 300, y2: 140 });
});

/** Stroked rules at every row of a table 100..400 wide, with its two sides; columns only from the fills. */
function rowRules(ys: number[]): Rule[] {
  return [
    ...ys.map((y) => h(y, 100, 400, 1)),
    v(100, ys[0], ys[ys.length - 1], 1),
    v(400, ys[0], ys[ys.length - 1], 1),
  ];
}

test("a shaded cell painted as its lines' fill over a deeper padding fill is one cell, not a row over an empty row", () => {
  // Striped rows between stroked rules: each shaded cell is a strip, the content, a strip, then the padding under
  // them in a fill of its own, thicker than a padding strip in the first column (its label sits higher).
  const xs = [100, 200, 300, 400];
  const ys = [100, 122, 144, 166, 188];
  const rects = [1, 3].flatMap((r) =>
    xs.slice(0, -1).flatMap((x1, c) => {
      const [x2, y1, y2] = [xs[c + 1], ys[r] + 0.5, ys[r + 1] - 0.5];
      const seam = c === 0 ? y1 + 11 : y1 + 14;
      return [
        { x1, y1, x2: x1 + 5, y2: seam },
        { x1: x1 + 5, y1, x2: x2 - 5, y2: seam },
        { x1: x2 - 5, y1, x2, y2: seam },
        { x1, y1: seam, x2, y2 },
      ];
    }),
  );
  const rows = [
    ["State", "Revenue", "Capital"],
    ["Assam", "14,874", "161"],
    ["Bihar", "21,016", "5,329"],
    ["Goa", "4,055", "330"],
  ];
  const runs = rows.flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 8, ys[r] + 2)));
  const [table] = detectRuledTables(ruledPage(runs, rowRules(ys), rects));
  assert.ok(table);
  assert.deepEqual(grid(table), rows);
});

test("a header cell's fill in pieces a few points inside its strips makes no empty column", () => {
  // The last header cell wraps on two lines: its side strips run its whole height, its content fill is one piece
  // per line, so the strips' and the pieces' edges stand 5 pt apart on each side.
  const xs = [100, 200, 300, 400];
  const ys = [100, 130, 150, 170, 190];
  const rects = [
    { x1: 100, y1: 100.5, x2: 200, y2: 129.5 },
    { x1: 200, y1: 100.5, x2: 300, y2: 129.5 },
    { x1: 300, y1: 100.5, x2: 305, y2: 125 },
    { x1: 305, y1: 100.5, x2: 395, y2: 112.5 },
    { x1: 305, y1: 112.5, x2: 395, y2: 125 },
    { x1: 395, y1: 100.5, x2: 400, y2: 125 },
    { x1: 300, y1: 125, x2: 400, y2: 129.5 },
    ...[1, 3].flatMap((r) =>
      xs.slice(0, -1).map((x1, c) => ({ x1, y1: ys[r] + 0.5, x2: xs[c + 1], y2: ys[r + 1] - 0.5 })),
    ),
  ];
  const runs = [
    run("State", 108, 104),
    run("Revenue", 208, 104),
    run("Total", 308, 102),
    run("Capital", 308, 114),
    ...[
      ["Assam", "14,874", "161"],
      ["Bihar", "21,016", "5,329"],
      ["Goa", "4,055", "330"],
    ].flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 8, ys[r + 1] + 4))),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rowRules(ys), rects));
  assert.ok(table);
  assert.equal(table.numCols, 3);
  const rows = grid(table);
  assert.deepEqual(rows[0], ["State", "Revenue", "Total"]);
  assert.match(rows.map((row) => row[2]).join(" "), /^Total Capital 161 5,329 330$/);
  assert.deepEqual(rows.at(-2), ["Bihar", "21,016", "5,329"]);
});

/**
 * A stroked grid whose header cells are shaded line by line, as a word processor paints them: each column a fill
 * for the header's first line and one for its second, so a seam runs across the header between its two lines.
 */
function headerPaintedPerLine(labels: [string, string][], body: string[][]) {
  const xs = [100, 200, 300, 400];
  const ys = [100, 124, ...body.map((_, r) => 140 + 16 * r)];
  const bottom = ys[ys.length - 1];
  const rules = [...ys.map((y) => h(y, 100, 400, 0.5)), ...xs.map((x) => v(x, 100, bottom, 0.5))];
  const rects = xs.slice(0, -1).flatMap((x1, c) => [
    { x1, y1: 100, x2: xs[c + 1], y2: 112 },
    { x1, y1: 112, x2: xs[c + 1], y2: 124 },
  ]);
  const runs = [
    ...labels.flatMap(([first, second], c) => [
      ...(first ? [run(first, xs[c] + 8, 101)] : []),
      ...(second ? [run(second, xs[c] + 8, 112.2)] : []),
    ]),
    ...body.flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 8, ys[r + 1] + 2, { fontSize: 9 }))),
  ];
  return detectRuledTables(ruledPage(runs, rules, rects));
}

test("a header label wrapped over two lines of a header row shaded line by line is one cell", () => {
  const [table] = headerPaintedPerLine(
    [
      ["", "Item"],
      ["Posting", "Date"],
      ["", "Amount"],
    ],
    [
      ["Fee", "May 2", "10.00"],
      ["Rent", "May 9", "500.00"],
    ],
  );
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["Item", "Posting Date", "Amount"],
    ["Fee", "May 2", "10.00"],
    ["Rent", "May 9", "500.00"],
  ]);
});

test("rows of the body shaded line by line stay rows: only the header's seam joins its lines", () => {
  // The same painting one row lower: the seam between two body rows, under the stroked header rule, stays.
  const xs = [100, 200, 300, 400];
  const ys = [100, 116, 140];
  const rules = [...ys.map((y) => h(y, 100, 400, 0.5)), ...xs.map((x) => v(x, 100, 140, 0.5))];
  const rects = xs.slice(0, -1).flatMap((x1, c) => [
    { x1, y1: 116, x2: xs[c + 1], y2: 128 },
    { x1, y1: 128, x2: xs[c + 1], y2: 140 },
  ]);
  const runs = [
    ...["Item", "Date", "Amount"].map((t, c) => run(t, xs[c] + 8, 102)),
    ...["Fee", "May 2", "10.00"].map((t, c) => run(t, xs[c] + 8, 117)),
    ...["Rent", "May 9", "500.00"].map((t, c) => run(t, xs[c] + 8, 128.2)),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rules, rects));
  assert.ok(table);
  assert.equal(table.numRows, 3);
  // A shaded header over a first row, no stroke between them: text on both sides of the seam in every column (or
  // over it only, where the row leaves a cell empty) is a header over a row, not labels wrapped.
  for (const first of [
    ["Fee", "May 2", "10.00"],
    ["Fee", "", "10.00"],
  ]) {
    const labels = ["Item", "Date", "Amount"].map((label, c): [string, string] => [label, first[c]]);
    const [header] = headerPaintedPerLine(labels, [
      ["Rent", "May 9", "500.00"],
      ["Gas", "May 12", "42.00"],
      ["Tax", "May 30", "80.00"],
    ]);
    assert.ok(header);
    assert.deepEqual(grid(header).slice(0, 2), [["Item", "Date", "Amount"], first]);
  }
});
