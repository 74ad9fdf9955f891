import type { TextRun } from "./geometry.ts";

/**
 * OCR reads a capital I set alone (the pronoun, `May I Use`) as a vertical bar when its font has no serifs or the
 * scan is coarse. A bar OCR gives as a word of its own between two words, no taller than they are, is that I: a
 * ruling line a form draws between words runs taller than its text, and stays a bar.
 */
export function ocrBarText(runs: readonly TextRun[], index: number): string {
  const run = runs[index];
  if (run.fontName !== "ocr" || run.text !== "|") return run.text;
  const before = runs[index - 1];
  const after = runs[index + 1];
  if (!before || !after || before.fontName !== "ocr" || after.fontName !== "ocr") return run.text;
  if (!/\p{L}$/u.test(before.text) || !/^\p{L}/u.test(after.text)) return run.text;
  const height = (r: TextRun) => r.box.y2 - r.box.y1;
  return height(run) <= Math.max(height(before), height(after)) * 1.25 ? "I" : run.text;
}
