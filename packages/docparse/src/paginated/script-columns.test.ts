import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { blockText } from "./blocks.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { HEBREW_COLUMN, LEFT_COLUMN, pageGeometry, parallelPageRuns } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

function pageText(runs: ReturnType<typeof parallelPageRuns>): string {
  return layoutPage(pageGeometry({ runs }), STAGES)
    .entries.flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ")
    .replace(/\s+/g, " ");
}

test("a Latin column 3 pt from a Hebrew one is read whole before it, not across the rows", () => {
  const text = pageText(parallelPageRuns(LEFT_COLUMN, false));
  assert.ok(text.includes(LEFT_COLUMN.join(" ")), text);
  assert.ok(text.includes(HEBREW_COLUMN.join(" ")), text);
});

test("one script's lines with a river of word spaces 3 pt wide stay lines", () => {
  // The same geometry with Latin on both sides: no scripts part it, and a 3 pt strip is no gutter.
  const runs = parallelPageRuns(LEFT_COLUMN, false).map((run) =>
    run.dir === "rtl" ? { ...run, text: "and so the sentence goes on", dir: "ltr" as const } : run,
  );
  const text = pageText(runs);
  assert.ok(text.includes(`${LEFT_COLUMN[0]} and so the sentence goes on`), text);
});

test("a parallel edition's Russian column is read whole, then its Hebrew one", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("reledpar-ru-he-parallel.pdf", [
    {
      present:
        "О краеугольных [принципах] Торы, имеется ввиду, которые [есть] основы и столпы на которых дом Б-жий опирается/нахон",
    },
    { present: "и если бы было представлено отсутствие одного из них — упадет Тора в общем, [Б-же] упаси" },
    { before: ["упаси", "בפנות התוריות"] },
    { before: ["בפנות התוריות", "העדר אחת מהם"] },
  ]);
});
