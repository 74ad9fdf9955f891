import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import fontkit from "@pdf-lib/fontkit";
import { PDFDocument } from "pdf-lib";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { latinHomoglyphs } from "./homoglyphs.ts";

test("a Cyrillic look-alike between Latin letters reads as the Latin letter, Cyrillic words keep theirs", () => {
  assert.equal(latinHomoglyphs("клас artіcle і report"), "клас article і report");
  assert.equal(latinHomoglyphs("Wіndows, tіtlepage, openrіght"), "Windows, titlepage, openright");
  // A Latin name with a Cyrillic ending, a Cyrillic word with a look-alike, a word with other Cyrillic letters.
  assert.equal(latinHomoglyphs("LaTeXу сон artіcleщ"), "LaTeXу сон artіcleщ");
});

test("a made page's Latin words drawn with a Cyrillic і read in Latin", async () => {
  // Liberation Sans, shipped with pdfjs-dist, holds Cyrillic: its ToUnicode maps the glyph to U+0456.
  const ttf = readFileSync(
    createRequire(import.meta.url).resolve("pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf"),
  );
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const font = await pdf.embedFont(ttf, { subset: true });
  const page = pdf.addPage([500, 300]);
  page.drawText("Клас artіcle і клас slіdes для статей.", { x: 40, y: 220, size: 14, font });
  page.drawText("Опції twosіde, onesіde і titlepage.", { x: 40, y: 190, size: 14, font });
  const { result } = await parseDocument({ bytes: await pdf.save(), mimeType: "application/pdf" });
  assert.match(result.markdown, /Клас article і клас slides для статей\./u, result.markdown);
  assert.match(result.markdown, /Опції twoside, oneside і titlepage\./u, result.markdown);
});

test("a Ukrainian manual's typewriter words spelt with a Cyrillic і read in Latin", {
  timeout: 120_000,
}, async () => {
  await assertPdfFacts("uk-lshort-ukr-p24-25.pdf", [
    { present: "\\documentclass[11pt,twoside,a4paper]{article}" },
    { present: "The LATEX Companion [4]" },
    { present: "slides для слайдів" },
    { present: "twoside, oneside Форматує сторінки для друку на двох" },
  ]);
});
