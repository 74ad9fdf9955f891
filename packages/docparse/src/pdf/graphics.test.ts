import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { Rule, TextRun } from "../paginated/geometry.ts";
import { hRule, textRun } from "../paginated/test-geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { markStrikethrough, type PageGraphics, pageGraphics } from "./graphics.ts";
import { closePdf, openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";
import { pageTextRuns } from "./text.ts";

/** A file of Docling's test data in the shared corpus; only called by tests that skip without it. */
const corpus = (path: string) => readFileSync(corpusPath("docling/tests/data", path));

async function withDoc<T>(bytes: Uint8Array, use: (doc: PDFDocumentProxy) => Promise<T>): Promise<T> {
  const doc = await openPdf(bytes);
  try {
    return await use(doc);
  } finally {
    await closePdf(doc);
  }
}

async function graphicsOf(doc: PDFDocumentProxy, pageNumber: number): Promise<PageGraphics> {
  const page = await doc.getPage(pageNumber);
  return pageGraphics(await page.getOperatorList(), page.getViewport({ scale: 1 }).transform);
}

const drawn = (content: string, options?: { rotate?: number }) =>
  withDoc(onePagePdf(content, options), (doc) => graphicsOf(doc, 1));

const rounded = (rule: Rule) => ({
  ...rule,
  x1: Math.round(rule.x1 * 100) / 100,
  y1: Math.round(rule.y1 * 100) / 100,
  x2: Math.round(rule.x2 * 100) / 100,
  y2: Math.round(rule.y2 * 100) / 100,
  width: Math.round(rule.width * 100) / 100,
});

describe("pageGraphics on drawn pages", () => {
  test("a stroked segment is a rule in model coordinates (origin top left)", async () => {
    const g = await drawn("0 G 1 w 72 700 m 540 700 l S");
    assert.deepEqual(g.rules, [{ x1: 72, y1: 92, x2: 540, y2: 92, width: 1, orientation: "h" }]);
    assert.deepEqual(g.rects, []);
  });

  test("a thin filled rectangle is a rule; a white one is nothing; a large one is a rectangle", async () => {
    const g = await drawn("0 g 72 600 468 0.5 re f 1 g 72 500 468 1 re f 0.8 g 72 300 200 100 re f");
    assert.deepEqual(g.rules.map(rounded), [
      { x1: 72, y1: 191.75, x2: 540, y2: 191.75, width: 0.5, orientation: "h" },
    ]);
    assert.deepEqual(g.rects, [{ x1: 72, y1: 392, x2: 272, y2: 492 }]);
  });

  test("a stroked rectangle is a rectangle and its four edges", async () => {
    const g = await drawn("0 G 2 w 300 300 100 50 re S");
    assert.deepEqual(g.rects, [{ x1: 300, y1: 442, x2: 400, y2: 492 }]);
    assert.deepEqual(
      g.rules.map((r) => [r.orientation, r.x1, r.y1, r.x2, r.y2, r.width]),
      [
        ["h", 300, 442, 400, 442, 2],
        ["h", 300, 492, 400, 492, 2],
        ["v", 300, 442, 300, 492, 2],
        ["v", 400, 442, 400, 492, 2],
      ],
    );
  });

  test("the CTM scales positions and line widths; save/restore scopes it", async () => {
    const g = await drawn("q 2 0 0 2 0 0 cm 0 G 1 w 36 100 m 136 100 l S Q 72 50 m 172 50 l S");
    assert.deepEqual(
      g.rules.map((r) => [r.x1, r.y1, r.x2, r.width]),
      [
        [72, 592, 272, 2],
        [72, 742, 172, 1],
      ],
    );
  });

  test("a line drawn in pieces is one rule; a real gap stays", async () => {
    const g = await drawn("0 G 72 400 m 172 400 l S 172 400 m 272 400 l S 300 400 m 400 400 l S");
    assert.deepEqual(
      g.rules.map((r) => [r.x1, r.x2]),
      [
        [72, 272],
        [300, 400],
      ],
    );
  });

  test("curves and diagonals are drawings, not rules", async () => {
    const g = await drawn("0 G 100 100 m 150 150 200 150 250 100 c S 300 100 m 400 200 l S");
    assert.equal(g.rules.length, 0);
    assert.equal(g.drawings.length, 2);
    assert.deepEqual(g.drawings[1], { x1: 300, y1: 592, x2: 400, y2: 692 });
  });

  test("an open stroked path with a slanted segment is kept as a polyline; closed shapes and rulings are not", async () => {
    const g = await drawn(
      "0 G 100 100 m 150 120 l 200 120 l 250 180 l S 300 100 m 400 100 l 400 200 l S 100 300 m 150 350 l 200 300 l h S",
    );
    assert.deepEqual(g.polylines, [
      [
        { x: 100, y: 692 },
        { x: 150, y: 672 },
        { x: 200, y: 672 },
        { x: 250, y: 612 },
      ],
    ]);
  });

  test("an image is the unit square under the CTM", async () => {
    const g = await drawn("q 100 0 0 50 72 700 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\x80\x80\x00 EI Q");
    assert.deepEqual(g.images, [{ box: { x1: 72, y1: 42, x2: 172, y2: 92 } }]);
  });

  test("a rotated page turns horizontal lines vertical", async () => {
    const g = await drawn("0 G 1 w 72 700 m 540 700 l S", { rotate: 90 });
    assert.deepEqual(g.rules, [{ x1: 700, y1: 72, x2: 700, y2: 540, width: 1, orientation: "v" }]);
  });

  test("text in render mode 3 is invisible text; the rest is counted as visible", async () => {
    const g = await drawn(
      "BT /F1 12 Tf 72 700 Td (Shown here) Tj ET BT /F1 12 Tf 3 Tr 72 650 Td (Hidden) Tj ( words) Tj ET",
    );
    assert.equal(g.visibleGlyphs, 9);
    assert.equal(g.invisibleGlyphs, 11);
    assert.equal(g.invisibleText.length, 1, "the two pieces on one line are one box");
    const [b] = g.invisibleText;
    assert.ok(Math.abs(b.x1 - 72) < 0.01 && b.x2 > 72 + 60 && b.x2 < 72 + 80, JSON.stringify(b));
    assert.ok(b.y1 < 792 - 650 && b.y2 > 792 - 650, "the box straddles the baseline");
  });

  test("text under an image painted over it (a scan over its OCR text) is invisible", async () => {
    const g = await drawn(
      "BT /F1 12 Tf 72 700 Td (Scanned words) Tj ET q 500 0 0 700 50 50 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \xff EI Q",
    );
    assert.equal(g.visibleGlyphs, 0);
    assert.equal(g.invisibleGlyphs, 12);
    assert.equal(g.images.length, 1);
  });
});

describe("pageGraphics on corpus pages", { skip: NO_CORPUS }, () => {
  test("redp5110 page 12: a grid table of 11 horizontal and 4 vertical rules", async () => {
    const g = await withDoc(corpus("pdf/sources/redp5110_sampled.pdf"), (doc) => graphicsOf(doc, 12));
    const h = g.rules.filter((r) => r.orientation === "h");
    const v = g.rules.filter((r) => r.orientation === "v");
    assert.equal(h.length, 11);
    assert.equal(v.length, 4);
    for (const r of h) assert.ok(Math.abs(r.x1 - 64.32) < 0.1 && Math.abs(r.x2 - 548.4) < 0.1);
    // The header row is set off by heavier rules.
    assert.deepEqual(
      h.map((r) => Math.round(r.width)),
      [2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      v.map((r) => Math.round(r.x1)),
      [65, 197, 276, 548],
    );
    assert.deepEqual(g.rects, []);
  });

  test("2305.03393 page 9: a LaTeX table's rules, vertical pieces per row joined, link borders left out", async () => {
    const g = await withDoc(corpus("pdf/sources/2305.03393v1-pg9.pdf"), (doc) => graphicsOf(doc, 1));
    const h = g.rules.filter((r) => r.orientation === "h");
    const v = g.rules.filter((r) => r.orientation === "v");
    assert.equal(h.length, 7);
    assert.equal(v.length, 7);
    // Five rules span the table; the one under "TEDs" spans three columns.
    assert.equal(h.filter((r) => Math.round(r.x2 - r.x1) === 334).length, 6);
    assert.equal(h.filter((r) => Math.round(r.x2 - r.x1) === 108).length, 1);
    // Two column rules start below the "TEDs" header; the others run the table's height.
    assert.deepEqual(
      v.map((r) => Math.round(r.y1)),
      [338, 338, 338, 351, 351, 338, 338],
    );
    // The page's four link annotations draw red and green boxes; they are not content.
    assert.deepEqual(g.rects, []);
    assert.equal(g.invisibleGlyphs, 0);
  });

  test("invisible_text_layer.pdf: the OCR layer is invisible and its box matches the text run", async () => {
    await withDoc(corpus("pdf/invisible_text_layer.pdf"), async (doc) => {
      const page = await doc.getPage(1);
      const transform = page.getViewport({ scale: 1 }).transform;
      const g = pageGraphics(await page.getOperatorList(), transform);
      assert.equal(g.visibleGlyphs, 18); // "Visible heading line"
      assert.equal(g.invisibleGlyphs, 21); // "Invisible OCR text layer"
      assert.equal(g.invisibleText.length, 1);
      const { runs } = await pageTextRuns(page, transform);
      const hidden = runs.find((r) => r.text === "Invisible OCR text layer");
      assert.ok(hidden);
      const b = g.invisibleText[0];
      assert.ok(Math.abs(b.x1 - hidden.box.x1) < 0.5 && Math.abs(b.x2 - hidden.box.x2) < 0.5);
      assert.ok(Math.abs(b.y1 - hidden.box.y1) < 3 && Math.abs(b.y2 - hidden.box.y2) < 3);
    });
  });

  test("amt_handbook_sample.pdf: figures are image placements, invisible spaces are not invisible text", async () => {
    const g = await withDoc(corpus("pdf/sources/amt_handbook_sample.pdf"), (doc) => graphicsOf(doc, 1));
    // Each photo is painted twice (a soft-masked shadow, then the photo): one placement each.
    assert.equal(g.images.length, 9);
    for (const { box } of g.images) assert.ok(box.x1 >= 0 && box.y1 >= 0 && box.x2 <= 612 && box.y2 <= 774);
    assert.equal(g.invisibleGlyphs, 0);
    assert.ok(g.visibleGlyphs > 2500);
  });

  test("a scanned page is one page-sized image, in the rotated page's frame", async () => {
    const g = await withDoc(corpus("ocr/sources/ocr_test_rotated_90.pdf"), (doc) => graphicsOf(doc, 1));
    assert.equal(g.images.length, 1);
    const { box } = g.images[0];
    assert.ok(Math.abs(box.x2 - 841.9) < 1 && Math.abs(box.y2 - 595.2) < 1, JSON.stringify(box));
  });
});

/** A run of `text` in the box from (x1, y1) to (x2, y2), its font size the box's height. */
const run = (text: string, x1: number, y1: number, x2: number, y2: number): TextRun =>
  textRun(text, { x1, y1, x2, y2 }, { fontSize: y2 - y1 });

describe("markStrikethrough", () => {
  test("a rule through the middle strikes; an underline, a short rule or a thick bar does not", () => {
    const runs = [
      run("struck", 100, 100, 200, 112),
      run("underlined", 100, 200, 200, 212),
      run("partly", 100, 300, 200, 312),
      run("on a bar", 100, 400, 200, 412),
      run("untouched", 300, 100, 400, 112),
    ];
    markStrikethrough(runs, [
      hRule(106.5, 98, 202, 0.6),
      hRule(211, 100, 200, 0.6),
      hRule(306, 100, 140, 0.6),
      hRule(406, 90, 210, 8),
    ]);
    assert.deepEqual(
      runs.filter((r) => r.struck).map((r) => r.text),
      ["struck"],
    );
  });

  test("on a drawn page: the struck word is marked, the underlined one is not", async () => {
    const content =
      "BT /F1 12 Tf 72 600 Td (Deleted) Tj ET 0 G 0.6 w 72 603.6 m 115 603.6 l S " +
      "BT /F1 12 Tf 200 600 Td (Underlined) Tj ET 200 598 m 262 598 l S";
    await withDoc(onePagePdf(content), async (doc) => {
      const page = await doc.getPage(1);
      const transform = page.getViewport({ scale: 1 }).transform;
      const g = pageGraphics(await page.getOperatorList(), transform);
      const { runs } = await pageTextRuns(page, transform);
      markStrikethrough(runs, g.rules);
      assert.deepEqual(
        runs.map((r) => [r.text, r.struck === true]),
        [
          ["Deleted", true],
          ["Underlined", false],
        ],
      );
    });
  });
});

test("outlines: one box per subpath of a compound path, a counter inside its letter and rectangles left out", async () => {
  // An o (outer and inner contour: curves reach 3/4 of r up and down), a second letter-like shape, and a filled rectangle, all one path.
  const ring = (x: number, r: number) =>
    `${x - r} 500 m ${x - r} ${500 + r} ${x + r} ${500 + r} ${x + r} 500 c ${x + r} ${500 - r} ${x - r} ${500 - r} ${x - r} 500 c h`;
  const g = await drawn(`0 g ${ring(100, 6)} ${ring(100, 3)} ${ring(120, 5)} 140 494 10 12 re f`);
  const boxes = g.outlines.map((o) => [o.x1, o.y1, o.x2, o.y2].map(Math.round));
  assert.deepEqual(boxes, [
    [94, 288, 106, 297],
    [115, 288, 125, 296],
  ]);
  // The path's one drawing spans both letters; the rectangle is a rectangle.
  assert.equal(g.drawings.length, 1);
  assert.equal(g.rects.length, 1);
});
