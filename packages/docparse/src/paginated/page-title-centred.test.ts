import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { centredTitle } from "./page-title.ts";

const b = (x1: number, y1: number, x2: number, y2: number) => ({ box: { x1, y1, x2, y2 } });

test("centredTitle takes a larger line centred on the page above the first gap, nothing beside it", () => {
  const title = b(240, 36, 368, 51);
  const left = [b(72, 80, 220, 91), b(72, 103, 110, 117)];
  const right = [b(310, 103, 385, 114)];
  const gaps = [{ start: 51, end: 80 }];
  assert.deepEqual(centredTitle([title, ...left, ...right], gaps, 11, 306), [[title], [...left, ...right]]);
  // Not centred on the page: a right column's own heading.
  assert.equal(centredTitle([b(310, 36, 420, 51), ...left, ...right], gaps, 11, 306), null);
  // Of the usual size: a line of the text.
  assert.equal(centredTitle([b(240, 36, 368, 47), ...left, ...right], gaps, 11, 306), null);
});

test("an invoice's title centred over its sender and recipient blocks is read first", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const title = "Shipping Invoice";
  const width = fonts.bold.widthOfTextAtSize(title, 18);
  drawLine(page, title, 306 - width / 2, 40, fonts.bold, 18);
  // The sender's block ends left of the title's start; the recipient's starts right of the page's middle.
  const sender = ["Reference: 4471-A", "From:", "Harbour Tools Ltd", "12 Quay Street", "Bristol BS1 4DJ"];
  for (const [i, line] of sender.entries()) drawLine(page, line, 72, 80 + i * 14, fonts.regular, 11);
  const recipient = ["To:", "Lindqvist Marine AB", "Hamngatan 3", "Gothenburg 41103"];
  for (const [i, line] of recipient.entries()) drawLine(page, line, 330, 94 + i * 14, fonts.regular, 11);
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  const text = result.markdown;
  assert.ok(text.indexOf(title) >= 0 && text.indexOf(title) < text.indexOf("Reference"), text);
  assert.ok(text.indexOf("Bristol") < text.indexOf("Lindqvist"), text);
});

test("the public commercial invoice's title is read before its sender block", async () => {
  await assertPdfFacts("duck-commercial-invoice-p1.pdf", [
    { before: ["Commercial Invoice", "Waybill Number"] },
    { before: ["Commercial Invoice", "The Marmot Company"] },
  ]);
});
