import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";

async function pageText(bytes: Uint8Array): Promise<{ text: string; runs: { text: string; y: number }[] }> {
  const doc = await openPdf(bytes);
  try {
    const page = await extractPdfPage(doc, 1);
    return {
      text: page.runs.map((r) => r.text).join(" "),
      runs: page.runs.map((r) => ({ text: r.text, y: (r.box.y1 + r.box.y2) / 2 })),
    };
  } finally {
    await doc.destroy();
  }
}

test("a form's filled text fields and choice are read where they stand; an empty field and a checkbox give nothing", async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  page.drawText("Applicant name", { x: 50, y: 700, size: 11, font });
  page.drawText("City", { x: 50, y: 660, size: 11, font });
  const form = pdf.getForm();
  const name = form.createTextField("name");
  name.setText("Ada Lovelace");
  name.addToPage(page, { x: 160, y: 695, width: 200, height: 20, font });
  const city = form.createDropdown("city");
  city.addOptions(["Leeds", "London"]);
  city.select("London");
  city.addToPage(page, { x: 160, y: 655, width: 120, height: 20, font });
  form.createTextField("empty").addToPage(page, { x: 160, y: 615, width: 200, height: 20, font });
  form.createCheckBox("agree").addToPage(page, { x: 160, y: 580, width: 12, height: 12 });
  const { text, runs } = await pageText(await pdf.save());
  assert.match(text, /Ada Lovelace/);
  assert.match(text, /London/);
  assert.doesNotMatch(text, /Leeds/);
  // Each value on its label's line (model coordinates, top down: y = 792 - 705).
  const value = runs.find((r) => r.text.includes("Ada Lovelace"));
  assert.ok(value && Math.abs(value.y - 87) < 6, JSON.stringify(value));
  assert.equal(runs.filter((r) => r.text.trim() === "").length, 0);
});

test("the LibreOffice form keeps its filled-in names", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/libreoffice-form.pdf", import.meta.url));
  const { text } = await pageText(new Uint8Array(bytes));
  assert.match(text, /\bAlice\b/);
  assert.match(text, /\bBob\b/);
  assert.match(text, /First Name/);
});
