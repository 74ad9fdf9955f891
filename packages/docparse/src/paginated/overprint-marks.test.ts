import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { blockText } from "./blocks.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { overprintMarks } from "./overprint-marks.ts";
import { LEFT_COLUMN, pageGeometry, textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** A chapter title in 24 pt broken over two lines, `mark` in 8 pt set at `markX` on its first line, prose under it. */
function titledPage(markX: number, mark = "s") {
  const runs = [
    textRun("Second", { x1: 90, y1: 100, x2: 180, y2: 128 }, { fontSize: 24 }),
    textRun("Trea-", { x1: 200, y1: 100, x2: 262, y2: 128 }, { fontSize: 24 }),
    textRun(mark, { x1: markX, y1: 114, x2: markX + 3, y2: 123 }, { fontSize: 8 }),
    textRun("tise", { x1: 90, y1: 130, x2: 140, y2: 158 }, { fontSize: 24 }),
    ...LEFT_COLUMN.map((text, i) => textRun(text, { x1: 90, y1: 180 + 12 * i, x2: 300, y2: 190 + 12 * i })),
  ];
  return pageGeometry({ runs });
}

function pageText(page: ReturnType<typeof titledPage>): string {
  return layoutPage(page, STAGES)
    .entries.flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ");
}

test("a small mark drawn over a title's letters is read after the text, the title's word whole", () => {
  const page = titledPage(245);
  assert.deepEqual(
    [...overprintMarks(page.runs)].map((run) => run.text),
    ["s"],
  );
  assert.match(pageText(page), /^Second Treatise .* s$/, pageText(page));
});

test("a small mark past a word's end (a note mark) stays where it is", () => {
  assert.equal(overprintMarks(titledPage(263).runs).size, 0);
});

test("a parallel edition's chapter title reads whole, over the mark drawn on it", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("reledpar-ru-he-parallel.pdf", [
    { before: ["Глава 1", "Трактат Второй"] },
    { before: ["Трактат Второй", "О краеугольных [принципах] Торы"] },
  ]);
});
