import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { DOCLING_DATA, NO_CORPUS } from "../test-corpus.ts";
import { onePagePdf } from "./test-pdf.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

test("white text on nothing is not read; white text on a painted ground and the text under a white label are", async () => {
  const content = [
    "0 g BT /F1 10 Tf 72 700 Td (Harbour tide tables for the coming week) Tj ET",
    // A banner: white type on a blue bar, which shows.
    "0 0 0.6 rg 72 600 300 30 re f 1 1 1 rg BT /F1 14 Tf 80 610 Td (Ferry timetable banner) Tj ET",
    // A spacer line in white at the page's foot, on the white page: nobody sees it.
    "1 1 1 rg BT /F1 10 Tf 0 3 Td (SPACER TEXT) Tj ET",
    // A cell's figure, and a white word drawn across it: the figure shows, the word does not.
    "0 g BT /F1 8 Tf 300 500 Td (19) Tj ET 1 1 1 rg BT /F1 10 Tf 294 498 Td (Australia) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.match(markdown, /Harbour tide tables/);
  assert.match(markdown, /Ferry timetable banner/);
  assert.match(markdown, /\b19\b/);
  assert.doesNotMatch(markdown, /SPACER/);
  assert.doesNotMatch(markdown, /Australia/);
});

test("public: the Nokia page's white SPACER TEXT is not read; Acciona's white word no longer joins Poland's cells", async () => {
  const nokia = await markdownOf(readFileSync(`${REAL_WORLD}nokia-interface-guide-p93.pdf`));
  assert.doesNotMatch(nokia, /SPACER TEXT/);
  assert.match(nokia, /Multiple PXCs on the same underlying cross-connect/);
  const acciona = await markdownOf(readFileSync(`${REAL_WORLD}acciona-tax-table.pdf`));
  assert.match(acciona, /<td>Poland<\/td><td>335<\/td><td>19<\/td><td>4<\/td>/);
});

test("white text on a wide stroked line is read: the stroke is its ground; white text in a stroked frame is not", async () => {
  const content = [
    "0 g BT /F1 10 Tf 72 700 Td (Harbour tide tables for the coming week) Tj ET",
    // A caption's bar drawn as one line stroked 14 pt wide, its white title on it.
    "14 w 0.8 0.4 0.1 RG 72 604 m 300 604 l S 1 1 1 rg BT /F1 10 Tf 80 600 Td (Figure seven harbour map) Tj ET",
    // A frame stroked round white words, nothing inside it: the blank inside is no ground.
    "1 w 0 G 72 500 250 40 re S 1 1 1 rg BT /F1 10 Tf 80 515 Td (Invisible framed note) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.match(markdown, /Figure seven harbour map/);
  assert.doesNotMatch(markdown, /Invisible framed note/);
});

test("a hairline is no ground: white print of 2 pt on a line stroked 1 pt wide is not read", async () => {
  const content = [
    "0 g BT /F1 10 Tf 72 700 Td (Harbour tide tables for the coming week) Tj ET",
    "1 w 0 G 72 600.5 m 300 600.5 l S 1 1 1 rg BT /F1 2 Tf 80 600 Td (Hairline hidden words) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.match(markdown, /Harbour tide tables/);
  assert.doesNotMatch(markdown, /Hairline hidden words/);
});

test("public: the Korean report's white figure caption on its stroked orange bar is read", {
  skip: NO_CORPUS,
}, async () => {
  const markdown = await markdownOf(readFileSync(`${DOCLING_DATA}/pdf/sources/skipped_1page.pdf`));
  assert.match(markdown, /\[그림 4-5\] 8대 미래 유망 보안기술 도출/);
});
