import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { blockText, buildBlocks } from "./blocks.ts";
import { compoundHyphen } from "./compound-hyphen.ts";
import { makeLine } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

test("compoundHyphen keeps the hyphen of a word already joined by one on either side of the break", () => {
  assert.equal(compoundHyphen("an increase of 7% year-over-", "year."), true);
  assert.equal(compoundHyphen("an increase of 5% year-", "over-year."), true);
  assert.equal(compoundHyphen("is a state-of-the-", "art tool"), true);
  assert.equal(compoundHyphen("the new ver-", "sion of it"), false);
  assert.equal(compoundHyphen("self-", "supervised models"), false);
});

test("a block's text keeps a compound's hyphen at a line end and drops a broken word's", () => {
  const line = (text: string, y: number) =>
    makeLine([
      textRun(text, { x1: 50, y1: y, x2: 300, y2: y + 10 }, { fontName: "Helvetica", fontSize: 10 }),
    ]);
  const blocks = buildBlocks(
    [line("an increase of 7% year-over-", 100), line("year and a new ver-", 112), line("sion of it.", 124)],
    { lineGap: 2 },
  );
  assert.deepEqual(blocks.map(blockText), ["an increase of 7% year-over-year and a new version of it."]);
});

test("a PDF paragraph keeps year-over-year whole across a line break", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // Lines broken by hand, as a word processor breaks a hyphenated compound at one of its hyphens.
  const lines = [
    "Revenue was 32.0 billion, an increase of 11% year-over-",
    "year, and daily users grew by 5% year-",
    "over-year, while the new ver-",
    "sion of the app shipped.",
  ];
  let top = 72;
  for (const text of lines)
    top = drawParagraph(page, text, { x: 72, top, width: 500, font: fonts.regular, size: 10 }).next - 10;
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(
    result.markdown,
    /11% year-over-year, and daily users grew by 5% year-over-year, while the new version/,
    result.markdown,
  );
});

test("a public results release keeps year-over-year whole where its lines break", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "meta-q2-2023-results.pdf"));
  assert.match(markdown, /an increase of 7% year-over-year\./, markdown);
  assert.match(markdown, /an increase of 5% year-over-year\./, markdown);
});
