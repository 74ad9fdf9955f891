import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";
import { runningFoot } from "./running-foot.ts";

const PAGE = { width: 396, height: 612 };

function candidate(text: string, y1: number, options: Partial<FurnitureCandidate> = {}): FurnitureCandidate {
  return {
    page: 1,
    pageSize: PAGE,
    box: { x1: 280, y1, x2: 351, y2: y1 + 10 },
    text,
    fontSize: 9,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

test("a bold title and its page number at a single page's foot are its footer", () => {
  // A manual's page: the body in 8.3 pt, the foot `Maintenance Log 39` in bold, labeled a heading by its look.
  const body = candidate(
    "Replace engine oil and oil filter and tighten the nuts and bolts on the chassis",
    300,
    {
      fontSize: 8.3,
    },
  );
  const foot = candidate("Maintenance Log 39", 575, { heading: true });
  const kinds = detectFurniture([body, foot], 8.3, 1);
  assert.equal(kinds.get(1), "page_footer");
  assert.equal(kinds.has(0), false);
  // The same heading higher up, out of the foot margin, is content.
  assert.equal(
    detectFurniture([body, candidate("Maintenance Log 39", 520, { heading: true })], 8.3, 1).size,
    0,
  );
});

test("runningFoot wants a short title beside a page number, at the foot, not set large", () => {
  assert.equal(runningFoot("Maintenance Log 39", true, 9, 8.3), true);
  assert.equal(runningFoot("39 | Annual Report", true, 9, 8.3), true);
  assert.equal(runningFoot("Maintenance Log 39", false, 9, 8.3), false);
  assert.equal(runningFoot("Maintenance Log 39", true, 18, 8.3), false);
  assert.equal(runningFoot("Maintenance Log", true, 9, 8.3), false);
  assert.equal(runningFoot("Chevron 2022 Corporate Sustainability Report", true, 9, 8.3), false);
});

/** A made page: a title, two paragraphs in 10 pt, and `foot` drawn on the page's last line. */
async function pageWithFoot(
  foot: (page: import("pdf-lib").PDFPage, fonts: Awaited<ReturnType<typeof newPdf>>["fonts"]) => void,
): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Notes on Testing Documents", 72, 72, fonts.bold, 18);
  let top = 110;
  for (let i = 0; i < 2; i++)
    top = drawParagraph(page, PROSE, { x: 72, top, width: 468, font: fonts.regular, size: 10 }).next;
  foot(page, fonts);
  return pdf.save();
}

const PROSE =
  "The body of the page is set in ten point type and fills most of it, several lines of plain sentences that " +
  "say nothing in particular but make the page look like a report or an article that a reader would parse.";

async function markdownWithout(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  return result.markdown;
}

test("a bold line beside the page number on a single page's foot line is its running foot", async () => {
  // `Author et al.: Preprint submitted to …` at the left, `Page 1 of 3` at the right, in the body's size: bold,
  // it looks like a heading, but the page number on its line says what the line is.
  const bytes = await pageWithFoot((page, fonts) => {
    drawLine(page, "A. Author et al.: Preprint submitted to Tests", 72, 740, fonts.bold, 10);
    drawLine(page, "Page 1 of 3", 484, 740, fonts.regular, 10);
  });
  const clean = await markdownWithout(bytes);
  assert.doesNotMatch(clean, /Preprint submitted/, clean);
  assert.doesNotMatch(clean, /Page 1 of 3/, clean);
  assert.match(clean, /Notes on Testing Documents/);
});

test("a bold journal name on a foot line with a copyright notice is part of the running foot", async () => {
  const bytes = await pageWithFoot((page, fonts) => {
    drawLine(page, "Journal of Testing", 72, 740, fonts.bold, 10);
    drawLine(page, "Copyright © 2022 by Tests", 250, 740, fonts.regular, 10);
  });
  const clean = await markdownWithout(bytes);
  assert.doesNotMatch(clean, /Journal of Testing/, clean);
  assert.doesNotMatch(clean, /Copyright/, clean);
  assert.match(clean, /The body of the page/);
});

test("public pages: running feet of an Elsevier and an ASME page are furniture", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("elsevier-cas-dc-sample-p1.pdf", [
    { absent: "J.K. Krishnan et al.: Preprint submitted to Elsevier" },
    { absent: "Page 1 of 3" },
    { present: "There are various bibliography styles available." },
  ]);
  await assertPdfFacts("asme-journal-template-p1.pdf", [
    { absent: "Journal of Heat Transfer" },
    { absent: "PREPRINT FOR REVIEW / 1" },
    { present: "The asmejour class will do this automatically." },
  ]);
});
