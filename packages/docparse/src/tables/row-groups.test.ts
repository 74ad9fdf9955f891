import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

/** The markdown's tables, each as its text. */
const tablesOf = (markdown: string) => [...markdown.matchAll(/<table>[\s\S]*?<\/table>/g)].map((m) => m[0]);

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  return result.markdown;
}

/**
 * A key-figures table ruled under every row, its rows in two groups set apart by a blank band between two rules:
 * the second group stands in the same columns under the same years, and reads as the same table.
 */
test("a table ruled row by row in two groups, a blank band between them, drawn with pdf-lib: one table", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 9;
  const rule = (top: number) =>
    page.drawLine({
      start: { x: 300, y: PAGE_HEIGHT - top },
      end: { x: 560, y: PAGE_HEIGHT - top },
      thickness: 0.4,
    });
  const right = (text: string, x: number, top: number, font = fonts.regular) =>
    drawLine(page, text, x - font.widthOfTextAtSize(text, size), top, font, size);
  const columns = [430, 475, 520, 560];
  for (const [c, year] of ["2024", "2025e", "2026e", "2027e"].entries())
    right(year, columns[c], 100, fonts.bold);
  rule(112);
  const groups = [
    [
      ["Revenue", "812.4", "845.0", "880.3", "902.7"],
      ["EBIT", "40.1", "44.9", "49.6", "52.0"],
      ["EPS", "1.12", "1.25", "1.40", "1.47"],
    ],
    [
      ["P/E", "14.2", "12.7", "11.4", "10.8"],
      ["EV/Sales", "0.9", "0.8", "0.8", "0.7"],
      ["Dividend yield", "3.1 %", "3.4 %", "3.7 %", "3.9 %"],
    ],
  ];
  let top = 112;
  for (const [g, group] of groups.entries()) {
    if (g > 0) {
      top += 30;
      rule(top);
    }
    for (const [label, ...figures] of group) {
      drawLine(page, label, 300, top + 4, fonts.bold, size);
      for (const [c, figure] of figures.entries()) right(figure, columns[c], top + 4);
      top += 16;
      rule(top);
    }
  }
  drawLine(page, "Source: company reports and our estimates", 300, top + 8, fonts.regular, 8);
  const markdown = await markdownOf(await pdfBytes(pdf));
  const tables = tablesOf(markdown);
  assert.equal(tables.length, 1, markdown);
  assert.ok(tables[0].includes("2027e") && tables[0].includes("Dividend yield"), markdown);
  assert.ok(!/<tr>(<td><\/td>)+<\/tr>/.test(tables[0]), markdown);
});

test("public page: a research note's key figures, valuation rows under a blank band, read as one table", async () => {
  const file = path.join(import.meta.dirname, "../../test/real-world/inderes-kreate-update-p2.pdf");
  const tables = tablesOf(await markdownOf(new Uint8Array(readFileSync(file))));
  const keyFigures = tables.find((t) => t.includes("2025e"));
  assert.ok(keyFigures?.includes("EV/EBITDA"), tables.join("\n\n"));
  assert.ok(!tables.some((t) => t !== keyFigures && t.includes("P/E (adj.)")), tables.join("\n\n"));
});
