import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// A line opening with a raised mark (an affiliation's `¹`) is no heading, however large (labels.ts).

async function headings(bytes: Uint8Array): Promise<string[]> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown.split("\n").filter((line) => line.startsWith("#"));
}

test("an affiliation line under a poster's title, opened by a raised 1 and set large, is not a heading", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([1200, 800]);
  page.drawText("Reading Posters Made With Markdown", { x: 100, y: 720, size: 48, font: fonts.bold });
  page.drawText("1", { x: 100, y: 672, size: 14, font: fonts.regular });
  page.drawText("Department of Layouts, University of Markdown", {
    x: 109,
    y: 664,
    size: 20,
    font: fonts.regular,
  });
  page.drawText("Introduction", { x: 100, y: 600, size: 22, font: fonts.bold });
  const body =
    "The poster's body is set in a smaller type than its headings and runs on for several lines, so that the " +
    "body size of the page is the size of these lines and not of the title or the affiliation above them.";
  drawParagraph(page, `${body} ${body}`, { x: 100, top: 220, width: 500, font: fonts.regular, size: 14 });
  drawParagraph(page, `${body} ${body}`, { x: 620, top: 220, width: 500, font: fonts.regular, size: 14 });
  const found = await headings(await pdf.save());
  assert.ok(
    found.some((line) => /Introduction/.test(line)),
    found.join("\n"),
  );
  assert.ok(!found.some((line) => /Department/.test(line)), found.join("\n"));
});

test("a conference poster's affiliation line is not a heading", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "posterdown-poster.pdf")));
  const found = await headings(bytes);
  assert.ok(
    found.some((line) => /Introduction/.test(line)),
    found.join("\n"),
  );
  assert.ok(!found.some((line) => /Department of Poster Layouts/.test(line)), found.join("\n"));
});
