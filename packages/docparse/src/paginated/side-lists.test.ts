import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { HELVETICA, onePagePdf } from "../pdf/test-pdf.ts";
import { blockText } from "./blocks.ts";
import { layoutPage } from "./layout.ts";
import { tableStage } from "./tables-stage.ts";

/** The bullets' font: a font of their own, as a slide export draws them (one run for each bullet). */
const COURIER = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";

/**
 * A slide's row of text boxes, 14 pt type on a 22 pt pitch: a numbered list, a narrow bulleted list (`• I1` …),
 * a caption over two bulleted items, a caption over a numbered list.
 */
function textBoxesInARow(): Uint8Array {
  const parts: string[] = [];
  const text = (s: string, x: number, line: number) =>
    parts.push(`BT /F1 14 Tf ${x} ${600 - 22 * line} Td (${s}) Tj ET`);
  const bullet = (x: number, line: number) =>
    parts.push(`BT /F2 14 Tf ${x} ${600 - 22 * line} Td (\\225) Tj ET`);
  ["1. List item4", "2. List item5", "3. List item6"].forEach((s, i) => {
    text(s, 120, i);
  });
  ["I1", "I2", "I3", "I4"].forEach((s, i) => {
    bullet(260, i);
    text(s, 276, i);
  });
  text("Some info:", 340, 0);
  ["Item A", "Item B"].forEach((s, i) => {
    bullet(340, i + 1);
    text(s, 356, i + 1);
  });
  text("Maybe a list?", 460, 0);
  ["1. List1", "2. List2", "3. List3"].forEach((s, i) => {
    text(s, 460, i + 1);
  });
  return onePagePdf(parts.join("\n"), { width: 720, height: 720, fonts: [HELVETICA, COURIER] });
}

async function layoutOf(bytes: Uint8Array) {
  const doc = await openPdf(bytes);
  try {
    return layoutPage(await extractPdfPage(doc, 1), { detectTables: tableStage, dropStruck: false });
  } finally {
    await doc.destroy();
  }
}

test("bulleted text boxes side by side are lists, each read whole, not the columns of one table", async () => {
  const layout = await layoutOf(textBoxesInARow());
  assert.deepEqual(
    layout.entries.filter((entry) => entry.kind === "table"),
    [],
  );
  const text = layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ")
    .replace(/\s+/g, " ");
  // The narrow box of `• I1` … is a column of its own: its items before the next box's caption.
  assert.ok(text.indexOf("I4") < text.indexOf("Some info:"), text);
  assert.ok(text.indexOf("Item B") < text.indexOf("Maybe a list?"), text);
  assert.ok(text.indexOf("List item6") < text.indexOf("I1"), text);
});

test("a PowerPoint slide of five text boxes in a row reads box after box", { timeout: 600_000 }, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "pptx-sample-lists-slides.pdf"));
  assert.doesNotMatch(markdown, /<table|\|/, markdown);
  const at = (s: string) => markdown.indexOf(s);
  assert.ok(at("I4") >= 0 && at("I4") < at("Some info:"), markdown);
  assert.ok(at("Item B") >= 0 && at("Item B") < at("Maybe a list?"), markdown);
  assert.match(markdown, /1\. List1\n2\. List2\n3\. List3/, markdown);
});

/**
 * A beamer slide's `columns`: three lists side by side, each under a label of its own on the first line (`Items`
 * over bulleted items, `Sorts` over a numbered list, `Terms` over a description list), 12 pt on a 16 pt pitch.
 */
function labelledListsInARow(): Uint8Array {
  const parts: string[] = [];
  const text = (s: string, x: number, line: number) =>
    parts.push(`BT /F1 12 Tf ${x} ${500 - 16 * line} Td (${s}) Tj ET`);
  const bullet = (x: number, line: number) =>
    parts.push(`BT /F2 12 Tf ${x} ${500 - 16 * line} Td (\\225) Tj ET`);
  text("Items", 60, 0);
  ["Flour", "Butter", "Sugar"].forEach((s, i) => {
    bullet(70, i + 1);
    text(s, 82, i + 1);
  });
  text("Sorts", 230, 0);
  ["1. Plain,", "2. Brown and", "3. Icing."].forEach((s, i) => {
    text(s, 240, i + 1);
  });
  text("Terms", 400, 0);
  text("Sift Shake.", 410, 1);
  text("Fold Turn.", 410, 2);
  return onePagePdf(parts.join("\n"), { width: 620, height: 620, fonts: [HELVETICA, COURIER] });
}

test("lists side by side under labels of their own are lists read one after another, not a table", async () => {
  const layout = await layoutOf(labelledListsInARow());
  assert.deepEqual(
    layout.entries.filter((entry) => entry.kind === "table"),
    [],
  );
  const text = layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ")
    .replace(/\s+/g, " ");
  assert.ok(text.indexOf("Sugar") >= 0 && text.indexOf("Sugar") < text.indexOf("Sorts"), text);
  assert.ok(text.indexOf("Icing.") >= 0 && text.indexOf("Icing.") < text.indexOf("Terms"), text);
});

test("a metropolis slide of three labelled lists side by side reads list after list", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("metropolis-demo-slides.pdf", [
    { before: ["Potatos", "Enumerations"] },
    { before: ["Last.", "Descriptions"] },
  ]);
});
