import assert from "node:assert/strict";
import { test } from "node:test";
import { degrees } from "pdf-lib";
import { newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { blockText } from "./blocks.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { LEFT_COLUMN, RIGHT_COLUMN } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** Two columns 40 pt apart; with a watermark, a word set at 72 pt in light grey across both, under their lines. */
function columnsPage(watermark: boolean): Uint8Array {
  const parts: string[] = [];
  if (watermark) parts.push("0.85 g BT /F1 72 Tf 0 Tw 120 640 Td (SPECIMEN) Tj ET 0 g");
  LEFT_COLUMN.forEach((line, i) => {
    parts.push(`BT /F1 10 Tf 0 Tw 72 ${700 - 12 * i} Td (${line}) Tj ET`);
  });
  RIGHT_COLUMN.forEach((line, i) => {
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
  assert.ok(text.includes(LEFT_COLUMN.join(" ")), text);
  assert.ok(text.includes(RIGHT_COLUMN.join(" ")), text);
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

test("a diagonal stamp across a page is read after its text as a paragraph, not as the page's title", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  page.drawText("Declaration", { x: 250, y: 720, size: 14, font: fonts.bold });
  for (const [i, line] of LEFT_COLUMN.entries())
    page.drawText(line, { x: 72, y: 680 - i * 14, size: 10, font: fonts.regular });
  page.drawText("SCANNED COPY", { x: 60, y: 120, size: 64, font: fonts.regular, rotate: degrees(55) });
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  const markdown = result.markdown;
  assert.doesNotMatch(markdown, /^#+ SCANNED COPY/m, markdown);
  assert.match(markdown, /\n\nSCANNED COPY$/, markdown);
  assert.match(markdown, /^#+ Declaration$/m, markdown);
});

test("zh-statement-watermark: the diagonal `SCANNED COPY` stamp is no title, read after the declaration", async () => {
  await assertPdfFacts("zh-statement-watermark.pdf", [
    { present: "SCANNED COPY" },
    { before: ["日 期", "SCANNED COPY"] },
    { before: ["声 明", "SCANNED COPY"] },
  ]);
});
