import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import { hRule } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { ruledPage, run } from "./test-geometry.ts";

/**
 * Underlined phrases stacked down a page at one left edge (an amending bill marks each "<New item>" it adds) are
 * underlines, not the rules of a table: a rule in the lower half of a line's glyphs, no longer than its text.
 */

test("underlines under phrases stacked at one left edge make no booktabs table", () => {
  const runs = [0, 1, 2].flatMap((k) => [run("<New", 92, 140 + 100 * k), run("item>", 130, 140 + 100 * k)]);
  // Each underline runs from the phrase's start to its end, two points above its glyph boxes' bottom.
  const rules = [0, 1, 2].map((k) => hRule(150 + 100 * k, 92, 155));
  assert.deepEqual(detectRuledTables(ruledPage(runs, rules)), []);
});

test("underlined new items of an amendment, drawn with pdf-lib: their text stays text, no table", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 10;
  for (let k = 0; k < 3; k++) {
    const top = 120 + 90 * k;
    drawLine(page, "<New", 80, top, fonts.regular, size);
    drawLine(page, "item>", 120, top, fonts.regular, size);
    const end = 120 + fonts.regular.widthOfTextAtSize("item>", size);
    page.drawLine({
      start: { x: 80, y: PAGE_HEIGHT - top - size * 0.95 },
      end: { x: end, y: PAGE_HEIGHT - top - size * 0.95 },
      thickness: 0.6,
    });
    const lines = [
      `${k + 1}. Bodies that represent children, young people and women`,
      "across the country, as a decree provides, each with its",
      "own members and officers elected for a term of years.",
    ];
    lines.forEach((line, l) => {
      drawLine(page, line, 300, top + 16 * l, fonts.regular, size);
    });
  }
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  assert.ok(!result.markdown.includes("<table"), result.markdown);
  assert.equal(result.markdown.match(/New/g)?.length, 3, result.markdown);
});

test("public page: the underlined <신 설> marks of a Korean bill make no table of their own", async () => {
  const tables = await realWorldRuledTables("ko-bill-amendment-p3-p7.pdf", 2);
  assert.equal(tables.length, 1);
});
