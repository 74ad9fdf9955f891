import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { isNumeric } from "./cells.ts";
import { isQuantity } from "./quantity.ts";
import { grid } from "./test-geometry.ts";

/**
 * Quantities with their units are figures: a column of `200 ml`, `3 EL`, `1/2 tsp` (an ingredients list) is as
 * much a table's column of numbers as one of bare numbers. A sentence that holds a quantity is not one.
 */

test("amounts with SI and kitchen units in several languages, fractions and ranges are quantities", () => {
  for (const text of [
    "200 ml",
    "3 EL",
    "1 TL",
    "1/2 tsp",
    "½ cup",
    "1 ½ cups",
    "1½ tbsp",
    "100 g",
    "1,5 kg",
    "2–3 min",
    "250g",
    "2 c. à s.",
    "1 Msp.",
    "(50 g)",
    "ca. 500 ml",
    "½",
    "1/2",
    "12 V",
    "3.5 GHz",
  ]) {
    assert.ok(isQuantity(text), text);
    assert.ok(isNumeric(text), text);
  }
  for (const text of [
    "add 200 ml of milk",
    "200 ml Sahne",
    "Sahne",
    "ml",
    "3 eggs",
    "Chapter 3",
    "2 Tafeln",
    "100 g of flour, sifted",
    "in",
  ]) {
    assert.ok(!isQuantity(text), text);
  }
});

/** Rows of the page's tables as `a | b`. */
async function tableRows(bytes: Uint8Array): Promise<string[]> {
  const doc = await openPdf(bytes);
  try {
    return tableStage(await extractPdfPage(doc, 1))
      .flatMap(grid)
      .map((row) => row.join(" | "));
  } finally {
    await doc.destroy();
  }
}

test("an ingredients list beside a recipe's steps, drawn with pdf-lib: each quantity reads beside its ingredient", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 10;
  const pitch = size * 1.25;
  // The steps: a heading, two short lines of facts, then numbered steps whose last lines are short: the column
  // is running text, though fewer than half its lines fill it.
  const steps = [
    "Method",
    "Serves four",
    "Ready in an hour",
    "1 Separate the eggs and whip the whites and cream",
    "apart until stiff.",
    "2 Melt the butter with the chocolate over water,",
    "stirring now and then.",
    "3 Beat the yolks with the sugar until the mixture",
    "turns pale and creamy.",
    "4 Fold in the chocolate, then the whites and cream",
    "by hand, gently.",
  ];
  steps.forEach((line, i) => {
    drawLine(page, line, 72, 100 + i * pitch, i === 0 ? fonts.bold : fonts.regular, size);
  });
  // The ingredients: amounts set flush right at x 400, names flush left at x 410, on the steps' lines.
  drawLine(page, "Ingredients", 340, 100, fonts.bold, size);
  const ingredients = [
    ["200 g", "dark chocolate"],
    ["3", "eggs"],
    ["200 ml", "cream"],
    ["40 g", "sugar"],
    ["1/2 tsp", "salt"],
    ["2 tbsp", "butter"],
  ];
  ingredients.forEach(([amount, name], i) => {
    const y = 100 + (i + 3) * pitch;
    drawLine(page, amount, 400 - fonts.regular.widthOfTextAtSize(amount, size), y, fonts.regular, size);
    drawLine(page, name, 410, y, fonts.regular, size);
  });
  const rows = await tableRows(await pdfBytes(pdf));
  for (const [amount, name] of ingredients) assert.ok(rows.includes(`${amount} | ${name}`), rows.join("\n"));
  assert.ok(!rows.some((row) => row.includes("Separate the eggs")), rows.join("\n"));
});

test("public page: a German recipe's ingredients beside its steps read as a table", async () => {
  const bytes = new Uint8Array(
    readFileSync(new URL("../../test/real-world/xcookybooky-mousse-p2.pdf", import.meta.url)),
  );
  const rows = await tableRows(bytes);
  for (const row of ["2 Tafeln | dunkle Schokolade", "200 ml | Sahne", "40 g | Zucker", "50 g | Butter"])
    assert.ok(rows.includes(row), rows.join("\n"));
});
