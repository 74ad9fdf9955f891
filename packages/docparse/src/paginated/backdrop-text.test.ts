import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { blockText } from "./blocks.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

const LEFT = [
  "the left column opens with a sentence",
  "about the first part of the description",
  "which runs on down the column below",
  "and keeps going over several lines of",
  "plain text set in one narrow measure",
  "with nothing special about its words",
  "until the left column finally reaches",
  "its very last line here at the bottom.",
];
const RIGHT = [
  "the right column tells how the vest is",
  "worn with pockets for small pets which",
  "crawl along the passages in the cloth",
  "where rodents may be seen moving, such",
  "as hamsters or mice, by a spectator who",
  "watches them go round the wearer and",
  "back again along the tunnels of the vest",
  "and that is the end of the right column.",
];

/** Two columns 40 pt apart; with a watermark, a word set at 72 pt in light grey across both, under their lines. */
function columnsPage(watermark: boolean): Uint8Array {
  const parts: string[] = [];
  if (watermark) parts.push("0.85 g BT /F1 72 Tf 0 Tw 120 640 Td (SPECIMEN) Tj ET 0 g");
  LEFT.forEach((line, i) => {
    parts.push(`BT /F1 10 Tf 0 Tw 72 ${700 - 12 * i} Td (${line}) Tj ET`);
  });
  RIGHT.forEach((line, i) => {
    parts.push(`BT /F1 10 Tf 0 Tw 312 ${700 - 12 * i} Td (${line}) Tj ET`);
  });
  return onePagePdf(parts.join("\n"));
}

async function pageText(bytes: Uint8Array): Promise<string> {
  const doc = await openPdf(bytes);
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), STAGES);
    return layout.entries
      .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
      .join(" ")
      .replace(/\s+/g, " ");
  } finally {
    await doc.destroy();
  }
}

test("a watermark across two columns does not close their gutter: each column is read whole, the mark after", async () => {
  const text = await pageText(columnsPage(true));
  assert.ok(text.includes(LEFT.join(" ")), text);
  assert.ok(text.includes(RIGHT.join(" ")), text);
  assert.ok(text.indexOf("at the bottom.") < text.indexOf("the right column tells"), text);
  // Nothing is lost: the watermark is read after the page's text.
  assert.match(text, /end of the right column\. SPECIMEN$/, text);
});

test("tcolorbox-project-poster: the poster's boxes read whole under its large backdrop words", async () => {
  await assertPdfFacts("tcolorbox-project-poster.pdf", [
    {
      present:
        "Nulla et lectus vestibulum urna fringilla ultrices. Phasellus eu tellus sit amet tortor gravida placerat.",
    },
    {
      before: [
        "Morbi blandit ligula feugiat magna",
        "eleifend consequat lorem. Sed lacinia nulla vitae enim",
      ],
    },
    { before: ["Vivamus quis tortor vitae risus porta vehicula", "That’s all"] },
  ]);
});
