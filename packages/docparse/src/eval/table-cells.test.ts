import assert from "node:assert/strict";
import { test } from "node:test";
import { expectedTables, placedMatches, scoreCells, tableGrid } from "./table-cells.ts";

test("expected CSV records split into tables where the field count changes; blank records dropped", () => {
  const tables = expectedTables([
    ["a", "b"],
    ["1", "2"],
    ["", ""],
    ["x", "y", "z"],
  ]);
  assert.deepEqual(tables, [
    [
      ["a", "b"],
      ["1", "2"],
    ],
    [["x", "y", "z"]],
  ]);
});

test("cells count where they sit at the offset most cells agree on, whitespace aside", () => {
  const expected = [
    ["Name", "Count"],
    ["alpha", "1 2"],
    ["beta", "7"],
  ];
  // The detected table has an extra title row and column; "beta"'s count is lost.
  const detected = [
    ["Title", "", ""],
    ["#", "Name", "Count"],
    ["1", "alpha", "12"],
    ["2", "beta", ""],
  ];
  assert.equal(placedMatches(expected, detected), 5);
  // A column boundary lost: the texts are there, but not in place.
  const merged = [["Name Count"], ["alpha 12"], ["beta 7"]];
  assert.equal(placedMatches(expected, merged), 0);
});

test("a document's score takes, for each expected table, the detected table that holds most of it", () => {
  const expected = [
    [["a", "b"]],
    [
      ["c", "d"],
      ["e", ""],
    ],
  ];
  const detected = [
    [
      ["c", "d"],
      ["e", "f"],
    ],
    [["a", "x"]],
  ];
  assert.deepEqual(scoreCells(expected, detected), { expected: 5, matched: 4 });
  assert.deepEqual(scoreCells(expected, []), { expected: 5, matched: 0 });
});

test("a model table becomes a grid with each cell's text at its row and column", () => {
  const grid = tableGrid({
    numRows: 2,
    numCols: 2,
    cells: [
      { row: 0, col: 0, text: "wide" },
      { row: 1, col: 1, text: "x" },
    ],
  });
  assert.deepEqual(grid, [
    ["wide", ""],
    ["", "x"],
  ]);
});

test("an expected CSV holding two tables of one width is matched piece by piece, each detected table once", () => {
  const expected = [
    [
      ["Scenario A", ""],
      ["x", "1"],
      ["Scenario B", ""],
      ["x", "2"],
    ],
  ];
  const first = [
    ["Scenario A", ""],
    ["x", "1"],
  ];
  const second = [
    ["Scenario B", ""],
    ["x", "2"],
  ];
  assert.deepEqual(scoreCells(expected, [first, second]), { expected: 6, matched: 6 });
  // One detected table cannot stand for both pieces.
  assert.deepEqual(scoreCells(expected, [first]), { expected: 6, matched: 3 });
});
