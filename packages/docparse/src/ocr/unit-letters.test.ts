import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import type { OcrRun } from "./ocr-page.ts";
import { withUnitLetters } from "./unit-letters.ts";

/** OCR words on one line from x = 72, each `width` points wide and a space apart, or on lines of their own. */
function words(texts: readonly string[], lineIds?: readonly string[]): OcrRun[] {
  let x = 72;
  return texts.map((text, i) => {
    const run: OcrRun = {
      text,
      box: { x1: x, y1: 100, x2: x + 6 * text.length, y2: 112 },
      fontName: "ocr",
      fontSize: 12,
      bold: false,
      italic: false,
      dir: "ltr",
      confidence: 0.9,
      lineId: lineIds?.[i] ?? "1.1.1",
    };
    x = run.box.x2 + 4;
    return run;
  });
}

test("`Ib` read after a figure is the unit lb; elsewhere, on another line or in Danish it stays", () => {
  const texts = (runs: OcrRun[]) => runs.map((run) => run.text).join(" ");
  assert.equal(texts(withUnitLetters(words(["Weight:", "165.0", "Ib"]), "eng")), "Weight: 165.0 lb");
  assert.equal(texts(withUnitLetters(words(["load", "12", "Ibs."]), "eng")), "load 12 lbs.");
  assert.equal(texts(withUnitLetters(words(["Mr", "Ib", "Olsen"]), "eng")), "Mr Ib Olsen");
  assert.equal(texts(withUnitLetters(words(["165.0", "Ib"], ["1.1.1", "1.1.2"]), "eng")), "165.0 Ib");
  assert.equal(texts(withUnitLetters(words(["165.0", "Ib"]), "dan")), "165.0 Ib");
});

test("the body scan report's weight reads in pounds", async () => {
  await assertPdfFacts("scan-dxa-body-report.pdf", [{ present: "Weight: 165.0 lb" }]);
});
