import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { blockText } from "./blocks.ts";
import type { TextRun } from "./geometry.ts";
import { type LayoutStages, layoutPage, type PageEntry } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

// Blocks of short lines set solid (each line's box touching the next, no whitespace between them) side by side:
// the signature blocks under a letter, two addresses. Each block is read whole, not line across line.

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** One run per word, half an em per character, a third of an em between words. */
function words(text: string, x: number, y: number, size = 10): TextRun[] {
  const runs: TextRun[] = [];
  for (const word of text.split(" ")) {
    const width = word.length * size * 0.5;
    runs.push(textRun(word, { x1: x, y1: y, x2: x + width, y2: y + size }, { fontName: "Helvetica" }));
    x += width + size * 0.3;
  }
  return runs;
}

/** Lines from (x, y) down on a pitch equal to the type size: set solid. */
function solid(lines: string[], x: number, y: number): TextRun[] {
  return lines.flatMap((line, i) => words(line, x, y + i * 10));
}

function describe(entries: readonly PageEntry[]): string[] {
  return entries.map((entry) => (entry.kind === "block" ? blockText(entry.block) : `[${entry.kind}]`));
}

test("two signature blocks set solid side by side are read one after the other", () => {
  const runs = [
    ...words("The review found the data sound and the analysis good practice.", 70, 100),
    ...words("Berlin, March 21, 2022", 70, 130),
    ...solid(["Anna Berger", "Institute of Testing", "Department of Samples"], 70, 170),
    ...solid(["Paul Keller", "Institute of Testing", "Department of Checks"], 250, 170),
    ...words("Reviewer qualifications", 70, 230, 12),
  ];
  const text = describe(layoutPage(pageGeometry({ runs }), STAGES).entries).join(" | ");
  assert.match(text, /Anna Berger Institute of Testing Department of Samples/, text);
  assert.match(text, /Paul Keller Institute of Testing Department of Checks/, text);
  assert.ok(text.indexOf("Samples") < text.indexOf("Paul Keller"), text);
});

test("the Fraunhofer review's two signature blocks are read whole", async () => {
  const bytes = readFileSync(
    new URL("../../test/real-world/apple-env-report-review-p104.pdf", import.meta.url),
  );
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const text = describe(layoutPage(await extractPdfPage(doc, 1), STAGES).entries).join(" | ");
    assert.match(
      text,
      /Karsten Schischke - Fraunhofer IZM Dept\. Environmental and Reliability Engineering/,
      text,
    );
    assert.match(
      text,
      /Marina Proske - Fraunhofer IZM Dept\. Environmental and Reliability Engineering/,
      text,
    );
  } finally {
    await doc.destroy();
  }
});
