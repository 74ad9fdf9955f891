import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import { type PageGraphics, pageGraphics } from "./graphics.ts";
import { closePdf, openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";

/**
 * Thin light rules (a web print's infobox row lines in #eaecf0, hairlines in light grey) reach the page's rules:
 * only white or nearly white paint, invisible on the page, is left out.
 */

async function graphicsOf(bytes: Uint8Array, pageNumber = 1): Promise<PageGraphics> {
  const doc: PDFDocumentProxy = await openPdf(bytes);
  try {
    const page = await doc.getPage(pageNumber);
    return pageGraphics(await page.getOperatorList(), page.getViewport({ scale: 1 }).transform);
  } finally {
    await closePdf(doc);
  }
}

/** Horizontal rules as [y, x1, x2], rounded, top to bottom. */
const horizontal = (g: PageGraphics) =>
  g.rules
    .filter((r) => r.orientation === "h")
    .map((r) => [Math.round(r.y1), Math.round(r.x1), Math.round(r.x2)])
    .sort((a, b) => a[0] - b[0]);

test("light grey rules drawn as thin fills, hairline strokes and grey strokes are rules; white ones are not", async () => {
  const g = await graphicsOf(
    onePagePdf(
      [
        // #eaecf0 fills 0.75 pt high under a scale, as a browser prints a table's borders.
        "q 0.75 0 0 0.75 0 0 cm 0.918 0.925 0.941 rg 133 960 240 1 re f Q",
        // A hairline (width 0) in light grey, and a 0.25 pt stroke in grey 0.85.
        "0.8 0.8 0.8 RG 0 w 100 600 m 280 600 l S",
        "0.85 G 0.25 w 100 580 m 280 580 l S",
        // White paint on white paper: no rule.
        "1 1 1 RG 1 w 100 560 m 280 560 l S",
        "0.97 g 100 540 180 0.5 re f",
      ].join("\n"),
    ),
  );
  assert.deepEqual(horizontal(g), [
    [72, 100, 280],
    [192, 100, 280],
    [212, 100, 280],
  ]);
});

test("the web print's infobox: its light grey row lines are rules across the box", async () => {
  const bytes = new Uint8Array(
    readFileSync(new URL("../../test/real-world/wikipedia-pdfjs-p1.pdf", import.meta.url)),
  );
  const g = await graphicsOf(bytes);
  // The infobox runs from x 396 to 576; a rule across it under each of its rows.
  const across = g.rules.filter(
    (r) => r.orientation === "h" && Math.abs(r.x1 - 396) < 2 && Math.abs(r.x2 - 576) < 2,
  );
  assert.ok(across.length >= 10, JSON.stringify(across));
});
