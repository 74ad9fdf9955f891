import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import fontkit from "@pdf-lib/fontkit";
import type { Box } from "../model.ts";
import { box } from "../paginated/geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { DOCUMENT_PAGE_OPTIONS, extractPdfPage } from "./extract.ts";
import { closePdf, openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";
import { unreadText } from "./unread-text.ts";

// Text drawn as paths (a logo, a title converted to outlines): found from its subpaths' geometry, whatever the
// grouping of paths, and told from drawings that are not type.

/** Liberation Sans, shipped with pdfjs-dist: the glyph outlines of the made pages. */
const FONT = fontkit.create(
  readFileSync(
    createRequire(import.meta.url).resolve("pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf"),
  ),
);

interface PathCommand {
  command: string;
  args: number[];
}

/** PDF path operators (user space, origin bottom left) of `text` set at (x, y) in `size` pt, one string per glyph. */
function glyphPaths(text: string, x: number, y: number, size: number): string[] {
  const scale = size / FONT.unitsPerEm;
  const run = FONT.layout(text);
  const out: string[] = [];
  let pen = x;
  const f = (v: number) => v.toFixed(2);
  for (const [i, glyph] of run.glyphs.entries()) {
    const ops: string[] = [];
    let last = [0, 0];
    const at = (gx: number, gy: number) => `${f(pen + gx * scale)} ${f(y + gy * scale)}`;
    // The commands are at run time but not in the typings.
    for (const { command, args } of (glyph.path as unknown as { commands: PathCommand[] }).commands) {
      if (command === "moveTo") ops.push(`${at(args[0], args[1])} m`);
      else if (command === "lineTo") ops.push(`${at(args[0], args[1])} l`);
      else if (command === "bezierCurveTo") {
        ops.push(`${at(args[0], args[1])} ${at(args[2], args[3])} ${at(args[4], args[5])} c`);
      } else if (command === "quadraticCurveTo") {
        // The cubic of the quadratic: control points two thirds of the way to the quadratic's.
        const [qx, qy, ex, ey] = args;
        const c1 = [last[0] + ((qx - last[0]) * 2) / 3, last[1] + ((qy - last[1]) * 2) / 3];
        const c2 = [ex + ((qx - ex) * 2) / 3, ey + ((qy - ey) * 2) / 3];
        ops.push(`${at(c1[0], c1[1])} ${at(c2[0], c2[1])} ${at(ex, ey)} c`);
      } else if (command === "closePath") ops.push("h");
      if (args.length >= 2) last = args.slice(-2);
    }
    out.push(ops.join(" "));
    pen += run.positions[i].xAdvance * scale;
  }
  return out;
}

/** The box (model coordinates, Letter page) of `text` set at (x, y) in `size` pt: its glyphs' ink. */
function inkBox(text: string, x: number, y: number, size: number): Box {
  const b = FONT.layout(text).bbox;
  const scale = size / FONT.unitsPerEm;
  return {
    x1: x + b.minX * scale,
    y1: 792 - (y + b.maxY * scale),
    x2: x + b.maxX * scale,
    y2: 792 - (y + b.minY * scale),
  };
}

const BODY = "BT /F1 11 Tf 72 600 Td (The report follows on the pages after this cover.) Tj ET";

async function regions(content: string): Promise<Box[]> {
  const doc = await openPdf(onePagePdf(`${content}\n${BODY}`));
  try {
    return unreadText(await extractPdfPage(doc, 1, DOCUMENT_PAGE_OPTIONS)).regions;
  } finally {
    await closePdf(doc);
  }
}

/** Whether one of the regions covers most of `b`. */
function covered(found: readonly Box[], b: Box): boolean {
  return found.some((r) => box.intersection(r, b) >= box.area(b) * 0.9);
}

test("a line of type drawn as one compound path (or one path per word) is a region to read, filled or stroked", async () => {
  const line = "Harbour Industries Limited";
  const word = inkBox(line, 72, 700, 24);
  const glyphs = glyphPaths(line, 72, 700, 24);
  // One path for the whole line: its box alone is a wide drawing, not glyph-sized; its subpaths are the letters.
  const r0 = await regions(`0.1 0.2 0.5 rg ${glyphs.join(" ")} f`);
  assert.ok(covered(r0, word), JSON.stringify({ r0, word }));
  // One path per word.
  const words = glyphs.map((g, i) => (line[i] === " " ? "f " : g)).join(" ");
  assert.ok(covered(await regions(`0 g ${words} f`), word));
  // Outlines stroked, not filled.
  assert.ok(covered(await regions(`0 G 0.8 w ${glyphs.join(" ")} S`), word));
  // Small type (8 pt) as one path.
  assert.ok(
    covered(await regions(`0 g ${glyphPaths(line, 72, 500, 8).join(" ")} f`), inkBox(line, 72, 500, 8)),
  );
});

test("a white title drawn as outlines on a coloured banner is a region; the same white outlines on the bare page are not", async () => {
  const title = "Quarterly Harbour Review";
  const glyphs = glyphPaths(title, 80, 700, 22).join(" ");
  const banner = "0.1 0.3 0.6 rg 60 680 480 50 re f";
  assert.ok(covered(await regions(`${banner} 1 g ${glyphs} f`), inkBox(title, 80, 700, 22)));
  assert.deepEqual(await regions(`1 g ${glyphs} f`), []);
});

test("outlines under text-layer text (type drawn as paths and again as text) are read already", async () => {
  const line = "Harbour Industries Limited";
  const text = `BT /F1 24 Tf 72 700 Td (${line}) Tj ET`;
  assert.deepEqual(await regions(`0 g ${glyphPaths(line, 72, 700, 24).join(" ")} f ${text}`), []);
});

test("drawings that are not type are not read: chart bars, hatching, a row of markers, blobs on a wave, a short word", async () => {
  // Bars of a chart with rounded tops (curves, so no rectangles), equal widths on one baseline, as one path.
  const bars = [20, 32, 14, 40, 26, 36, 18, 30]
    .map((h, i) => {
      const x = 100 + i * 14;
      return `${x} 400 m ${x} ${400 + h} l ${x} ${402 + h} ${x + 10} ${402 + h} ${x + 10} ${400 + h} c ${x + 10} 400 l h`;
    })
    .join(" ");
  // Hatching: parallel slanted strokes, each overlapping the next.
  const hatching = Array.from({ length: 30 }, (_, i) => `${300 + i * 3} 400 m ${312 + i * 3} 412 l`).join(
    " ",
  );
  // Markers: ten circles of one size in a row.
  const markers = Array.from({ length: 10 }, (_, i) => {
    const x = 100 + i * 12;
    return `${x} 300 m ${x} 305 ${x + 8} 305 ${x + 8} 300 c ${x + 8} 295 ${x} 295 ${x} 300 c h`;
  }).join(" ");
  // Blobs of varied widths up and down a wave (a diagram's shapes, a scatter's markers): on no baseline.
  const wave = Array.from({ length: 9 }, (_, i) => {
    const x = 100 + i * 14;
    const y = 200 + (i % 2) * 4;
    const w = 6 + (i % 3) * 3;
    return `${x} ${y} m ${x} ${y + 13} ${x + w} ${y + 13} ${x + w} ${y} c ${x + w} ${y - 3} ${x} ${y - 3} ${x} ${y} c h`;
  }).join(" ");
  const found = await regions(
    `0 g ${bars} f 0 G 0.5 w ${hatching} S 0 g ${markers} f ${wave} f ${glyphPaths("Ace", 400, 300, 20).join(" ")} f`,
  );
  assert.deepEqual(found, []);
});

test("the public cover whose company name is drawn as outlines: the name, its line under it and its motto are regions", async () => {
  const bytes = readFileSync(
    new URL("../../test/real-world/reliance-annual-report-cover.pdf", import.meta.url),
  );
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const found = unreadText(await extractPdfPage(doc, 1, DOCUMENT_PAGE_OPTIONS)).regions;
    // "Reliance" (one compound path), "Industries Limited" and "Growth is Life" (a path per glyph).
    for (const b of [
      { x1: 465, y1: 83, x2: 552, y2: 104 },
      { x1: 445, y1: 114, x2: 552, y2: 122 },
      { x1: 464, y1: 132, x2: 534, y2: 140 },
    ]) {
      assert.ok(covered(found, b), JSON.stringify({ b, found }));
    }
  } finally {
    await closePdf(doc);
  }
});

test("an icon beside a label, on a docling page, is no region", { skip: NO_CORPUS }, async () => {
  const bytes = readFileSync(corpusPath("docling/tests/data", "pdf/sources/skipped_2pages.pdf"));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const found = unreadText(await extractPdfPage(doc, 3, DOCUMENT_PAGE_OPTIONS)).regions;
    assert.ok(
      !found.some((r) => box.intersection(r, { x1: 94, y1: 601, x2: 119, y2: 619 }) > 0),
      JSON.stringify(found),
    );
  } finally {
    await closePdf(doc);
  }
});

/** Each subpath of the glyphs filled as a path of its own: a letter's counter (the hole of an `o`) is a shape. */
function shapeByShape(glyphs: readonly string[]): string {
  return glyphs
    .flatMap((g) => g.split(/(?= [-\d.]+ [-\d.]+ m)/))
    .map((sub) => `${sub.trim()} f`)
    .join(" ");
}

test("a letter's counter drawn as a shape of its own opens no row that the next letters go on", async () => {
  const word = "Commonwealth";
  const found = await regions(`0 g ${shapeByShape(glyphPaths(word, 72, 700, 24))}`);
  assert.ok(
    covered(found, inkBox(word, 72, 700, 24)),
    JSON.stringify({ found, word: inkBox(word, 72, 700, 24) }),
  );
});

test("heavy type's letters touching as one shape nearly three times as wide as tall stay in their row", async () => {
  // `Co`, then `mm` drawn as one contour 2.8 times as wide as the letters are tall, then `onwealth`.
  const size = 24;
  const co = glyphPaths("Co", 72, 700, size);
  const after = 72 + FONT.layout("Comm").advanceWidth * (size / FONT.unitsPerEm);
  const left = 72 + FONT.layout("Co").advanceWidth * (size / FONT.unitsPerEm) + 1;
  const h = 0.52 * size;
  const w = 2.8 * h;
  const mm = `${left} 700 m ${left} ${700 + h} l ${left + w / 2} ${700 + h - 2} ${left + w / 2} ${700 + h - 2} ${left + w} ${700 + h} c ${left + w} 700 l ${left + w - 3} 700 l ${left + w / 2} ${700 + h - 5} ${left + w / 2} ${700 + h - 5} ${left + 3} 700 c h`;
  const rest = glyphPaths("onwealth", Math.max(after, left + w + 1), 700, size);
  const found = await regions(`0 g ${co.join(" ")} f ${mm} f ${rest.join(" ")} f`);
  const line = box.union([
    inkBox("Co", 72, 700, size),
    inkBox("onwealth", Math.max(after, left + w + 1), 700, size),
  ]);
  assert.ok(covered(found, line), JSON.stringify({ found, line }));
});

test("a drawing's faces cut from one another, each one's right side the next one's left, are no row of letters", async () => {
  // The flats of a nut drawn side by side: widths as varied as letters', a slanted top so no rectangle.
  let x = 100;
  const faces = [8, 14, 6, 12, 9, 15, 7, 11].map((w, i) => {
    const path = `${x} 400 m ${x + w} 400 l ${x + w} ${420 + (i % 2)} l ${x} ${419 + (i % 2)} l h f`;
    x += w;
    return path;
  });
  assert.deepEqual(await regions(`0.5 g ${faces.join(" ")}`), []);
});

test("public logos drawn as outlines: `Commonwealth Bank` and a masthead's `Support` are one region each", async () => {
  for (const [name, b] of [
    ["cba-home-loan-rates-p1.pdf", { x1: 684.7, y1: 551.6, x2: 800.7, y2: 561.3 }],
    ["fr-mozilla-support-webprint-p2.pdf", { x1: 48.8, y1: 45.5, x2: 119.6, y2: 62.9 }],
  ] as const) {
    const bytes = readFileSync(new URL(`../../test/real-world/${name}`, import.meta.url));
    const doc = await openPdf(new Uint8Array(bytes));
    try {
      const found = unreadText(await extractPdfPage(doc, 1, DOCUMENT_PAGE_OPTIONS)).regions;
      assert.ok(covered(found, b), JSON.stringify({ name, b, found }));
    } finally {
      await closePdf(doc);
    }
  }
});

test("a handbook's drawings of nuts, their faces side by side, are no region", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = readFileSync(corpusPath("docling/tests/data", "pdf/sources/amt_handbook_sample.pdf"));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const found = unreadText(await extractPdfPage(doc, 1, DOCUMENT_PAGE_OPTIONS)).regions;
    assert.deepEqual(found, []);
  } finally {
    await closePdf(doc);
  }
});
