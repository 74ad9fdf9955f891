import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { softHyphensRead } from "./soft-hyphens.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** Helvetica whose ToUnicode reads code 0xAD (WinAnsi's second hyphen, which draws a hyphen) as U+00AD. */
const SOFT_HYPHEN_CMAP = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
  "1 begincodespacerange <00> <ff> endcodespacerange",
  "2 beginbfrange <20> <7e> <0020> <ad> <ad> <00ad> endbfrange",
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");
const cmapStream = `<< /Length ${SOFT_HYPHEN_CMAP.length} >>\nstream\n${SOFT_HYPHEN_CMAP}\nendstream`;
const MAPPED = HELVETICA.replace(" >>", " /ToUnicode 6 0 R >>");

test("a soft hyphen drawn between two word parts reads as a hyphen; one at a line's end joins the word", async () => {
  const content = [
    "BT /F1 12 Tf 72 700 Td (The class deck\xADcontainer holds every slide.) Tj ET",
    "BT /F1 12 Tf 72 660 Td (A long paragraph whose word is broken by hyphen\xAD) Tj ET",
    "BT /F1 12 Tf 72 646 Td (ation at the end of its first line.) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content, { fonts: [MAPPED], objects: [cmapStream] }));
  assert.match(markdown, /class deck-container holds/);
  assert.match(markdown, /broken by hyphenation at/);
});

test("soft hyphens in a run: a hyphen between word parts and at the run's end, nothing beside a space", () => {
  assert.equal(softHyphensRead("deck\u00ADcontainer"), "deck-container");
  assert.equal(softHyphensRead("hyphen\u00AD"), "hyphen-");
  assert.equal(softHyphensRead("a \u00ADb"), "a b");
});

test("a browser's print of a slide reads the hyphen of a class name drawn as a soft hyphen", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "deckjs-slides-code-p3.pdf")));
  assert.match(await markdownOf(bytes), /<div class="deck-container">/);
});
