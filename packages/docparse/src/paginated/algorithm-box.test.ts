import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { DocItem } from "../model.ts";

// An algorithm box (a listing framed by rules, its caption row ruled off from its body): a rule between two
// lines parts them (blocks.ts, ruledApart); a keyword set bold in small letters (`end`) is no heading, nor is a
// line labelled `Input:` a formula (labels.ts).

async function itemsOf(bytes: Uint8Array): Promise<DocItem[]> {
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return document.items;
}

function itemWith(items: DocItem[], words: string): DocItem | undefined {
  return items.find((item) => "text" in item && item.text.includes(words));
}

test("a ruled-off caption row stays apart from the listing's first line, and a bold `end` is no heading", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  page.drawText(
    "The next listing shows how the net activation of one unit is computed from its weighted inputs.",
    {
      x: 72,
      y: 720,
      size: 10,
      font: fonts.regular,
    },
  );
  const rule = (y: number) =>
    page.drawLine({ start: { x: 72, y }, end: { x: 540, y }, thickness: 0.4, color: rgb(0, 0, 0) });
  rule(680);
  page.drawText("Algorithm 3:", { x: 76, y: 667, size: 10, font: fonts.bold });
  page.drawText("Computing Net Activation", { x: 142, y: 667, size: 10, font: fonts.regular });
  rule(664);
  const body = [
    "Given the inputs x and the weights w of one unit, where every input has a weight of its own and the",
    "unit sums the products of each input and its weight:",
  ];
  body.forEach((line, i) => {
    page.drawText(line, { x: 72, y: 655 - i * 12, size: 10, font: fonts.regular });
  });
  page.drawText("end", { x: 72, y: 619, size: 10, font: fonts.bold });
  rule(614);
  page.drawText("The unit passes y through its activation function before it is sent on.", {
    x: 72,
    y: 590,
    size: 10,
    font: fonts.regular,
  });
  const items = await itemsOf(await pdf.save());
  const caption = itemWith(items, "Computing Net Activation");
  assert.ok(caption && "text" in caption);
  assert.equal(caption.text, "Algorithm 3: Computing Net Activation");
  const end = items.find((item) => "text" in item && /(^| )end$/.test(item.text));
  assert.ok(end, JSON.stringify(items.map((item) => ("text" in item ? item.text : item.label))));
  assert.notEqual(end.label, "section_header");
});

test("a paper's algorithm boxes: captions alone, `end` and `differentiate` no headings, `Input:` no formula", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "pmlr-algorithms-theorem-p9-10.pdf")));
  const items = await itemsOf(bytes);
  const caption = itemWith(items, "Moore’s Shortest Path");
  assert.ok(caption && "text" in caption);
  assert.equal(caption.text, "Algorithm 2: Moore’s Shortest Path");
  assert.ok(!items.some((item) => item.label === "section_header" && item.text === "end"));
  // A description list's bold terms in small letters, long or short, are no headings either.
  assert.ok(!items.some((item) => item.label === "section_header" && item.text === "differentiate"));
  const input = itemWith(items, "Input:");
  assert.ok(input);
  assert.notEqual(input.label, "formula");
});
