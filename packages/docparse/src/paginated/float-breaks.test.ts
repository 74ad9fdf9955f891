import assert from "node:assert/strict";
import { test } from "node:test";
import { drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

const LEFT_TEXT =
  "Ferry crossings rose through the spring as the harbour works finished and the new timetable took hold across the islands. " +
  "The port authority counted passengers at each quay and compared the weeks before and after the change in the schedule. " +
  "Freight stayed level while the number of cars on the morning boats grew, and the late crossings filled for the first time. " +
  "The remainder of this report sets out the counts quay by quay, and the last section compares them with the forecast made";

const RIGHT_TEXT =
  "in the harbour plan two years ago. The forecast was close for the main quay and low for the northern one. " +
  "Staff at the northern quay report that the new car park drew drivers from the villages inland.";

/**
 * A two-column page whose left column ends inside a sentence; the right column opens with a listing in Courier
 * and its caption, a second figure's labels and caption, then the rest of the sentence.
 */
async function floatsAtColumnTop(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const column = { width: 250, font: fonts.regular, size: 10 };
  drawParagraph(page, LEFT_TEXT, { ...column, x: 50, top: 560 });
  let top = 140;
  for (const line of ["1 for (q = 0; q < 9; q++) {", "2   count(quay[q]);", "3 }"]) {
    page.drawText(line, { x: 320, y: 792 - top, size: 9, font: fonts.mono });
    top += 11;
  }
  top = drawParagraph(page, "Figure 1. The counting loop run at each quay.", {
    ...column,
    x: 320,
    top: top + 8,
  }).next;
  for (const [label, x] of [
    ["Main quay", 330],
    ["North quay", 420],
    ["Car park", 500],
  ] as const) {
    page.drawText(label, { x, y: 792 - (top + 40), size: 6, font: fonts.regular });
  }
  top = drawParagraph(page, "Figure 2. Quays and the car park by the northern one.", {
    ...column,
    x: 320,
    top: top + 70,
  }).next;
  drawParagraph(page, RIGHT_TEXT, { ...column, x: 320, top: top + 16 });
  return pdf.save();
}

test("a sentence broken at a column's foot goes on past the floats at the next column's top", async () => {
  const { result } = await parseDocument({
    bytes: await floatsAtColumnTop(),
    mimeType: "application/pdf",
    options: {},
  });
  const markdown = result.markdown.replace(/\s+/g, " ");
  assert.match(
    markdown,
    /compares them with the forecast made in the harbour plan two years ago/,
    result.markdown,
  );
  // The floats come after the paragraph, in their own order.
  const at = (s: string) => markdown.indexOf(s);
  assert.ok(at("two years ago") < at("Figure 1.") && at("Figure 1.") < at("Figure 2."), result.markdown);
});

test("a PLDI page's sentence goes on past the listing and the diagram", { timeout: 600_000 }, async () => {
  await assertPdfFacts("tracemonkey-pldi-p2.pdf", [
    { present: "In Section 7 we evaluate our dynamic compiler based on a set of industry benchmarks." },
  ]);
});
