import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import type { TextRun } from "../paginated/geometry.ts";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";

async function pageRuns(bytes: Uint8Array): Promise<TextRun[]> {
  const doc = await openPdf(bytes);
  try {
    return (await extractPdfPage(doc, 1)).runs;
  } finally {
    await doc.destroy();
  }
}

test("a push button's caption is read where the button stands; a checkbox's tick gives nothing", async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  page.drawText("The body of the page.", { x: 50, y: 700, size: 11, font });
  const form = pdf.getForm();
  form
    .createButton("notice")
    .addToPage("Read the notice first", page, { x: 300, y: 600, width: 200, height: 30, font });
  const agree = form.createCheckBox("agree");
  agree.addToPage(page, { x: 50, y: 600, width: 12, height: 12 });
  agree.check();
  const runs = await pageRuns(await pdf.save());
  const caption = runs.filter((r) => /Read the notice first/.test(r.text));
  assert.equal(caption.length, 1, runs.map((r) => r.text).join(" | "));
  // Inside the button: x 300..500, y (top down) 792 - 630 .. 792 - 600.
  const { box } = caption[0];
  assert.ok(box.x1 >= 300 && box.x2 <= 500 && box.y1 >= 160 && box.y2 <= 194, JSON.stringify(box));
  assert.deepEqual(
    runs.map((r) => r.text.trim()).filter((t) => t.length > 0 && !/body|notice/.test(t)),
    [],
  );
});

test("the 1040NR instructions keep the notice in their boxed push button", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/irs-i1040nr-p1.pdf", import.meta.url));
  const text = (await pageRuns(new Uint8Array(bytes))).map((r) => r.text).join(" ");
  assert.match(text, /You owe the tax on health savings accounts from Form/);
  assert.match(text, /Publication 4655 for additional information/);
});
