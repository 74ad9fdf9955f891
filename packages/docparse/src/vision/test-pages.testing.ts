import { createCanvas } from "@napi-rs/canvas";
import { scanPng } from "../ocr/test-support.ts";

/**
 * Pages for the vision transcription tests: a "handwritten" page Tesseract cannot read. The strokes are cursive-like
 * waves drawn from a fixed seed (no font, so nothing depends on the machine's fonts), grouped into words and lines
 * like a hand-written note; OCR reads them as a few low-confidence fragments, or nothing.
 */

/** A grayscale PNG (150 dpi, 8.5 × 5 in) of six lines of scrawl. */
export async function scrawlPage(): Promise<Buffer> {
  const dpi = 150;
  const width = Math.round(8.5 * dpi);
  const height = Math.round(5 * dpi);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, width, height);
  context.strokeStyle = "#000000";
  context.lineWidth = 3;
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let line = 0; line < 6; line++) {
    const y = 120 + line * 90;
    let x = 100;
    context.beginPath();
    context.moveTo(x, y);
    while (x < width - 150) {
      const next = x + 10 + random() * 25;
      context.bezierCurveTo(
        x + 5,
        y - 40 * random(),
        next - 5,
        y + 30 * random(),
        next,
        y - 10 + 20 * random(),
      );
      x = next;
      // A gap between words.
      if (random() < 0.12) {
        x += 25;
        context.moveTo(x, y);
      }
    }
    context.stroke();
  }
  return scanPng(canvas, dpi);
}
