import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { drawLine, drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

const CARD = [
  "Ada Lovelace",
  "Analyst, Engines Ltd",
  "42 Babbage Row, London",
  "Member of the Analytical Engine Society",
];

const PROSE =
  "The ferry leaves the harbour at seven and returns before the evening tide, so passengers who miss it wait " +
  "for the morning boat, which calls at every island on the way and takes most of the day to reach the town.";

test("short lines each ended by hand (a speaker's card) stay lines apart; wrapped prose stays one paragraph", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  CARD.forEach((line, i) => {
    drawLine(page, line, 72, 100 + i * 14, fonts.regular, 11);
  });
  drawParagraph(page, PROSE, { x: 72, top: 250, width: 200, font: fonts.regular, size: 11 });
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const line of CARD) assert.match(markdown, new RegExp(`(^|\\n\\n)${line}(\\n\\n|$)`), line);
  assert.ok(markdown.includes(PROSE), markdown);
});

test("public: the speaker card of the OpenSSF badges deck keeps its lines apart", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}openssf-badges-talk-slides.pdf`));
  for (const line of ["CRob, n, adj, and v", "Pronunciation: U.S. (K-rowb)", "42nd level Dungeon Master"]) {
    assert.match(markdown, new RegExp(`\\n\\n${line.replace(/[().]/g, "\\$&")}\\n\\n`), line);
  }
});
