import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";

/**
 * Stacked fractions inline in a line of answers (a numerator over a short bar over a denominator, beside the
 * answer's number and its other terms) read `a/b` in their line: not as two lines of digits, nor as a table.
 */

async function answerRow(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(page, "16. Which number is the sum of the series below?", 60, 80, fonts.regular, 12);
  // An underline: text above it only.
  const under = PAGE_HEIGHT - 93;
  page.drawLine({
    start: { x: 60, y: under },
    end: { x: 140, y: under },
    thickness: 0.4,
    color: rgb(0, 0, 0),
  });
  const answers = [
    ["1.", "", "6", "7", "i"],
    ["2.", "7 +", "1", "8", "i"],
    ["3.", "7 +", "7", "8", "i"],
    ["4.", "8 +", "1", "9", "i"],
    ["5.", "8 +", "8", "9", "i"],
  ];
  const axis = 120; // the line's middle, where the bars stand (from the top)
  answers.forEach(([number, before, numerator, denominator, after], k) => {
    let x = 80 + 90 * k;
    drawLine(page, number, x, axis - 6, fonts.regular, 12);
    x += fonts.regular.widthOfTextAtSize(`${number} `, 12);
    if (before) {
      drawLine(page, before, x, axis - 6, fonts.regular, 12);
      x += fonts.regular.widthOfTextAtSize(`${before} `, 12);
    }
    const width = fonts.regular.widthOfTextAtSize(numerator, 9);
    drawLine(page, numerator, x, axis - 9.5, fonts.regular, 9);
    drawLine(page, denominator, x, axis + 0.5, fonts.regular, 9);
    const y = PAGE_HEIGHT - axis;
    page.drawLine({ start: { x, y }, end: { x: x + width, y }, thickness: 0.4, color: rgb(0, 0, 0) });
    drawLine(page, after, x + width + 2, axis - 6, fonts.regular, 12);
  });
  return pdfBytes(pdf);
}

test("a line of answers with stacked fractions reads each fraction a/b in its line, and makes no table", async () => {
  const { result } = await parseDocument({
    bytes: await answerRow(),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  assert.ok(!result.markdown.includes("<table") && !result.markdown.includes("|"), result.markdown);
  for (const answer of ["1. 6/7 i", "2. 7 + 1/8 i", "3. 7 + 7/8 i", "4. 8 + 1/9 i", "5. 8 + 8/9 i"]) {
    assert.ok(result.markdown.includes(answer), `${answer} in:\n${result.markdown}`);
  }
});

test("a fraction's bar is no rule of the page; a rule with text above only (an underline) stays one", async () => {
  const doc = await openPdf(await answerRow());
  try {
    const page = await extractPdfPage(doc, 1);
    assert.equal(page.rules.filter((rule) => rule.orientation === "h").length, 1);
    assert.deepEqual(
      page.runs.filter((run) => run.text.includes("/")).map((run) => run.text),
      ["6/7", "1/8", "7/8", "1/9", "8/9"],
    );
  } finally {
    await doc.destroy();
  }
});

test("a Thai exam's answers with fractions read a/b in their lines, not as a table of numerators over denominators", async () => {
  const bytes = new Uint8Array(
    readFileSync(new URL("../../test/real-world/th-math-exam-p3.pdf", import.meta.url)),
  );
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  assert.ok(!result.markdown.includes("<table"), result.markdown);
  for (const text of [
    "1. 6/7 i",
    "2. 7 + 1/8 i",
    "z5 + 3/2 = 1/2 i",
    "((k2 + k + i)/(k2 + k) )",
    "i2 = − 1",
  ]) {
    assert.ok(result.markdown.includes(text), `${text} in:\n${result.markdown}`);
  }
});

/**
 * A numerator whose indices hang down to the bar (`a_k + b_k` over `2`): TeX sets the letters higher, off the bar,
 * so that their indices clear it, and only the indices touch it.
 */
async function indexedFraction(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const axis = 120; // the bar, from the top
  const width = (text: string, size: number) => fonts.regular.widthOfTextAtSize(text, size);
  drawLine(page, "The mean is m =", 72, axis - 6, fonts.regular, 12);
  const start = 72 + width("The mean is m = ", 12);
  let x = start;
  for (const [letters, index] of [
    ["a", "k"],
    [" + ", ""],
    ["b", "k"],
  ]) {
    drawLine(page, letters, x, axis - 16, fonts.regular, 12);
    x += width(letters, 12);
    if (index === "") continue;
    drawLine(page, index, x, axis - 8.5, fonts.regular, 8);
    x += width(index, 8);
  }
  drawLine(page, "2", (start + x) / 2 - width("2", 12) / 2, axis + 0.5, fonts.regular, 12);
  const y = PAGE_HEIGHT - axis;
  page.drawLine({ start: { x: start, y }, end: { x, y }, thickness: 0.4, color: rgb(0, 0, 0) });
  drawLine(page, "for each k.", x + 4, axis - 6, fonts.regular, 12);
  return pdfBytes(pdf);
}

test("a numerator's letters set off the bar above their indices are part of it: (ak + bk)/2", async () => {
  const { result } = await parseDocument({
    bytes: await indexedFraction(),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  assert.ok(result.markdown.includes("The mean is m = (ak + bk)/2 for each k."), result.markdown);
});

test("gridslides-physics-p5-8: the Majorana operators' fractions keep their numerators' letters", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("gridslides-physics-p5-8.pdf", [
    { present: "γj = (cj + cj†)/2" },
    { present: "γj′ = (cj − cj†)/2ı" },
  ]);
});
