import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { blockText } from "./blocks.ts";
import { gutterLineNumbers } from "./gutter-numbers.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

// Affiliation marks (1 to 5, each before its affiliation's line) stacked left of centered text, with a stamp running
// up the page's margin: the stamp is on no line, so the marks have text on one side only and are no gutter numbers.
test("numbers with only a sideways stamp to their left are not line numbers in a gutter", () => {
  const marks = [1, 2, 3, 4, 5].map((n, i) =>
    textRun(String(n), { x1: 200, y1: 100 + i * 24, x2: 204, y2: 107 + i * 24 }, { fontSize: 7 }),
  );
  const text = [1, 2, 3, 4, 5].map((n, i) =>
    textRun(`Affiliation ${n}`, { x1: 206, y1: 101 + i * 24, x2: 300, y2: 111 + i * 24 }),
  );
  const stamp = textRun(
    "arXiv:2103.15348v2 [cs.CV] 21 Jun 2021",
    { x1: 20, y1: 60, x2: 38, y2: 400 },
    { vertical: true },
  );
  assert.equal(gutterLineNumbers([...marks, ...text, stamp], 10).size, 0);
  // Text on both sides on their own lines still makes them gutter numbers.
  const left = [1, 2, 3, 4, 5].map((n, i) =>
    textRun(`Left line ${n}`, { x1: 90, y1: 101 + i * 24, x2: 190, y2: 111 + i * 24 }),
  );
  assert.equal(gutterLineNumbers([...marks, ...text, ...left], 10).size, 5);
});

test("the LNCS preprint keeps each affiliation's mark before it", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/layoutparser-lncs-p1.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), STAGES);
    const text = layout.entries
      .map((e) => (e.kind === "block" ? blockText(e.block) : `[${e.kind}]`))
      .join(" | ");
    assert.match(text, /1 Allen Institute for AI/, text);
    assert.match(text, /5 University of Waterloo/, text);
  } finally {
    await doc.destroy();
  }
});
