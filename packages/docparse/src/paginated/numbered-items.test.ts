import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { drawLine, drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import { enumeratorKind, enumeratorRank } from "./numbered-items.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

const PROSE =
  "Body text is set in ten point type and makes up most of the characters of the page, so that its size is the " +
  "size against which headings are judged. A paragraph of several lines of it follows each heading here.";

test("enumerator kinds: numbers by depth, capitals and roman numerals, small letters", () => {
  assert.equal(enumeratorKind("2. Methods"), "n1");
  assert.equal(enumeratorKind("2.1 Data"), "n2");
  assert.equal(enumeratorKind("AB. Secure supply chain"), "L");
  assert.equal(enumeratorKind("IV. Results"), "L");
  assert.equal(enumeratorKind("b) second"), "l");
  assert.equal(enumeratorKind("A Note on Ferries"), null);
  assert.deepEqual(["2.3 Data", "Z. Last", "AM. Core", "b) second", "Ferries"].map(enumeratorRank), [
    3,
    26,
    39,
    2,
    null,
  ]);
});

test("numbered items stacked in a card are list items; numbered headings with text between stay headings", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  let top = 72;
  for (const [heading] of [["1. Harbour services"], ["2. Island routes"]]) {
    drawLine(page, heading, 72, top, fonts.bold, 14);
    top = drawParagraph(page, PROSE, {
      x: 72,
      top: top + 22,
      width: 468,
      font: fonts.regular,
      size: 10,
    }).next;
  }
  // A card of lettered items, each on its own line, set large and bold as a slide sets them.
  ["A. Secure ferry booking", "B. Timetable alerts", "C. Cargo tracking"].forEach((item, i) => {
    drawLine(page, item, 72, top + 20 + i * 18, fonts.bold, 14);
  });
  const markdown = await markdownOf(await pdfBytes(pdf));
  assert.match(markdown, /^#+ 1\\?\. Harbour services$/m);
  assert.match(markdown, /^#+ 2\\?\. Island routes$/m);
  assert.doesNotMatch(markdown, /^#+ [ABC]\./m);
  assert.match(markdown, /A\. Secure ferry booking/);
});

test("public: the OpenSSF working-groups slide's lettered items are not headings", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}openssf-working-groups-slide.pdf`));
  assert.doesNotMatch(markdown, /^#+ [A-Z]{1,2}\. /m);
  assert.match(markdown, /A\. Secure Software Development Fundamentals courses SIG/);
  assert.match(markdown, /Z\. Supply-chain Levels for Software Artifacts \(SLSA\) SIG/);
});
