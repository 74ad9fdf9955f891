import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { blockText } from "./blocks.ts";
import type { DetectedTable, TextRun } from "./geometry.ts";
import { layoutPage } from "./layout.ts";
import { cardParents, uniqueBoxes } from "./nested-cards.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

/** One run per line of 10 pt text from (x, y) down on a 12 pt pitch. */
function lines(texts: string[], x: number, y: number): TextRun[] {
  return texts.map((text, i) =>
    textRun(text, { x1: x, y1: y + i * 12, x2: x + text.length * 5, y2: y + i * 12 + 10 }),
  );
}

test("a note box inside a page's frame is read in its place, not after the frame's text", () => {
  // A manual's page: a frame around the whole log, a checklist, a note box, then more checklist.
  const frame = { x1: 45, y1: 50, x2: 350, y2: 470 };
  const note = { x1: 50, y1: 128, x2: 346, y2: 155 };
  const runs = [
    ...lines(["Add fuel additive", "Check the floor mat", "Inspect all fluid levels"], 60, 70),
    ...lines(["NOTE: if the oil was not changed,", "replace it."], 60, 131),
    ...lines(["Inspect the following:", "Ball joints and dust covers", "Brake lines and hoses"], 60, 170),
  ];
  const layout = layoutPage(pageGeometry({ runs, rects: [frame, note, { ...note }] }), {
    detectTables: () => [],
    dropStruck: false,
  });
  const text = layout.entries
    .map((entry) => (entry.kind === "block" ? blockText(entry.block) : ""))
    .join(" | ");
  const at = (s: string) => text.indexOf(s);
  assert.ok(at("Inspect all fluid levels") < at("NOTE:"), text);
  assert.ok(at("NOTE:") < at("Inspect the following:"), text);
});

test("a table inside a card with text is read in its place among that text, not after the card", () => {
  // A sidebar's shaded box: a rating and a risk note side by side at its top, a table of figures, a source line
  // under it, then a guidance note.
  const sidebar = { x1: 400, y1: 40, x2: 590, y2: 500 };
  const table = { x1: 405, y1: 150, x2: 585, y2: 230 };
  const runs = [
    ...lines(["Rating", "Buy", "Target price", "EUR 8.00"], 405, 60),
    ...lines(["Business risk", "Valuation risk"], 500, 60),
    ...lines(["Source: Research"], 405, 236),
    ...lines(["Guidance", "Revenue will grow this year."], 405, 280),
    ...lines(["A column of the page's own text runs", "down the left of the sidebar."], 60, 60),
  ];
  const figures: DetectedTable = {
    box: table,
    numRows: 1,
    numCols: 1,
    cells: [
      { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: "", box: table, columnHeader: false, rowHeader: false },
    ],
    method: "ruled",
  };
  const layout = layoutPage(pageGeometry({ runs, rects: [sidebar] }), {
    detectTables: () => [figures],
    dropStruck: false,
  });
  const order = layout.entries.map((entry) => (entry.kind === "block" ? blockText(entry.block) : entry.kind));
  const at = (s: string) => order.findIndex((text) => text.startsWith(s));
  assert.ok(at("Target price") < at("table"), order.join(" | "));
  assert.ok(at("table") < at("Source: Research"), order.join(" | "));
  assert.ok(at("table") < at("Guidance"), order.join(" | "));
});

test("cardParents gives each card the smallest card holding it; a card drawn twice is one", () => {
  const page = { x1: 0, y1: 0, x2: 400, y2: 600 };
  const frame = { x1: 45, y1: 50, x2: 350, y2: 470 };
  const note = { x1: 50, y1: 128, x2: 346, y2: 155 };
  const cards = uniqueBoxes([page, frame, note, { ...note, x2: 346.5 }]);
  assert.equal(cards.length, 3);
  const parents = cardParents(cards);
  assert.equal(parents.get(note), frame);
  assert.equal(parents.get(frame), page);
  assert.equal(parents.get(page), null);
});

test("public page: a research note's key-figures table is read in the sidebar before its source line", async () => {
  await assertPdfFacts("inderes-kreate-update-p2.pdf", [
    { before: ["Share price:", "2025e"] },
    { before: ["EV/S", "Source: Inderes"] },
  ]);
});
