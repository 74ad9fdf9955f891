import assert from "node:assert/strict";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

// A line of the left column set past its edge into the gutter, beside a blank line of the right column, does not
// close the gutter (overfull-lines.ts); a line running on across the right column's text does.

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

const LEFT = [
  "The harbour master opened the locks at dawn",
  "so that the fishing boats could leave before",
  "the tide turned, as the almanac advised. The",
  "schedule is printed in the harbour-tide-tables-2024.txt",
  "and posted at the gate of the lighthouse too,",
  "where the keeper reads it out each evening to",
  "the crews gathered on the quay for the night.",
];
const RIGHT = [
  "Ferries left the northern",
  "pier every hour until noon",
  "and none of them was late.",
  "",
  "Passengers were asked to",
  "carry their tickets on deck.",
  "All were on board by six.",
];

test("a line running past its column's edge into the gutter, beside the next column's blank line, leaves the columns apart", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  const size = 11;
  const edge = 40 + fonts.regular.widthOfTextAtSize(LEFT[0], size);
  const right = edge + 16;
  LEFT.forEach((line, i) => {
    page.drawText(line, { x: 40, y: 700 - i * 14, size, font: fonts.regular });
  });
  // The overfull line's last word reaches past the gutter into the right column's blank line.
  assert.ok(40 + fonts.regular.widthOfTextAtSize(LEFT[3], size) > right + 5);
  RIGHT.forEach((line, i) => {
    if (line) page.drawText(line, { x: right, y: 700 - i * 14, size, font: fonts.regular });
  });
  // Lines, whatever paragraphs they make.
  const markdown = (await markdownOf(await pdf.save())).replace(/\s+/g, " ");
  assert.match(
    markdown,
    /almanac advised\. The schedule is printed in the harbour-tide-tables-2024\.txt and posted/,
    markdown,
  );
  assert.match(markdown, /for the night\.[\s\S]*Ferries left the northern pier/, markdown);
});

test("public: the A0 poster's overfull DEMO-TUDaSciPoster.tex leaves its columns apart", async () => {
  await assertPdfFacts("tuda-sciposter.pdf", [
    { before: ["über \\setqrcode und \\setfoot Makros zur Verfügung", "DEMO-TUDaSciPoster.tex gezeigt"] },
    { before: ["Eine Box im Stil TUDa-colored", "Boxentyp zwischen dem Stil boxed und dem Stil official."] },
  ]);
});
