import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import type { PageRaster } from "../images/decode.ts";
import { CropQueue, linesLanguage } from "./crop-queue.ts";
import type { OcrEngine } from "./engine.ts";
import { Slots } from "./slots.ts";

/** A crop whose page number names it. */
const crop = (n: number): PageRaster => ({
  pageNumber: n,
  widthPx: 10,
  heightPx: 10,
  dpi: 200,
  widthPt: 4,
  heightPt: 4,
  png: Buffer.alloc(0),
  scale: 1,
  ocrDpi: 200,
});

test("crops of a Chinese page's own lines are read in Chinese alone, its images' crops with English too", async () => {
  const languages = new Map<number, string>();
  const engine: OcrEngine = {
    name: "fake",
    recognize: () => Promise.reject(new Error("not used")),
    async recognizeCrops(rasters, context) {
      for (const r of rasters) languages.set(r.pageNumber, context.language);
      return rasters.map((r) => ({
        pageNumber: r.pageNumber,
        width: r.widthPt,
        height: r.heightPt,
        runs: [],
        lines: [],
        rules: [],
        rotation: 0,
        skewAngle: 0,
        language: context.language,
        engine: "fake",
      }));
    },
  };
  const queue = new CropQueue(engine, { language: "chi_sim+eng", slots: new Slots(1) });
  const reads = [queue.read(crop(1), true), queue.read(crop(2)), queue.read(crop(3), true)];
  queue.close();
  await Promise.all(reads);
  assert.deepEqual([...languages.entries()].sort(), [
    [1, "chi_sim"],
    [2, "chi_sim+eng"],
    [3, "chi_sim"],
  ]);
  // A Russian page's lines keep English beside Russian: Russian data has no Latin letters.
  assert.equal(linesLanguage("rus+eng"), "rus+eng");
});

test("public: a Chinese exam's bold section line, in a font of glyph numbers, is read by OCR as it is printed", async () => {
  await assertPdfFacts("zh-exam-math-p1.pdf", [
    { present: "一、选择题：本题共 8 小题，每小题 5 分，共 40 分。" },
  ]);
});
