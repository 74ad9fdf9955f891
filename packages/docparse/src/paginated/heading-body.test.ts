import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { StandardFonts } from "pdf-lib";
import { drawGrid, drawGridText, drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import type { Block } from "./blocks.ts";
import { box } from "./geometry.ts";
import { documentStyle, labelBlock } from "./labels.ts";
import { makeLine } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

/**
 * An invoice whose running text is its table: the items and totals in 10 pt cells of a ruled grid, the sender's
 * references in 8 pt beside the address, a bold 12 pt name over it, and a note in 10 pt italic under the table.
 * Outside the table the 8 pt lines are the most text; the body is still the table's 10 pt.
 */
async function invoicePage(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const italic = await pdf.embedFont(StandardFonts.HelveticaOblique);
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Harbour Supplies Ltd", 72, 72, fonts.bold, 12);
  drawLine(page, "Quay Road 12", 72, 90, fonts.regular, 10);
  const refs = [
    "Our reference: Harbour Supplies",
    "Your reference: Island Ferries",
    "Invoice number: 1042",
    "Invoice date: March 3, 2024",
    "Due date: April 2, 2024",
    "Customer number: 88 120",
    "Order number: 5521 from February 20",
  ];
  for (const [i, line] of refs.entries()) drawLine(page, line, 340, 72 + i * 10, fonts.regular, 8);
  const rows = [
    ["Description", "Price", "VAT", "Sum"],
    ["4 mooring ropes", "100 EUR", "0 %", "400 EUR"],
    ["1 anchor chain", "250 EUR", "0 %", "250 EUR"],
    ["2 fenders", "40 EUR", "0 %", "80 EUR"],
    ["Subtotal", "", "", "730 EUR"],
    ["Total", "", "", "730 EUR"],
  ];
  const grid = { x: 72, top: 220, widths: [180, 100, 80, 100], rowHeight: 20 };
  drawGrid(page, { ...grid, rows: rows.length });
  drawGridText(page, rows, { ...grid, fonts, header: true });
  drawLine(page, "Payment after the due date may add interest and fees.", 72, 360, italic, 10);
  return pdf.save();
}

test("a 10 pt italic sentence under an invoice's table is text, judged against the table's body size", async () => {
  const { result } = await parseDocument({
    bytes: await invoicePage(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /^Payment after the due date may add interest and fees\.$/m, result.markdown);
  assert.match(result.markdown, /^#+ Harbour Supplies Ltd$/m, result.markdown);
});

/** A block of one line of `text` in Times at `fontSize`, its top at `y`. */
function line(text: string, y: number, fontSize: number, bold = false): Block {
  const l = makeLine([
    textRun(
      text,
      { x1: 50, y1: y, x2: 50 + text.length * fontSize * 0.5, y2: y + fontSize },
      { fontName: bold ? "Times-Bold" : "Times-Roman", fontSize, bold },
    ),
  ]);
  return { lines: [l], box: box.union([l.box]) };
}

const PROSE = "Body text is set in ten point type and makes up most of the characters of the document here.";

test("a heading's level is its own size against the body, whatever other headings the document holds", () => {
  const body = [100, 200, 300, 400, 500].map((y) => line(PROSE, y, 10));
  const name = line("Harbour Supplies Ltd", 60, 12, true);
  const page = { width: 612, height: 792 };
  const where = { firstPage: false, titleTaken: true };
  const alone = labelBlock(name, page, documentStyle([...body, name], []), where);
  const larger = [line("Payment details", 600, 20), line("Terms of delivery", 650, 16)];
  const among = labelBlock(name, page, documentStyle([...body, name, ...larger], []), where);
  assert.deepEqual(alone, { label: "section_header", level: 2 });
  assert.deepEqual(among, alone);
});

test("the invoice's note under its totals is text and its names keep one level", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/simpleinvoice-english.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  assert.match(result.markdown, /^By paying after deadline, additional interest and fees may apply\.$/m);
  assert.match(result.markdown, /^## Person McNameface$/m);
  assert.match(result.markdown, /^## My Name$/m);
});
