import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { pageGeometry, textRun } from "../paginated/test-geometry.ts";
import { garbledRun, ocrCrops, unreadText, withOcrWords } from "./unread-text.ts";

const word = (text: string, b: Box, confidence = 0.9) => textRun(text, b, { fontName: "ocr", confidence });

test("a run of private-use or replacement characters is garbled; ordinary text and a lone symbol are not", () => {
  assert.equal(garbledRun(textRun("\uE001\uE002\uE003", { x1: 0, y1: 0, x2: 30, y2: 10 })), true);
  assert.equal(garbledRun(textRun("\uFFFD\uFFFD\uFFFDa", { x1: 0, y1: 0, x2: 30, y2: 10 })), true);
  assert.equal(garbledRun(textRun("Harbour", { x1: 0, y1: 0, x2: 30, y2: 10 })), false);
  assert.equal(garbledRun(textRun("\uE001", { x1: 0, y1: 0, x2: 30, y2: 10 })), false);
});

test("a garbled run's region reaches along its line over the unmapped rest of its word, not over readable text", () => {
  // pdf.js split the word where a glyph id became a space: a garbled run, a gap, a lone unmapped glyph.
  const head = textRun("\uFFFD".repeat(12), { x1: 72, y1: 84, x2: 362, y2: 119 }, { unmapped: true });
  const tail = textRun("\uFFFD", { x1: 407, y1: 84, x2: 432, y2: 119 }, { unmapped: true });
  const after = textRun("Ferry", { x1: 470, y1: 90, x2: 520, y2: 115 });
  const unread = unreadText(pageGeometry({ runs: [head, tail, after] }));
  assert.deepEqual([...unread.garbled], [head, tail]);
  const reach = {
    x1: Math.min(...unread.regions.map((r) => r.x1)),
    x2: Math.max(...unread.regions.map((r) => r.x2)),
  };
  assert.ok(reach.x1 < 72 && reach.x2 === 470, JSON.stringify(unread.regions));
  // A lone unmapped glyph with no garbled run near it (a bullet of a symbol font) is left alone.
  const bullet = textRun("\uFFFD", { x1: 72, y1: 300, x2: 78, y2: 310 }, { unmapped: true });
  assert.deepEqual(unreadText(pageGeometry({ runs: [bullet, after] })).regions, []);
});

test("glyph outlines in a row are a region; a lone shape, or one under text, is not", () => {
  const glyphs = [0, 1, 2, 3, 4, 5].map((i) => ({
    x1: 100 + i * 9,
    y1: 100,
    x2: 105 + (i % 3) + i * 9,
    y2: 112,
  }));
  const lone = { x1: 300, y1: 300, x2: 310, y2: 310 };
  const page = pageGeometry({
    runs: [textRun("Label", { x1: 400, y1: 400, x2: 430, y2: 410 })],
    outlines: [...glyphs, lone, { x1: 402, y1: 400, x2: 410, y2: 410 }],
  });
  const { regions } = unreadText(page);
  assert.equal(regions.length, 1);
  assert.ok(regions[0].x1 <= 100 && regions[0].x2 >= 152 && regions[0].y1 <= 100 && regions[0].y2 >= 112);
});

test("rows of text found in images are regions, on sparse and dense pages, unless text-layer text lies on them", () => {
  const row = { x1: 60, y1: 60, x2: 300, y2: 90 };
  const labelled = { x1: 60, y1: 200, x2: 300, y2: 230 };
  const label = textRun("Caption on the picture", { x1: 100, y1: 210, x2: 280, y2: 222 });
  const body = Array.from({ length: 10 }, (_, i) =>
    textRun("x".repeat(40), { x1: 50, y1: 400 + i * 12, x2: 500, y2: 410 + i * 12 }),
  );
  const image = { box: { x1: 50, y1: 50, x2: 550, y2: 300 } };
  for (const runs of [[label], [label, ...body]]) {
    const page = pageGeometry({ runs, images: [image], imageText: [row, labelled] });
    assert.deepEqual(unreadText(page).regions, [{ x1: 58, y1: 58, x2: 302, y2: 92 }]);
  }
  // An image in which no row of text was seen is not read, however sparse the page.
  assert.deepEqual(unreadText(pageGeometry({ runs: [label], images: [image], imageText: [] })).regions, []);
});

test("withOcrWords adds confident words inside the regions that cover no text-layer run, and drops garbled runs", () => {
  const kept = textRun("Ferry", { x1: 100, y1: 300, x2: 140, y2: 312 });
  const garbled = textRun("\uE001\uE002\uE003", { x1: 100, y1: 400, x2: 140, y2: 412 });
  const page = pageGeometry({
    runs: [kept, garbled],
    images: [{ box: { x1: 0, y1: 0, x2: 600, y2: 120 } }],
    imageText: [{ x1: 40, y1: 40, x2: 300, y2: 90 }],
  });
  const unread = unreadText(page);
  const words = [
    word("Quarterly", { x1: 50, y1: 50, x2: 150, y2: 80 }),
    word("~~", { x1: 160, y1: 50, x2: 170, y2: 80 }),
    word("Results", { x1: 200, y1: 50, x2: 280, y2: 80 }, 0.2),
    word("Ferry", { x1: 101, y1: 300, x2: 139, y2: 312 }),
    word("Tides", { x1: 100, y1: 401, x2: 140, y2: 412 }),
  ];
  const runs = withOcrWords(page, unread, words).runs.map((run) => run.text);
  assert.deepEqual(runs.sort(), ["Ferry", "Quarterly", "Tides"]);
});

test("ocrCrops: regions with a margin, kept on the page, overlapping ones merged", () => {
  const page = pageGeometry({});
  const crops = ocrCrops(
    {
      regions: [
        { x1: 2, y1: 2, x2: 100, y2: 40 },
        { x1: 90, y1: 10, x2: 200, y2: 40 },
        { x1: 300, y1: 300, x2: 400, y2: 320 },
      ],
      garbled: new Set(),
    },
    page,
  );
  assert.deepEqual(crops, [
    { x1: 0, y1: 0, x2: 206, y2: 46 },
    { x1: 294, y1: 294, x2: 406, y2: 326 },
  ]);
});

test("withOcrWords drops a short word read with little confidence alone on its line, and keeps short words of type", () => {
  const page = pageGeometry({
    runs: [],
    images: [{ box: { x1: 0, y1: 0, x2: 600, y2: 200 } }],
    imageText: [{ x1: 10, y1: 10, x2: 590, y2: 190 }],
  });
  const unread = unreadText(page);
  const words = [
    // A logo's name and its line of small capitals, read with confidence.
    word("Harbour", { x1: 100, y1: 20, x2: 300, y2: 60 }, 0.85),
    word("PORT", { x1: 100, y1: 64, x2: 130, y2: 70 }, 0.95),
    word("AUTHORITY", { x1: 134, y1: 64, x2: 190, y2: 70 }, 0.95),
    // Shapes of the mascot beside it, read as a word and a digit with little confidence, alone on their lines.
    word("as", { x1: 40, y1: 50, x2: 52, y2: 60 }, 0.63),
    word("4", { x1: 40, y1: 15, x2: 50, y2: 28 }, 0.7),
    // A banner's short word read with confidence, alone; a short word of little confidence beside another.
    word("IT", { x1: 400, y1: 20, x2: 440, y2: 60 }, 0.9),
    word("NO", { x1: 100, y1: 120, x2: 130, y2: 140 }, 0.6),
    word("ENTRY", { x1: 140, y1: 120, x2: 230, y2: 140 }, 0.9),
  ];
  const runs = withOcrWords(page, unread, words).runs.map((run) => run.text);
  assert.deepEqual(runs.sort(), ["AUTHORITY", "ENTRY", "Harbour", "IT", "NO", "PORT"]);
});

test("the OpenSSF slide's logo mascot gives no stray word", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/openssf-roadmap-slide.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  assert.doesNotMatch(result.markdown, /^as$/m);
  assert.match(result.markdown, /OPEN SOURCE SECURITY FOUNDATION/);
});
