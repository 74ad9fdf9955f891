import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { blockText, buildBlocks } from "./blocks.ts";
import { makeLine } from "./lines.ts";
import { opensNote } from "./note-marker.ts";
import { textRun } from "./test-geometry.ts";

/** A line of 6.5 pt note text at y, from x, opened by a 5.5 pt superscript marker when `marker` is given. */
function noteLine(text: string, y: number, marker?: string) {
  const runs = [textRun(text, { x1: 53.5, y1: y + 1, x2: 346, y2: y + 8.5 }, { fontSize: 6.5 })];
  if (marker) runs.unshift(textRun(marker, { x1: 49.5, y1: y, x2: 52, y2: y + 6.3 }, { fontSize: 5.5 }));
  return makeLine(runs);
}

test("notes under a page's rule, each opened by its superscript marker, are separate blocks", () => {
  const lines = [
    noteLine(
      "Inspect sealed transmissions, transfer cases and differentials for signs of leakage. If any",
      474,
      "1",
    ),
    noteLine("leakage from a sealed component is suspected, have it inspected by a dealer.", 482),
    noteLine(
      "Reset the oil replacement reminder light after maintenance at every 5,000 miles, as the",
      491,
      "2",
    ),
    noteLine("display shows.", 499),
  ];
  const blocks = buildBlocks(lines, { lineGap: 0.5 });
  assert.deepEqual(
    blocks.map((block) => blockText(block).slice(0, 12)),
    ["1 Inspect se", "2 Reset the "],
  );
});

test("opensNote wants a smaller marker before words; a number in body size is text", () => {
  assert.equal(opensNote(noteLine("Reset the light", 491, "2")), true);
  assert.equal(opensNote(noteLine("Reset the light", 491)), false);
  const sameSize = makeLine([
    textRun("12", { x1: 49.5, y1: 491, x2: 56, y2: 498.5 }, { fontSize: 6.5 }),
    textRun("apples and pears", { x1: 58, y1: 491, x2: 120, y2: 498.5 }, { fontSize: 6.5 }),
  ]);
  assert.equal(opensNote(sameSize), false);
});

test("a right-to-left note opens at its right, with a raised number in its script's digits", () => {
  // A Persian note: the text 250-484, its raised, smaller marker `۸` at its right end.
  const note = (mark: string, fontSize = 6) =>
    makeLine([
      textRun("ﻓﺎﺻﻠﻪ ﺑﯿﻦ", { x1: 250, y1: 700, x2: 484, y2: 709 }, { fontSize: 9, dir: "rtl" }),
      textRun(mark, { x1: 484.2, y1: 697, x2: 487, y2: 703 }, { fontSize, dir: "ltr" }),
    ]);
  assert.equal(opensNote(note("۸")), true);
  assert.equal(opensNote(note("8")), true);
  // A number in the text's size is no marker.
  assert.equal(opensNote(note("۸", 9)), false);
});

test("public: a Persian manual's note at its page's foot is kept as a note, read from the right", async () => {
  await assertPdfFacts("fa-lshort-persian-p20.pdf", [
    { present: "۸ فاصله بین \\documentclass و \\begin{document} سرآغاز یا preamble نامیده میشود." },
  ]);
});

test("a raised letter opens a note; a letter on the text's baseline does not", () => {
  assert.equal(opensNote(noteLine("Use the slides class or FoilTeX", 491, "a")), true);
  const level = makeLine([
    textRun("a", { x1: 49.5, y1: 492.5, x2: 52, y2: 498.5 }, { fontSize: 5.5 }),
    textRun("Use the slides class", { x1: 53.5, y1: 492, x2: 120, y2: 499.5 }, { fontSize: 6.5 }),
  ]);
  assert.equal(opensNote(level), false);
});

const PROSE =
  "The spring meeting agreed to plant the new beds along the east wall before the end of the month, and the " +
  "members who keep the seed library will bring their lists to the next evening so that nothing is sown twice.";

/** A page of prose whose last line, under a rule, is a table's note opened by a raised `a`. */
async function letterNoteWords(): Promise<string> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  for (const top of [100, 220, 340, 460, 580])
    drawParagraph(page, PROSE, { x: 140, top, width: 320, font: fonts.regular, size: 10 });
  page.drawLine({ start: { x: 160, y: 842 - 690 }, end: { x: 260, y: 842 - 690 }, thickness: 0.4 });
  drawLine(page, "a", 160, 697, fonts.mono, 5.5);
  drawLine(page, "CTAN:/tex-archive/macros/latex/contrib/supported/foiltex", 166, 699, fonts.mono, 7.5);
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  return markdownSubject(result.markdown).words;
}

test("a note at a page's foot opened by a raised letter is content, not a footer", async () => {
  assert.ok((await letterNoteWords()).includes(" ctan tex archive macros latex contrib supported foiltex "));
});

test("a Ukrainian manual's table note opened by a raised `a` is kept", { timeout: 120_000 }, async () => {
  await assertPdfFacts("uk-lshort-ukr-p24-25.pdf", [
    { present: "CTAN:/tex-archive/macros/latex/contrib/supported/foiltex" },
  ]);
});
