import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// A list item's enumerator is kept as printed (labels.ts): a reader searching for `(c)` must find it.

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

test("a list whose items open with `(a)` and `(1)` keeps those markers in the markdown", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  page.drawText("The tenant shall:", { x: 72, y: 700, size: 11, font: fonts.regular });
  const items = [
    "(a) pay the rent on the first day of each month;",
    "(b) keep the rooms clean and in good repair;",
    "(c) allow the landlord to inspect the rooms once a year.",
    "(1) The notice is given in writing to the other party.",
    "(2) It takes effect one month after it is received.",
  ];
  items.forEach((item, i) => {
    page.drawText(item, { x: 90, y: 680 - i * 18, size: 11, font: fonts.regular });
  });
  const markdown = await markdownOf(await pdf.save());
  for (const item of items) assert.ok(markdown.includes(item.slice(0, 20)), markdown);
});

test("a press release's note numbered `(1)` keeps its marker", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "kroger-press-release-p1.pdf")));
  assert.match(await markdownOf(bytes), /^\(1\) Identical sales without fuel/m);
});
