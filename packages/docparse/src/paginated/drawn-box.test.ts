import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { type ParseOptions, parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { drawnBoxAround } from "./drawn-box.ts";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";
import type { Rule } from "./geometry.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));
const IGNORE_FURNITURE: ParseOptions = {
  parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] },
};

const h = (y: number, x1: number, x2: number): Rule => ({
  x1,
  y1: y,
  x2,
  y2: y,
  width: 0.5,
  orientation: "h",
});
const v = (x: number, y1: number, y2: number): Rule => ({
  x1: x,
  y1,
  x2: x,
  y2,
  width: 0.5,
  orientation: "v",
});

/** A stroked rectangle's four sides. */
const frame = (b: Box): Rule[] => [
  h(b.y1, b.x1, b.x2),
  h(b.y2, b.x1, b.x2),
  v(b.x1, b.y1, b.y2),
  v(b.x2, b.y1, b.y2),
];

test("drawnBoxAround: the smallest frame of rules closing around a block, or a filled rectangle holding it", () => {
  const label = { x1: 250, y1: 40, x2: 330, y2: 48 };
  const field = { x1: 240, y1: 30, x2: 550, y2: 95 };
  assert.deepEqual(drawnBoxAround(label, frame(field), []), field);
  // A grid's lines run on past the cell: the cell is still the box.
  const grid = [
    h(30, 40, 550),
    h(60, 40, 550),
    h(95, 40, 550),
    v(240, 30, 95),
    v(550, 30, 95),
    v(40, 30, 95),
  ];
  assert.deepEqual(drawnBoxAround(label, grid, []), { x1: 240, y1: 30, x2: 550, y2: 60 });
  // A frame open on its right, or rules that do not meet, are no box.
  assert.equal(drawnBoxAround(label, frame(field).slice(0, 3), []), null);
  assert.equal(
    drawnBoxAround(label, [h(30, 240, 550), h(95, 240, 550), v(240, 30, 95), v(550, 70, 95)], []),
    null,
  );
  // A shaded rectangle holds it; the smaller of a frame and a rectangle wins.
  const shade = { x1: 245, y1: 35, x2: 400, y2: 55 };
  assert.deepEqual(drawnBoxAround(label, [], [shade]), shade);
  assert.deepEqual(drawnBoxAround(label, frame(field), [shade]), shade);
});

function candidate(text: string, box: Box, options: Partial<FurnitureCandidate> = {}): FurnitureCandidate {
  return {
    page: 1,
    pageSize: { width: 595, height: 842 },
    box,
    text,
    fontSize: 10,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

test("a short label at the page's top edge is content when its drawn box also holds text below the margin", () => {
  const body = candidate("A paragraph of the page's body, long enough to be nothing else.", {
    x1: 40,
    y1: 300,
    x2: 550,
    y2: 340,
  });
  const label = { x1: 250, y1: 40, x2: 330, y2: 48 };
  const field = { x1: 240, y1: 30, x2: 550, y2: 95 };
  const page = (drawnBox: Box | null, belowText: Box) => [
    candidate("Name and surname", label, { edge: "top", drawnBox }),
    candidate("Class 5 B", belowText, { drawnBox }),
    body,
  ];
  assert.equal(detectFurniture(page(field, { x1: 250, y1: 78, x2: 300, y2: 88 }), 10, 1).has(0), false);
  // No box: a short label at the top edge is a running head, as before.
  assert.equal(
    detectFurniture(page(null, { x1: 250, y1: 78, x2: 300, y2: 88 }), 10, 1).get(0),
    "page_header",
  );
  // A bar whose text all stays in the top margin is a running head's.
  const bar = { x1: 240, y1: 30, x2: 550, y2: 62 };
  assert.equal(detectFurniture(page(bar, { x1: 400, y1: 40, x2: 450, y2: 48 }), 10, 1).get(0), "page_header");
  // A frame around the whole page is no form's box.
  const border = { x1: 20, y1: 20, x2: 575, y2: 822 };
  assert.equal(
    detectFurniture(page(border, { x1: 250, y1: 78, x2: 300, y2: 88 }), 10, 1).get(0),
    "page_header",
  );
});

test("a short label at the page's top edge is content when a cell beside its own holds text below the margin", () => {
  const body = candidate("A paragraph of the page's body, long enough to be nothing else.", {
    x1: 40,
    y1: 300,
    x2: 550,
    y2: 340,
  });
  // A title block's grid: the number cell at the top edge, the document and revision cells stacked under it.
  const numberCell = { x1: 400, y1: 30, x2: 560, y2: 58 };
  const documentCell = { x1: 400, y1: 58, x2: 560, y2: 86 };
  const page = (under: Box) => [
    candidate(
      "Sheet no. AB-0000034000",
      { x1: 405, y1: 40, x2: 540, y2: 50 },
      { edge: "top", drawnBox: numberCell },
    ),
    candidate("Document CSW-0034", { x1: 405, y1: 70, x2: 520, y2: 80 }, { drawnBox: under }),
    body,
  ];
  assert.equal(detectFurniture(page(documentCell), 10, 1).has(0), false);
  // A box apart from the number's cell (not sharing a side with it) leaves the number a running head.
  assert.equal(detectFurniture(page({ x1: 400, y1: 64, x2: 560, y2: 90 }), 10, 1).get(0), "page_header");
});

/** A test's first page: a title box and a name box at the top, questions, a score box at the foot. */
async function testPage(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const line = (text: string, x: number, top: number, f = font, size = 10) =>
    page.drawText(text, { x, y: 842 - top - size, size, font: f });
  const box = (x1: number, top: number, x2: number, bottom: number) =>
    page.drawRectangle({
      x: x1,
      y: 842 - bottom,
      width: x2 - x1,
      height: bottom - top,
      borderColor: rgb(0, 0, 0),
      borderWidth: 0.5,
    });
  box(40, 30, 230, 95);
  line("CHEMISTRY TEST", 60, 42, bold, 11);
  line("Third year, 12 March", 60, 70);
  box(240, 30, 555, 95);
  line("Name and surname", 250, 38);
  line("Class 3 B", 250, 76);
  const questions = [
    "1. Which of these elements is a noble gas? a helium; b sodium; c iron; d carbon.",
    "2. Balance the equation for the burning of methane and name its products.",
    "3. Explain why ice floats on water, using the idea of density in your answer.",
    "4. How many moles of water are there in 36 grams of water? Show your working.",
  ];
  for (const [i, q] of questions.entries()) line(q, 40, 140 + i * 60);
  box(330, 740, 555, 810);
  line("SCORE", 500, 748, bold);
  line("Total points", 340, 784, bold);
  line("/10 + 2 =", 450, 784);
  return doc.save();
}

test("a made test page: labels in its boxes at the page's top and foot stay when furniture is ignored", async () => {
  const { result } = await parseDocument({
    bytes: await testPage(),
    mimeType: "application/pdf",
    options: IGNORE_FURNITURE,
  });
  assert.match(result.markdown, /Name and surname/);
  assert.match(result.markdown, /\/10 \+ 2 =/);
  assert.match(result.markdown, /noble gas/);
});

test("public: the Italian test's name field and score box stay when furniture is ignored", async () => {
  const { result } = await parseDocument({
    bytes: readFileSync(`${REAL_WORLD}it-verifica-math-test.pdf`),
    mimeType: "application/pdf",
    options: IGNORE_FURNITURE,
  });
  assert.match(result.markdown, /Cognome e nome/);
  assert.match(result.markdown, /\/10 \+ 2 =/);
});
