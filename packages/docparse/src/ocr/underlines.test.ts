import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { engineAllText, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { decodeImage } from "../images/decode.ts";
import { recognizeWithTesseract, tesseractAvailable } from "./tesseract.ts";
import { scanPng } from "./test-support.ts";

/**
 * Underlined lines are read with their underline painted out (recognize-page.ts withoutLongRules): Tesseract
 * takes an underlined line for one dark shape and reads nothing of it. On a page made for it (typed headings
 * underlined so that the rule touches the letters) and on a public typewritten letter.
 */

const NO_TESSERACT = !(await tesseractAvailable());
const DPI = 200;

const HEADINGS = ["NORTHERN RIVER WATER BOARD, INC.", "MINUTES OF THE ANNUAL MEETING"];
const BODY = [
  "The board met at the town hall on the first Monday of March to hear the",
  "reports of the treasurer and of the engineer, and to elect its officers.",
  "The engineer said that the new pumps at the lower station were working well.",
];

/**
 * A typed page in small grey type (6 pt at 200 dpi, as a reduced copy of a typed letter): each heading centred
 * and underlined through its letters' feet, then a paragraph.
 */
async function underlinedPage(): Promise<Buffer> {
  const canvas = createCanvas(Math.round(8.5 * DPI), Math.round(5 * DPI));
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#444444";
  context.font = `${(6 * DPI) / 72}px "DejaVu Sans Mono"`;
  let y = 140;
  for (const heading of HEADINGS) {
    const width = context.measureText(heading).width;
    const x = (canvas.width - width) / 2;
    context.fillText(heading, x, y);
    // The rule runs along the letters' feet, as a typewriter's underscore struck over them does.
    context.fillRect(x - 4, y, width + 8, 2);
    y += 90;
  }
  for (const line of BODY) {
    context.fillText(line, 150, y);
    y += 50;
  }
  return scanPng(canvas, DPI);
}

test("a made page: underlined typed headings are read", {
  skip: NO_TESSERACT,
  timeout: 300_000,
}, async () => {
  const [raster] = await decodeImage(await underlinedPage());
  const page = await recognizeWithTesseract(raster, { language: "eng" });
  const text = page.lines.map((line) => line.text).join("\n");
  assert.match(text, /NORTHERN RIVER WATER BOARD/, text);
  assert.match(text, /MINUTES OF THE ANNUAL MEETING/, text);
  // The underlines are still the page's rules.
  assert.ok(page.rules.filter((rule) => rule.orientation === "h").length >= 2, JSON.stringify(page.rules));
});

test("a public typewritten letter: its underlined letterhead is read", {
  skip: NO_TESSERACT,
  timeout: 600_000,
}, async () => {
  const text = await engineAllText(path.join(REAL_WORLD_DIR, "scan-sugar-foundation-letter.pdf"));
  assert.match(text, /SUGAR RESEARCH FOUNDATION/, text);
});
