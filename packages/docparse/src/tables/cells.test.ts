import assert from "node:assert/strict";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import {
  bandIndex,
  cellText,
  cutRun,
  groupLines,
  hasVisibleText,
  headerRowsFromText,
  isNumeric,
  type Lattice,
  latticeRegions,
  runPiece,
  runWords,
} from "./cells.ts";
import { run } from "./test-geometry.ts";

test("a run's words get proportional boxes", () => {
  const words = runWords(run("ab  cd", 100, 0));
  assert.deepEqual(
    words.map((w) => [w.text, w.box.x1, w.box.x2]),
    [
      ["ab", 100, 110],
      ["cd", 120, 130],
    ],
  );
  const rtl = runWords(run("ab cd", 100, 0, { dir: "rtl" }));
  assert.deepEqual(
    rtl.map((w) => [w.text, w.box.x1, w.box.x2]),
    [
      ["ab", 115, 125],
      ["cd", 100, 110],
    ],
  );
  assert.deepEqual(runWords(run("\u0084", 0, 0)), []);
});

test("a run crossing a column boundary is cut there, at a nearby space", () => {
  // "0.965 0.969": 11 characters of 5 points from x=0; the boundary at 27 falls inside the second number.
  const pieces = cutRun(run("0.965 0.969", 0, 0), [27]);
  assert.deepEqual(
    pieces.map((p) => p.text),
    ["0.965", "0.969"],
  );
  assert.ok(pieces[0].box.x2 <= 27 && pieces[1].box.x1 >= 27);
  assert.deepEqual(
    cutRun(run("abcdefghij", 0, 0), [25]).map((p) => p.text),
    ["abcde", "fghij"],
  );
});

test("at a boundary read from text alignment, a run is cut at a space only, never inside a word", () => {
  assert.deepEqual(
    cutRun(run("abcdefghij", 0, 0), [], [25]).map((p) => p.text),
    ["abcdefghij"],
  );
  assert.deepEqual(
    cutRun(run("0.965 0.969", 0, 0), [], [27]).map((p) => p.text),
    ["0.965", "0.969"],
  );
});

test("boxes group into lines top to bottom, left to right", () => {
  const a = run("b", 50, 100);
  const b = run("a", 0, 101);
  const c = run("c", 0, 115);
  assert.deepEqual(
    groupLines([c, a, b]).map((line) => line.map((r) => r.text)),
    [["a", "b"], ["c"]],
  );
});

test("a cell's text joins its lines with spaces and touching runs without", () => {
  const pieces = [run("di", 0, 0), run("ffi", 10, 0), run("cult", 25, 0), run("second", 0, 14)].map(runPiece);
  assert.equal(cellText(pieces), "difficult second");
  assert.equal(cellText([runPiece(run("a\u0002", 0, 0)), runPiece(run("\u0002", 20, 0))]), "a");
  assert.equal(hasVisibleText(" \u0002 "), false);
});

test("a cell's Chinese lines wrapped inside a word join without a space; a line stopping short keeps it", () => {
  // A wrapped line fills the cell: its word runs on into the next line (`损` + `益`).
  const wrapped = [run("归属于上市公司股东的扣除非经常性损", 0, 0), run("益的净利润（元）", 0, 14)].map(
    runPiece,
  );
  assert.equal(cellText(wrapped), "归属于上市公司股东的扣除非经常性损益的净利润（元）");
  // A line ending well short of the cell's widest line ended there: two entries, kept apart.
  const entries = [run("说明", 0, 0), run("清偿债务减少预计负债计入营业外收入", 0, 14)].map(runPiece);
  assert.equal(cellText(entries), "说明 清偿债务减少预计负债计入营业外收入");
  // Latin lines still join with a space.
  assert.equal(
    cellText([run("net profit", 0, 0), run("attributable", 0, 14)].map(runPiece)),
    "net profit attributable",
  );
});

test("a right-to-left line reads right to left, its numbers left to right", () => {
  const rtl = { dir: "rtl" as const };
  // Visual order from the left: "ساليانه" 4 7.500 "توليد" — read: توليد 47.500 ساليانه.
  const pieces = [
    run("ساليانه", 0, 0, rtl),
    run("4", 40, 0),
    run("7.500", 45, 0),
    run("توليد", 75, 0, rtl),
  ].map(runPiece);
  assert.equal(cellText(pieces), "توليد 47.500 ساليانه");
});

test("numbers as tables print them", () => {
  for (const t of ["12", "-3.5", "(1,234)", "45%", "$ 10", "0.75", "1.2e-3", "—", "12*"])
    assert.ok(isNumeric(t), t);
  for (const t of ["abc", "12 apples", "", "v1.2"]) assert.ok(!isNumeric(t), t);
});

test("band index finds the interval holding a value", () => {
  const bounds = [0, 10, 20, 30];
  assert.equal(bandIndex(bounds, -5), 0);
  assert.equal(bandIndex(bounds, 5), 0);
  assert.equal(bandIndex(bounds, 10), 1);
  assert.equal(bandIndex(bounds, 29), 2);
  assert.equal(bandIndex(bounds, 99), 2);
});

test("a lattice with missing boundaries gives spanning regions", () => {
  // 3 columns × 3 rows: row 0's boundary between columns 1 and 2 is missing (a header over two columns), and
  // column 0's boundary between rows 0 and 1 is missing (a label over two rows).
  const lattice: Lattice = {
    xs: [0, 10, 20, 30],
    ys: [0, 10, 20, 30],
    vSplit: (i, r) => !(i === 2 && r === 0),
    hSplit: (j, c) => !(j === 1 && c === 0),
  };
  const { regions } = latticeRegions(lattice);
  assert.deepEqual(regions, [
    { row: 0, col: 0, rowSpan: 2, colSpan: 1 },
    { row: 0, col: 1, rowSpan: 1, colSpan: 2 },
    { row: 1, col: 1, rowSpan: 1, colSpan: 1 },
    { row: 1, col: 2, rowSpan: 1, colSpan: 1 },
    { row: 2, col: 0, rowSpan: 1, colSpan: 1 },
    { row: 2, col: 1, rowSpan: 1, colSpan: 1 },
    { row: 2, col: 2, rowSpan: 1, colSpan: 1 },
  ]);
});

test("header rows from bold, from a style of their own, or from words above numbers", () => {
  const slot = (text: string, options: Partial<TextRun> = {}) => ({
    pieces: [runPiece(run(text, 0, 0, options))],
    text,
  });
  const bold = { bold: true };
  assert.equal(
    headerRowsFromText([
      [slot("Name", bold), slot("Kind", bold)],
      [slot("a"), slot("b")],
      [slot("c"), slot("d")],
    ]),
    1,
  );
  // A column set in bold throughout is a style of the column, not a header.
  assert.equal(
    headerRowsFromText([
      [slot("Key", bold), slot("long value text")],
      [slot("Other", bold), slot("more text here")],
      [slot("Third", bold), slot("and more")],
    ]),
    0,
  );
  assert.equal(
    headerRowsFromText([
      [slot("Year"), slot("Revenue")],
      [slot("2020"), slot("1,200")],
      [slot("2021"), slot("1,350")],
    ]),
    1,
  );
  assert.equal(
    headerRowsFromText([
      [slot("alpha"), slot("beta")],
      [slot("gamma"), slot("delta")],
    ]),
    0,
  );
});
