import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { DocItem } from "../model.ts";
import { opensWithDayDate } from "./day-dates.ts";

// A date written day first (`30. Juni 2008`) opens with what looks like an ordered list's `30.`: it is a date's
// line, not a list item (day-dates.ts).

async function itemsOf(bytes: Uint8Array): Promise<{ items: DocItem[]; markdown: string }> {
  const { document, result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return { items: document.items, markdown: result.markdown };
}

function itemWith(items: DocItem[], words: string): DocItem | undefined {
  return items.find((item) => "text" in item && item.text.includes(words));
}

test("a day, its period and a month's name or a capitalised word and a year open a date", () => {
  for (const text of [
    "30. Juni 2008",
    "22. August 2022",
    "1. Januar",
    "3. maj 2021",
    "15. Okt. 2020",
    "2. Brumaire 1799",
    "05. 02. 2019).",
    "12. 3. 2020",
  ])
    assert.ok(opensWithDayDate(text), text);
  for (const text of [
    "3. Results of 2019",
    "2. Methods",
    "32. Juni 2008",
    "4. Mars is the fourth planet",
    "1. the year 2020",
    "5. 12 apples",
    "2. 3. Results",
    "3. 14. 2019",
  ])
    assert.ok(!opensWithDayDate(text), text);
});

test("a letter's date line `30. Juni 2008` is text, not a list item, and its words stay in the markdown", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  page.drawText("Datum", { x: 420, y: 640, size: 8, font: fonts.regular });
  page.drawText("30. Juni 2008", { x: 420, y: 628, size: 10, font: fonts.regular });
  page.drawText("Sehr geehrte Frau Mittellos,", { x: 72, y: 560, size: 10, font: fonts.regular });
  page.drawText("1. Januar ist der erste Tag des Jahres, an dem die Miete steigt.", {
    x: 72,
    y: 530,
    size: 10,
    font: fonts.regular,
  });
  const { items, markdown } = await itemsOf(await pdf.save());
  for (const words of ["Juni 2008", "Januar ist"]) {
    const item = itemWith(items, words);
    assert.ok(item, markdown);
    assert.notEqual(item.label, "list_item", JSON.stringify(item));
    assert.ok("text" in item && /^\d+\. /.test(item.text), JSON.stringify(item));
  }
  assert.match(markdown, /^30\\?\. Juni 2008$/m);
});

test("a German letter's date `30. Juni 2008` is not a list item", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "g-brief-rent-reminder.pdf")));
  const { items } = await itemsOf(bytes);
  const date = itemWith(items, "Juni 2008");
  assert.ok(date && "text" in date);
  assert.equal(date.label, "text");
  assert.equal(date.text, "30. Juni 2008");
});

test("a reference's access date wrapped onto a line of its own (`05. 02. 2019).`) stays in its reference", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  const lines = [
    "[1] Markus Kohm. The guide to the classes and packages.",
    "URL: https://example.org/macros/latex/guide.pdf (visited on",
    "05. 02. 2019).",
    "[2] Rolf Niepraschk. The document class of leaflets. URL:",
    "https://example.org/macros/latex/leaflet.pdf (visited on",
    "12. 02. 2020).",
  ];
  lines.forEach((text, i) => {
    const x = text.startsWith("[") ? 72 : 90;
    page.drawText(text, { x, y: 700 - i * 12, size: 10, font: fonts.regular });
  });
  const { items, markdown } = await itemsOf(await pdf.save());
  for (const words of ["05. 02. 2019", "12. 02. 2020"]) {
    const item = itemWith(items, words);
    assert.ok(item && "text" in item, markdown);
    assert.match(item.text, /^\[\d\]/, markdown);
  }
});

test("a leaflet's reference keeps its wrapped access date `05. 02. 2019).`", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "tuda-leaflet-trifold.pdf")));
  const { items, markdown } = await itemsOf(bytes);
  for (const words of ["(besucht am 05. 02. 2019).", "(besucht am 12. 02. 2020)."])
    assert.ok(itemWith(items, words), markdown.slice(0, 1500));
});
