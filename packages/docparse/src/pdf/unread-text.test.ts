import assert from "node:assert/strict";
import { test } from "node:test";
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

test("glyph outlines in a row are a region; a lone shape, or one under text, is not", () => {
  const glyphs = [0, 1, 2, 3, 4, 5].map((i) => ({ x1: 100 + i * 9, y1: 100, x2: 107 + i * 9, y2: 112 }));
  const lone = { x1: 300, y1: 300, x2: 310, y2: 310 };
  const page = pageGeometry({
    runs: [textRun("Label", { x1: 400, y1: 400, x2: 430, y2: 410 })],
    drawings: [...glyphs, lone, { x1: 402, y1: 400, x2: 410, y2: 410 }],
  });
  const { regions } = unreadText(page);
  assert.equal(regions.length, 1);
  assert.ok(regions[0].x1 <= 100 && regions[0].x2 >= 152 && regions[0].y1 <= 100 && regions[0].y2 >= 112);
});

test("images are read only on a sparse page, and only where no text-layer text lies on them", () => {
  const image = { box: { x1: 50, y1: 50, x2: 550, y2: 150 } };
  const labelled = { box: { x1: 50, y1: 200, x2: 550, y2: 300 } };
  const label = textRun("Caption on the picture", { x1: 100, y1: 240, x2: 300, y2: 252 });
  const sparse = pageGeometry({ runs: [label], images: [image, labelled] });
  assert.deepEqual(unreadText(sparse).regions, [image.box]);
  const dense = pageGeometry({
    runs: [
      label,
      ...Array.from({ length: 10 }, (_, i) =>
        textRun("x".repeat(40), { x1: 50, y1: 400 + i * 12, x2: 500, y2: 410 + i * 12 }),
      ),
    ],
    images: [image],
  });
  assert.deepEqual(unreadText(dense).regions, []);
});

test("withOcrWords adds confident words inside the regions that cover no text-layer run, and drops garbled runs", () => {
  const kept = textRun("Ferry", { x1: 100, y1: 300, x2: 140, y2: 312 });
  const garbled = textRun("\uE001\uE002\uE003", { x1: 100, y1: 400, x2: 140, y2: 412 });
  const page = pageGeometry({ runs: [kept, garbled], images: [{ box: { x1: 0, y1: 0, x2: 600, y2: 120 } }] });
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
