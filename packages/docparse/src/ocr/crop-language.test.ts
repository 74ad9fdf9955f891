import assert from "node:assert/strict";
import { test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { parseDocument } from "../index.ts";
import { textLanguage } from "./crop-language.ts";
import { tesseractInstallation } from "./tesseract.ts";

/**
 * Text in images of a digital PDF is read in the language of the PDF's text layer (crop-language.ts): on a page
 * made for it (a French page with a French banner image) and on samples of text layers.
 */

const FRENCH = [
  "Le conseil municipal s'est réuni mardi pour examiner le budget de la bibliothèque et des écoles.",
  "Les élus ont décidé que la salle des fêtes serait rénovée avant l'été, et que les travaux de la",
  "piscine commenceraient dès que les entreprises auraient répondu à l'appel d'offres du département.",
  "Une réunion publique est prévue le mois prochain pour présenter le projet aux habitants du quartier.",
];

/** A page of French prose (text layer) under a banner image reading `Fête de l'été à côté du théâtre`. */
async function frenchPageWithBanner(): Promise<Uint8Array> {
  const canvas = createCanvas(1400, 160);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  context.font = '64px "DejaVu Sans"';
  context.fillText("Fête de l'été à côté du théâtre", 40, 105);
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const image = await doc.embedPng(canvas.toBuffer("image/png"));
  page.drawImage(image, { x: 56, y: 640, width: 500, height: (500 * 160) / 1400 });
  FRENCH.forEach((line, i) => {
    page.drawText(line, { x: 56, y: 580 - i * 16, size: 10, font });
  });
  return doc.save();
}

const HAS_FRENCH = (await tesseractInstallation())?.languages.includes("fra") ?? false;

test("a French page's banner image is read in French: its accents kept", {
  skip: !HAS_FRENCH,
  timeout: 300_000,
}, async () => {
  const { result } = await parseDocument({
    bytes: await frenchPageWithBanner(),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  assert.match(result.markdown, /Fête de l'été à côté du théâtre/, result.markdown);
  assert.match(result.markdown, /bibliothèque/, result.markdown);
});

test("textLanguage: the script, then the Latin language of a text layer's words", () => {
  assert.equal(textLanguage(FRENCH.join(" "), null), "fra");
  assert.equal(
    textLanguage(
      "The committee met on Tuesday morning to review the annual budget of the regional library.",
      "fr-FR",
    ),
    "eng",
  );
  assert.equal(
    textLanguage("Комитет собрался во вторник утром, чтобы рассмотреть годовой бюджет.", null),
    "rus+eng",
  );
  assert.equal(
    textLanguage(
      "委員会は火曜日の朝に集まり、地域図書館の年間予算を検討しました。それから会議が終わりました。",
      null,
    ),
    "jpn+eng",
  );
  // Too little text: the document's /Lang.
  assert.equal(textLanguage("Budget 2024", "de-DE"), "deu");
  assert.equal(textLanguage("Budget 2024", null), "eng");
});
