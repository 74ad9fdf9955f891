import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { TextRun } from "./geometry.ts";
import { buildLines } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

// OCR gives words, each its own run, sized by its line's height (ascenders to descenders, about 1.4 em): a tight
// word space of a scan falls under the gap that spaces a text layer's runs, and the words ran together.

/** Words laid out from (x, y), `gap` points apart, half of `em` per character, `height` tall. */
function words(texts: string[], gap: number, options: Partial<TextRun>, em = 10, height = 14): TextRun[] {
  let x = 50;
  return texts.map((text) => {
    const run = textRun(text, { x1: x, y1: 100, x2: x + text.length * em * 0.5, y2: 100 + height }, options);
    x = run.box.x2 + gap;
    return run;
  });
}

const text = (runs: TextRun[]) => buildLines(runs).map((line) => line.text);

test("words OCR told apart keep a space however close they stand", () => {
  const ocr = { fontName: "ocr", fontSize: 14 };
  assert.deepEqual(text(words(["You", "may", "use", "Short", "Schedule"], 1.5, ocr)), [
    "You may use Short Schedule",
  ]);
  // A text layer's runs that close are pieces of one word (kerned glyphs), as before.
  assert.deepEqual(text(words(["Sch", "edule"], 1.5, { fontSize: 14 })), ["Schedule"]);
});

test("a word OCR read beside a text-layer run is a word of its own, even where the two touch or overlap", () => {
  // A title's last word of the text layer runs over the edge of a banner image whose own word OCR read.
  const title = textRun("Directorate", { x1: 50, y1: 100, x2: 130, y2: 114 }, { fontSize: 14 });
  const banner = textRun("IT", { x1: 128, y1: 99, x2: 142, y2: 115 }, { fontName: "ocr", fontSize: 16 });
  assert.deepEqual(text([title, banner]), ["Directorate IT"]);
  assert.deepEqual(text([banner, { ...title, box: { x1: 141, y1: 100, x2: 221, y2: 114 } }]), [
    "IT Directorate",
  ]);
});

test("Chinese words OCR split stay joined without a space", () => {
  assert.deepEqual(text(words(["土地", "利用"], 1.5, { fontName: "ocr", fontSize: 14 })), ["土地利用"]);
});

test("the scanned Schedule SE reads its tightly spaced words apart", { timeout: 300_000 }, async () => {
  const bytes = readFileSync(new URL("../../test/real-world/scan-schedule-se-2011.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes: new Uint8Array(bytes), mimeType: "application/pdf" });
  assert.match(result.markdown, /You may use Short Schedule SE below/);
  assert.doesNotMatch(result.markdown, /ShortSchedule/);
});
