import assert from "node:assert/strict";
import { test } from "node:test";
import {
  drawLine,
  drawParagraph,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
} from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * A header row over one row of values, set apart by wide gaps, is a table of two rows; two lines of prose, labels
 * with their values, or too few columns are not.
 */

/** Two lines at y 100 and 114: one run per cell at the given x. */
function twoLines(top: readonly string[], bottom: readonly string[], xs: readonly number[]): TextRun[] {
  return [...top.map((text, i) => run(text, xs[i], 100)), ...bottom.map((text, i) => run(text, xs[i], 114))];
}

const XS = [72, 130, 188, 246, 304];

test("letters over figures in five columns wide apart make a table of two rows", () => {
  const runs = twoLines(["A", "B", "C", "D", "E"], ["0.50", "0.47", "0.48", "0.60", "1.00"], XS);
  const [table, ...more] = detectAlignedTables(pageGeometry({ runs }));
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["A", "B", "C", "D", "E"],
    ["0.50", "0.47", "0.48", "0.60", "1.00"],
  ]);
});

test("two lines of few columns, of labels with values, or of cells not over one another are no table", () => {
  const page = (runs: TextRun[]) => pageGeometry({ runs });
  // Three columns only.
  assert.deepEqual(detectAlignedTables(page(twoLines(["A", "B", "C"], ["0.50", "0.47", "0.48"], XS))), []);
  // Labels and values of several words: no single tokens.
  assert.deepEqual(
    detectAlignedTables(
      page(
        twoLines(
          ["Name: Ann", "Date: May", "Ref: 12", "Page: 1"],
          ["Tel: 555", "Fax: 556", "VAT: 7", "No: 2"],
          XS,
        ),
      ),
    ),
    [],
  );
  // The bottom row's cells stand between the top row's, not under them.
  assert.deepEqual(
    detectAlignedTables(
      page([
        ...["A", "B", "C", "D"].map((text, i) => run(text, XS[i], 100)),
        ...["1", "2", "3", "4"].map((text, i) => run(text, XS[i] + 29, 114)),
      ]),
    ),
    [],
  );
  // Words a word space apart, as in a line of prose.
  const close = [72, 84, 96, 108, 120];
  assert.deepEqual(
    detectAlignedTables(page(twoLines(["a", "b", "c", "d", "e"], ["f", "g", "h", "i", "j"], close))),
    [],
  );
});

test("a page drawn with pdf-lib: a two-row table between paragraphs is read as a table", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const text =
    "The same options are available for tables. The table below holds a couple of numbers, one under each letter, " +
    "and is followed by its caption and by more text of the page.";
  const { next } = drawParagraph(page, text, { x: 72, top: 72, width: 400, font: fonts.regular, size: 10 });
  const letters = ["A", "B", "C", "D", "E", "F", "G"];
  const figures = ["0.50", "0.47", "0.48", "0.50", "0.47", "0.48", "0.60"];
  for (const [i, letter] of letters.entries())
    drawLine(page, letter, 80 + 45 * i, next + 10, fonts.regular, 10);
  for (const [i, figure] of figures.entries())
    drawLine(page, figure, 76 + 45 * i, next + 24, fonts.regular, 10);
  drawParagraph(page, "Table 1: A couple of numbers in a table of two rows.", {
    x: 72,
    top: next + 44,
    width: 400,
    font: fonts.regular,
    size: 8,
  });
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown);
  assert.ok(
    rows.some((row) => row.join("|") === "a|b|c|d|e|f|g"),
    result.markdown,
  );
  assert.ok(
    rows.some((row) => row.join("|") === "0 50|0 47|0 48|0 50|0 47|0 48|0 60"),
    result.markdown,
  );
});

test("public page: a book's tables of letters over numbers, two rows each", async () => {
  await assertPdfFacts("caesar-sidenotes-p11.pdf", [
    { neighbours: ["A", "B"] },
    { neighbours: ["J", "K"] },
    { neighbours: ["0.39", "1.00"] },
  ]);
});
