import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// Two columns set 3 pt apart (one line of the left one running nearly into the right one) are columns: the
// right column's lines start at one x and the left one's lines end just before it (close-columns.ts). A word
// space that happens to line up down a single column is no gutter.

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

// Ragged ends of the left column within an em or two of its widest line.
const LEFT = [
  "There was much celebration yesterday when the",
  "sheep of the shepherdess returned home after",
  "more than a week away from their field. She",
  "had been told to leave them alone and they",
  "would come home by themselves, and so they",
  "did at last, their tails wagging behind them,",
  "and she thanked the village for all its help",
  "in the search for them in the hills nearby.",
];
const RIGHT = [
  "afternoon. The sheep made",
  "no comment, and the police",
  "are still trying to find out",
  "what happened to them on",
  "the hill beyond the river",
  "during the long week they",
  "were away from the farm,",
  "said the village's mayor.",
];

test("columns 3 pt apart are read one after the other, not line by line across", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([420, 595]);
  const size = 10;
  const widest = Math.max(...LEFT.map((line) => fonts.regular.widthOfTextAtSize(line, size)));
  const edge = 40 + widest + 3;
  LEFT.forEach((line, i) => {
    page.drawText(line, { x: 40, y: 500 - i * 12, size, font: fonts.regular });
  });
  RIGHT.forEach((line, i) => {
    page.drawText(line, { x: edge, y: 500 - i * 12, size, font: fonts.regular });
  });
  const markdown = await markdownOf(await pdf.save());
  assert.match(markdown, /yesterday when the sheep of the shepherdess/, markdown);
  assert.match(markdown, /hills nearby\.[\s\S]*afternoon\. The sheep made no comment/, markdown);
});

test("a page number centred in the gutter under two columns is no column's edge", async () => {
  // The number narrows the gutter on a row of its own: the page is cut above it, and a paragraph running from
  // the left column into the right one reads on.
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "latex-two-column-p1.pdf")));
  const markdown = await markdownOf(bytes);
  assert.match(markdown, /Donec nonummy pellentesque ante\./);
});

test("a word space lined up down one column is no gutter", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([420, 595]);
  const size = 10;
  // Every line has a space at one x, but the words after it start a little apart, as a justified column's do.
  const lines = [
    ["The county's report on the", "roads says that most of the money of the year"],
    ["budget was spent well and", "that the repairs of the bridges were done in"],
    ["time for the spring floods,", "which came late this year and did little harm"],
    ["to the roads of the valley", "or to the farms along the river and its banks."],
    ["The council thanked the", "engineers and the workers for their long hours"],
    ["and asked them to go on in", "the same way next year, when the old bridge over"],
    ["the river is to be rebuilt", "from its piers up with the money left over."],
  ];
  const strip = 40 + Math.max(...lines.map(([first]) => fonts.regular.widthOfTextAtSize(first, size))) + 1;
  lines.forEach(([first, rest], i) => {
    page.drawText(first, { x: 40, y: 500 - i * 12, size, font: fonts.regular });
    page.drawText(rest, { x: strip + 3 + (i % 3) * 0.8, y: 500 - i * 12, size, font: fonts.regular });
  });
  const markdown = await markdownOf(await pdf.save());
  assert.match(
    markdown,
    /The county's report on the roads says that most of the money of the year budget was/,
    markdown,
  );
});

test("a newsletter's columns 3 pt apart are read one after the other", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "flowfram-newsletter.pdf")));
  const markdown = await markdownOf(bytes);
  assert.match(markdown, /yesterday morning when Little Bo Peep’s sheep/);
  assert.match(markdown, /press conference yesterday afternoon\. The sheep themselves made no comment/);
});
