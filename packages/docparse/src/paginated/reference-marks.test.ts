import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawLine, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// A reference's `[n]` hanging in the margin up to three ems before its text stays on its line (lines.ts), as a
// bullet does, so each entry of a list of references reads as one paragraph opened by its mark.

const ENTRIES = [
  ["[1]", "A. Harbour and B. Pier. Timetables of the island crossings.", "Ferry Review 12 (2019), pp. 1–20."],
  ["[2]", "C. Tide. Loading boats before the evening tide.", "Port Studies 4 (2021), pp. 33–41."],
  ["[3]", "D. Quay. When the morning boat calls at every island.", "Ferry Review 15 (2022), pp. 7–9."],
];

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

test("a reference's [n] hanging two ems before its text opens its entry's line", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  let top = 100;
  for (const [mark, first, second] of ENTRIES) {
    drawLine(page, mark, 72, top, fonts.regular, 10);
    drawLine(page, first, 108, top, fonts.regular, 10);
    drawLine(page, second, 108, top + 12, fonts.regular, 10);
    top += 30;
  }
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const [mark, first, second] of ENTRIES)
    assert.ok(markdown.includes(`${mark} ${first} ${second}`), markdown);
});

test("a poster's references read an entry a paragraph, the [n] opening it (public page)", async () => {
  const poster = await engineMarkdown(path.join(REAL_WORLD_DIR, "posterdown-poster.pdf"), []);
  assert.match(poster, /\n\n\[1\] Eun-Jung Holden et al\./, poster);
  assert.match(poster, /\n\n\[2\] Maarit Middleton,/, poster);
});
