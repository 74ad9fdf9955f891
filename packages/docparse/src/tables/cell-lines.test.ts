import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import type { TableItem } from "../model.ts";
import { assembleDocument } from "../paginated/assemble.ts";
import { layoutPage } from "../paginated/layout.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

/**
 * A class calendar ruled week by week: a header of days, then six weeks, each day's date at its cell's left and
 * its class number at the right; two weeks hold notes under their dates, over two and three lines.
 */
function calendarPage() {
  const xs = [100, 200, 300, 400, 500];
  const ys = [100, 120, 160, 200, 250, 300, 340, 380];
  const runs = ["Monday", "Tuesday", "Thursday", "Friday"].map((day, c) => run(day, xs[c] + 4, 104));
  let n = 1;
  for (let w = 0; w < 6; w++) {
    const y = ys[w + 1] + 3;
    for (let c = 0; c < 4; c++) {
      runs.push(run(`${10 + w * 7 + c}th`, xs[c] + 4, y));
      // Thursday has no class: no number.
      if (c !== 2) {
        const label = String(n++);
        runs.push(run(label, xs[c + 1] - 4 - label.length * 5, y));
      }
    }
  }
  // Week 3: an exam under Tuesday's date, a reading over three lines under Friday's, each note running across
  // the cell under the date and the number.
  runs.push(run("Midterm Exam today", 204, 215));
  runs.push(run("Sorting and sifting", 404, 215), run("disporting", 404, 227), run("§1.2", 404, 239));
  // Week 4: a reading under Monday's date.
  runs.push(run("Tending and rending", 104, 265), run("again", 104, 277));
  return ruledPage(runs, fullGrid(xs, ys));
}

test("a calendar's cells keep their notes: one row a week, the notes in their day's cell", () => {
  const [table] = detectRuledTables(calendarPage());
  assert.ok(table);
  const rows = grid(table);
  assert.equal(rows.length, 7, JSON.stringify(rows));
  assert.deepEqual(rows[3], [
    "24th 7",
    "25th 8 Midterm Exam today",
    "26th",
    "27th 9 Sorting and sifting disporting §1.2",
  ]);
  assert.deepEqual(rows[4], ["31th 10 Tending and rending again", "32th 11", "33th", "34th 12"]);
});

test("a day's number set right of its date is no column of its own when a note runs across between them", () => {
  const [table] = detectRuledTables(calendarPage());
  assert.ok(table);
  assert.equal(table.numCols, 4);
  assert.deepEqual(grid(table)[1], ["10th 1", "11th 2", "12th", "13th 3"]);
});

test("termcal-class-calendar-p2: each week is one row, Tuesday one column", async () => {
  await assertPdfFacts("termcal-class-calendar-p2.pdf", [
    { neighbours: ["Sep 26th 1", "28th 2"] },
    { neighbours: ["28th 2", "29th"] },
    { neighbours: ["13th", "14th 9 §1.2,1.3 Sorting and disporting"] },
    { neighbours: ["31st No Class Halloween", "Nov 2nd 16"] },
  ]);
});

/**
 * A Korean comparison table: the left cell's lines wrap at any syllable, as a justified Korean cell does; the
 * right cell spells some of the words whole.
 */
function koreanTablePage() {
  const xs = [100, 220, 400];
  const ys = [100, 120, 200];
  const runs = [run("현 행", 104, 104), run("개 정 안", 224, 104)];
  // Widest line 164; a line reaching 134 or further filled the cell and wrapped; `각 대표` (to 124) stopped short.
  const left = ["아동, 청년, 여", "성, 노동자, 중소상공", "인, 시민사회단체 등", "각 대표", "성을 반영한다"];
  left.forEach((text, k) => {
    runs.push(run(text, 104, 124 + 14 * k));
  });
  runs.push(run("여성을 중소상공인의 대표성이", 224, 124));
  return ruledPage(runs, fullGrid(xs, ys));
}

test("a Korean word a cell breaks at a line end joins again where the document spells it whole", () => {
  const page = koreanTablePage();
  const layout = layoutPage(page, { detectTables: detectRuledTables, dropStruck: false });
  const doc = assembleDocument([layout], {
    mimeType: "application/pdf",
    backend: "pdf",
    pages: [{ pageNumber: 1, size: { width: page.width, height: page.height } }],
    plain: false,
    mergeTables: false,
    warnings: [],
  });
  const table = doc.items.find((item): item is TableItem => item.label === "table");
  assert.ok(table);
  const cell = table.cells.find((c) => c.row === 1 && c.col === 0);
  // `여` + `성` and `중소상공` + `인` are spelled whole in the other cell; `등` + `각` is not; `대표` + `성을` is, but
  // the line `각 대표` stops short of the cell's width: it ended there.
  assert.equal(cell?.text, "아동, 청년, 여성, 노동자, 중소상공인, 시민사회단체 등 각 대표 성을 반영한다");
});

test("ko-bill-amendment-p3-p7: the comparison table's words broken at its cells' line ends read whole", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("ko-bill-amendment-p3-p7.pdf", [
    {
      present:
        "위원을 위촉할 때에는 아동, 청년, 여성, 노동자, 농어민, 중소상공인, 시민사회단체 등 다양한 사회계층으로부터 후보를 추천받거나 의견을 들은 후 각 사회계층의 대표성이 반영될 수 있도록",
    },
    { present: "「노동조합 및 노동관계조정법」 제10조제2항에 따른 총연합단체" },
  ]);
});
