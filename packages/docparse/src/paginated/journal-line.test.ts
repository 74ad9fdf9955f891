import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { furniturePattern } from "./furniture-patterns.ts";
import { journalLine } from "./journal-line.ts";

const FURNITURE = ["page_header", "page_footer", "page_number"] as const;

const PROSE =
  "The body of the page is set in ten point type and fills most of it, several lines of plain sentences that " +
  "say nothing in particular but make the page look like a report or an article that a reader would parse.";

async function markdownOf(bytes: Uint8Array, ignore: readonly string[]): Promise<string> {
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: [...ignore] } } as never,
  });
  return result.markdown;
}

/** The page header fragments' texts: furniture is kept there, out of the markdown. */
async function headersOf(bytes: Uint8Array): Promise<string[]> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.pages
    .flatMap((p) => p.page_fragments ?? [])
    .filter((f) => f.fragment_type === "page_header")
    .map((f) => f.content.content);
}

/** One page: `head` drawn on the page's first line, then a title and two paragraphs. */
async function pageWithHead(
  head: (page: import("pdf-lib").PDFPage, fonts: Awaited<ReturnType<typeof newPdf>>["fonts"]) => void,
) {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  head(page, fonts);
  drawLine(page, "Quarterly Review of Regional Banks", 72, 110, fonts.bold, 18);
  let top = 150;
  for (let i = 0; i < 2; i++)
    top = drawParagraph(page, PROSE, { x: 72, top, width: 468, font: fonts.regular, size: 10 }).next;
  return pdf.save();
}

test("journalLine wants three short labels or more between bars, no sentence", () => {
  assert.equal(journalLine("Research report | Company study | Banking"), true);
  assert.equal(journalLine("证券研究报告 | 公司研究 | 银行"), true);
  assert.equal(journalLine("Journal of Tests | Vol. 3 | Issue 2"), true);
  assert.equal(journalLine("2025 interim results | Rating: buy"), false);
  assert.equal(journalLine("Use a | b | c to choose one of the three values, as shown below."), false);
  assert.equal(journalLine("a || b"), false);
});

test("a category line of labels between bars at a single page's top is its header", async () => {
  const bytes = await pageWithHead((page, fonts) =>
    drawLine(page, "Research report | Company study | Banking", 72, 66, fonts.bold, 10),
  );
  assert.deepEqual(await headersOf(bytes), ["Research report | Company study | Banking"]);
  const clean = await markdownOf(bytes, FURNITURE);
  assert.doesNotMatch(clean, /Research report/, clean);
  assert.match(clean, /Quarterly Review of Regional Banks/);
  assert.match(clean, /The body of the page/);
});

test("a journal's name set level with its ISSN at a single page's top is its header", async () => {
  const bytes = await pageWithHead((page, fonts) => {
    // The name in larger type, the ISSN smaller and lower, their feet on one line.
    drawLine(page, "Working Papers on Testing", 72, 48, fonts.regular, 13);
    drawLine(page, "ISSN 1234-5678", 460, 52, fonts.regular, 9);
  });
  const clean = await markdownOf(bytes, FURNITURE);
  assert.doesNotMatch(clean, /ISSN/, clean);
  assert.doesNotMatch(clean, /Working Papers on Testing/, clean);
  assert.match(clean, /Quarterly Review of Regional Banks/);
  assert.deepEqual((await headersOf(bytes)).sort(), ["ISSN 1234-5678", "Working Papers on Testing"]);
});

test("public page: a broker report's category line is a header", {
  timeout: 600_000,
}, async () => {
  const broker = await engineMarkdown(path.join(REAL_WORLD_DIR, "broker-report-zh-p1.pdf"), [...FURNITURE]);
  assert.doesNotMatch(broker, /证券研究报告/, broker);
  assert.match(broker, /招商银行（600036\.SH）/);
});

test("furniturePattern reads a short line citing the issue (a year and a page range), not a reference", () => {
  assert.equal(furniturePattern("Journal Title Here, 2022, pp. 1–9"), true);
  assert.equal(furniturePattern("Proc. of the Testing Conference (2019) pp. 12-20"), true);
  // A reference in a list cites pages too, with its authors and title: longer than a journal line.
  assert.equal(
    furniturePattern("Smith, J. and Jones, K. A study of testing. Journal of Tests, 2019, pp. 12–20."),
    false,
  );
  assert.equal(furniturePattern("Read pp. 12–20 before the class"), false);
});

test("a journal line citing the issue, a little larger than the body, at a single page's top is its header", async () => {
  // The page's first line in 11 pt over a body in 10 (an OUP page: the line in 8 pt over a body in 7.5).
  const bytes = await pageWithHead((page, fonts) =>
    drawLine(page, "Journal of Tests, 2022, pp. 1–9", 380, 50, fonts.regular, 11),
  );
  assert.deepEqual(await headersOf(bytes), ["Journal of Tests, 2022, pp. 1–9"]);
  const clean = await markdownOf(bytes, FURNITURE);
  assert.doesNotMatch(clean, /pp\. 1–9/, clean);
  assert.match(clean, /Quarterly Review of Regional Banks/);
});

test("public page: an OUP page's journal line is furniture", { timeout: 600_000 }, async () => {
  await assertPdfFacts("oup-journal-template-p1.pdf", [
    { absent: "Journal Title Here, 2022, pp. 1–9" },
    { present: "Key words: keyword1, Keyword2, Keyword3, Keyword4" },
  ]);
});
