import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import type { TextRun } from "./geometry.ts";
import { buildLines } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

const OCR = { fontName: "ocr", fontSize: 14 };

/** Runs side by side from x = 50, each given its text and height (top at y = 100), 4 points apart. */
function row(words: [string, number][], options: Partial<TextRun>): TextRun[] {
  let x = 50;
  return words.map(([text, height]) => {
    const b: Box = { x1: x, y1: 100, x2: x + Math.max(2, text.length * 5), y2: 100 + height };
    x = b.x2 + 4;
    return textRun(text, b, options);
  });
}

const text = (runs: TextRun[]) => buildLines(runs).map((line) => line.text);

test("a bar OCR reads alone between two words, no taller than they are, is a capital I", () => {
  assert.deepEqual(
    text(
      row(
        [
          ["May", 12],
          ["|", 11],
          ["Use", 11],
        ],
        OCR,
      ),
    ),
    ["May I Use"],
  );
});

test("a bar taller than the words beside it (a form's rule), at a line's end, or in a text layer stays a bar", () => {
  assert.deepEqual(
    text(
      row(
        [
          ["Yes", 11],
          ["|", 30],
          ["No", 11],
        ],
        OCR,
      ),
    ),
    ["Yes | No"],
  );
  assert.deepEqual(
    text(
      row(
        [
          ["total", 11],
          ["|", 11],
        ],
        OCR,
      ),
    ),
    ["total |"],
  );
  assert.deepEqual(
    text(
      row(
        [
          ["May", 12],
          ["|", 11],
          ["Use", 11],
        ],
        { fontSize: 10 },
      ),
    ),
    ["May | Use"],
  );
});

test("the scanned Schedule SE asks May I Use Short Schedule SE", { timeout: 300_000 }, async () => {
  const bytes = readFileSync(new URL("../../test/real-world/scan-schedule-se-2011.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes: new Uint8Array(bytes), mimeType: "application/pdf" });
  assert.match(result.markdown, /May I Use Short Schedule SE or Must I Use Long Schedule SE\?/);
});
