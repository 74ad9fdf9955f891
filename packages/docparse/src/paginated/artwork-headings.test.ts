import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { toMarkdown } from "../views/markdown.ts";
import { assembleDocument } from "./assemble.ts";
import type { TextRun } from "./geometry.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));
const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** A rate sheet: a typed title and body lines, and a logo's lettering OCR read at the foot with `confidence`. */
function rateSheet(confidence: number, typedTitle = true): string {
  const runs: TextRun[] = [];
  if (typedTitle)
    runs.push(
      textRun("Savings Account Rates", { x1: 56, y1: 50, x2: 300, y2: 70 }, { fontSize: 20, bold: true }),
    );
  const lines = [
    "Interest is calculated daily on the full balance and paid monthly into the same account.",
    "Rates are variable and may change at any time; the rate on the day of deposit applies.",
    "Bonus interest is paid in any month with one deposit and no withdrawals from the account.",
  ];
  lines.forEach((line, i) => {
    runs.push(textRun(line, { x1: 56, y1: 100 + i * 14, x2: 520, y2: 110 + i * 14 }, { fontSize: 10 }));
  });
  runs.push(
    textRun(
      "Nonthwimd",
      { x1: 400, y1: 700, x2: 540, y2: 722 },
      { fontSize: 22, fontName: "ocr", confidence },
    ),
  );
  const layout = layoutPage(pageGeometry({ width: 612, height: 792, runs }), STAGES);
  const doc = assembleDocument([layout], {
    mimeType: "application/pdf",
    backend: "pdf",
    pages: [{ pageNumber: 1, size: { width: 612, height: 792 } }],
    plain: false,
    mergeTables: false,
    warnings: [],
  });
  return toMarkdown(doc, { tableOutputMode: "html", ignore: new Set(), pages: null });
}

test("a logo's lettering OCR misread is no heading on a page with a heading of its own", () => {
  const misread = rateSheet(0.7);
  assert.match(misread, /^# Savings Account Rates$/m, misread);
  assert.match(misread, /^Nonthwimd$/m, misread);
  // Read cleanly it may be a heading (a title drawn as outlines), as before.
  assert.match(rateSheet(0.95), /^#+ Nonthwimd$/m);
  // On a page with no other heading, a poor reading keeps the heading it was read as.
  assert.match(rateSheet(0.7, false), /^#+ Nonthwimd$/m);
});

test("public: the bank's logo at the foot of its rate sheet is no heading before the rates table", {
  timeout: 300_000,
}, async () => {
  const { result } = await parseDocument({
    bytes: readFileSync(`${REAL_WORLD}cba-home-loan-rates-p1.pdf`),
    mimeType: "application/pdf",
  });
  // The logo's lettering is still read, as text; the sheet's typed title and date line stay its headings.
  assert.match(result.markdown, /^C\w+wealth\w*$/m, result.markdown);
  assert.deepEqual(
    result.markdown.split("\n").filter((line) => /^#+ /.test(line)),
    [
      "# Home Loan Interest Rates",
      "## Effective as at 9 April 2019",
      "### Call us on 13 2224, 8am to 8pm, 7 days. Visit commbank.com.au or drop into any branch.",
    ],
  );
});
