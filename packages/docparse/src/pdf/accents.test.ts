import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { loadDocument } from "../index.ts";
import { textRun } from "../paginated/test-geometry.ts";
import { composeAccents, composeInline } from "./accents.ts";
import { onePagePdf } from "./test-pdf.ts";

/** A run of `text` from x at 10 pt, half an em per character. */
const at = (text: string, x: number) =>
  textRun(text, { x1: x, y1: 100, x2: x + 5 * [...text].length, y2: 112 });

test("an accent ending a run composes with the letter the next run starts with, drawn back under it", () => {
  const runs = composeAccents([at("Erd\u00B4", 100), at("os and Poincar\u00B4", 117), at("e", 187)]);
  assert.equal(runs.length, 1);
  assert.equal(runs[0].text, "Erdós and Poincaré");
  assert.equal(runs[0].text, runs[0].text.normalize("NFC"));
  assert.deepEqual(runs[0].box, { x1: 100, y1: 100, x2: 192, y2: 112 });
});

test("an accent drawn after its letter, over it, composes too; a dotless i under an accent is an i", () => {
  assert.equal(composeAccents([at("Dvor", 100), at("\u02C7ak", 117)])[0].text, "Dvořak");
  assert.equal(composeAccents([at("Mart\u00B4", 100), at("\u0131nez", 117)])[0].text, "Martínez");
});

test("runs that do not overlap keep their accents as characters", () => {
  const runs = composeAccents([at("x\u00B4", 100), at("e", 130)]);
  assert.deepEqual(
    runs.map((run) => run.text),
    ["x\u00B4", "e"],
  );
});

test("inside a run, an accent glyph before a letter composes; ´ typed for an apostrophe and ASCII ` ^ ~ stay", () => {
  assert.equal(composeInline("na\u00A8ive Dvo\u02C7r\u00E1k"), "naïve Dvořák");
  assert.equal(composeInline("don\u00B4t"), "don\u00B4t");
  assert.equal(composeInline("a `b` ^c ~d"), "a `b` ^c ~d");
  // No precomposed character: left as drawn.
  assert.equal(composeInline("\u02DAq"), "\u02DAq");
});

/** Helvetica with caron, ring and dotless i at codes 128-130, as a TeX font's encoding might place them. */
const TEX_LIKE =
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [128 /caron /ring /dotlessi] >> >>";

test("a PDF drawing accents apart (TeX's way) reads as composed words, its ‘‘ ’’ quotes as “ ”", async () => {
  // Each accent is drawn, then the pen moves back (a positive TJ number) and the letter is drawn under it.
  const content = [
    "BT /F1 11 Tf 72 700 Td",
    "[(Erd) (\\264) 445 (e) (s met Poincar) (\\264) 445 (e in Dvo) (\\200) 445 (r) (\\341k) ] TJ",
    "0 -20 Td [(Mart) (\\264) 389 (\\202) (nez wrote ) (\\221\\221) (na) (\\250) 500 (\\202) (ve) (\\222\\222) (.)] TJ",
    "ET",
  ].join("\n");
  const bytes = onePagePdf(content, { fonts: [TEX_LIKE] });
  const doc = await loadDocument({ bytes, mimeType: "application/pdf" });
  const text = doc.items.map((item) => ("text" in item ? item.text : "")).join("\n");
  assert.match(text, /Erdés met Poincaré in Dvořák/);
  assert.match(text, /Martínez wrote “naïve”\./);
});

test("an accent TeX raises over a capital joins the word; after a word space the space stays", async () => {
  // TeX's \`A: the pen moves right to centre the raised grave over the A, draws it, and moves back to where the
  // glyphs before it end (Helvetica at 12 pt: FACOLT advances 47.34 pt, the grave is 4 pt narrower than A), so
  // pdf.js ends the item before the grave with a space. `DE` (16.67 pt) is followed by a word space of 3.34 pt first.
  const content = [
    "BT /F1 12 Tf 72 700 Td (FACOLT) Tj 49.34 2.5 Td (`) Tj -2 -2.5 Td (A DI SCIENZE) Tj ET",
    "BT /F1 12 Tf 72 670 Td (DE) Tj 22 2.5 Td (`) Tj -2 -2.5 Td (ANNO) Tj ET",
  ].join("\n");
  const bytes = onePagePdf(content);
  const doc = await loadDocument({ bytes, mimeType: "application/pdf" });
  const text = doc.items.map((item) => ("text" in item ? item.text : "")).join("\n");
  assert.match(text, /FACOLTÀ DI SCIENZE/);
  assert.match(text, /DE ÀNNO/);
});

test("a thesis title page's `FACOLTÀ`, its À drawn as TeX's raised grave over A, is one word", async () => {
  await assertPdfFacts("it-frontespizio-thesis-title.pdf", [
    { present: "FACOLTÀ DI SCIENZE MATEMATICHE, FISICHE E NATURALI" },
  ]);
});
