import assert from "node:assert/strict";
import { test } from "node:test";
import type { DetectedTable } from "../paginated/geometry.ts";
import { mergeContinuedTables, type PageTable } from "./merge.ts";

/** A table of single cells: columns at `xs`, rows 20 points high from `top`, the first `header` rows headers. */
function table(rows: string[][], xs: number[], top: number, header = 1): DetectedTable {
  const cells = rows.flatMap((row, r) =>
    row.map((text, c) => ({
      row: r,
      col: c,
      rowSpan: 1,
      colSpan: 1,
      text,
      box: { x1: xs[c], y1: top + 20 * r, x2: xs[c + 1], y2: top + 20 * (r + 1) },
      columnHeader: r < header,
      rowHeader: false,
    })),
  );
  return {
    box: { x1: xs[0], y1: top, x2: xs[xs.length - 1], y2: top + 20 * rows.length },
    numRows: rows.length,
    numCols: rows[0].length,
    cells,
    method: "ruled",
  };
}

const HEADER = ["Item", "Qty", "Price"];
const XS = [72, 250, 350, 540];
const at = (page: number, t: DetectedTable): PageTable => ({ page, table: t, pageHeight: 792 });

test("a table at the bottom of a page continued at the top of the next is one table", () => {
  const first = table([HEADER, ["a", "1", "2.00"], ["b", "2", "3.00"]], XS, 650);
  // The continuation repeats the header; a left-hand page sets it 18 points further left.
  const second = table(
    [HEADER, ["c", "3", "4.00"], ["d", "4", "5.00"]],
    XS.map((x) => x - 18),
    60,
  );
  const groups = mergeContinuedTables([at(3, first), at(4, second)]);
  assert.equal(groups.length, 1);
  const [group] = groups;
  assert.deepEqual(group.members, [0, 1]);
  assert.deepEqual(group.pages, [3, 4]);
  assert.deepEqual([group.startPage, group.endPage, group.numCols], [3, 4, 3]);
  assert.equal(group.table.numRows, 5);
  assert.deepEqual(
    group.table.cells.filter((c) => c.col === 0).map((c) => [c.row, c.text, c.columnHeader]),
    [
      [0, "Item", true],
      [1, "a", false],
      [2, "b", false],
      [3, "c", false],
      [4, "d", false],
    ],
  );
  assert.deepEqual(group.rowPages, [3, 3, 3, 4, 4]);
});

test("a continuation without a repeated header keeps all its rows, across three pages", () => {
  const groups = mergeContinuedTables([
    at(1, table([HEADER, ["a", "1", "2"]], XS, 700)),
    at(
      2,
      table(
        [
          ["b", "2", "3"],
          ["c", "3", "4"],
          ["d", "4", "5"],
        ],
        XS,
        50,
        0,
      ),
    ),
  ]);
  assert.equal(groups.length, 1);
  assert.equal(groups[0].table.numRows, 5);
  assert.deepEqual(
    groups[0].table.cells.filter((c) => c.col === 0).map((c) => c.text),
    ["Item", "a", "b", "c", "d"],
  );

  // A full-page part continues onwards.
  const long = Array.from({ length: 34 }, (_, k) => [`r${k}`, `${k}`, `${k}.0`]);
  const chain = mergeContinuedTables([
    at(5, table([HEADER, ...long.slice(0, 3)], XS, 680)),
    at(6, table(long.slice(3, 33), XS, 60, 0)),
    at(7, table(long.slice(33), XS, 60, 0)),
  ]);
  assert.equal(chain.length, 1);
  assert.deepEqual(chain[0].pages, [5, 6, 7]);
  assert.equal(chain[0].table.numRows, 35);
});

test("tables that differ in columns, or do not sit at the page's bottom and top, stay apart", () => {
  const first = table([HEADER, ["a", "1", "2"]], XS, 700);
  assert.deepEqual(
    mergeContinuedTables([
      at(1, first),
      at(
        2,
        table(
          [
            ["b", "2"],
            ["c", "3"],
          ],
          [72, 300, 540],
          60,
          0,
        ),
      ),
    ]),
    [],
  );
  // Same count, columns elsewhere.
  assert.deepEqual(
    mergeContinuedTables([at(1, first), at(2, table([["b", "2", "3"]], [72, 120, 480, 540], 60, 0))]),
    [],
  );
  // The first table ends mid-page; the second starts mid-page; pages not consecutive.
  assert.deepEqual(
    mergeContinuedTables([
      at(1, table([HEADER, ["a", "1", "2"]], XS, 200)),
      at(2, table([["b", "2", "3"]], XS, 60, 0)),
    ]),
    [],
  );
  assert.deepEqual(mergeContinuedTables([at(1, first), at(2, table([["b", "2", "3"]], XS, 500, 0))]), []);
  assert.deepEqual(mergeContinuedTables([at(1, first), at(3, table([["b", "2", "3"]], XS, 60, 0))]), []);
  // Only the last table of a page and the first of the next can continue each other.
  const groups = mergeContinuedTables([
    at(1, first),
    at(2, table([["b", "2", "3"]], XS, 60, 0)),
    at(2, table([["z", "9", "9"]], XS, 400, 0)),
  ]);
  assert.equal(groups.length, 1);
  assert.deepEqual(groups[0].members, [0, 1]);
});
