import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { PDFDocument, StandardFonts, setTextRenderingMode, TextRenderingMode } from "pdf-lib";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { wellFormed, withLayerWords } from "./layer-words.ts";
import { tesseractAvailable } from "./tesseract.ts";

/**
 * A scan's invisible OCR layer as a second reading (layer-words.ts): on pages made for it (a scan drawn here with
 * a layer written under it) and on a public patent scan whose layer reads `U.S.` where ours reads `US.`.
 */

const NO_TESSERACT = !(await tesseractAvailable());
const DPI = 200;

/** Lines of the made scan: `Amalgamated` read clearly three times, and once drawn `Amalgarnated` (rn for m). */
const LINES = [
  "The Amalgamated Company wrote to the board on Monday",
  "about the new contract, and the Amalgamated office sent",
  "a copy of the letter to every member of the committee.",
  "The board thanked the Amalgamated Company for the offer",
  "and asked the Amalgarnated office for the signed contract.",
];

/**
 * A one-page PDF: the lines drawn into a 200 dpi image covering the page, and under it an invisible text layer
 * of `layerLines` (one text run per word, placed over the word drawn).
 */
async function scanWithLayer(layerLines: readonly string[], letterSpaced = false): Promise<Uint8Array> {
  const widthPt = 612;
  const heightPt = 360;
  const scale = DPI / 72;
  const canvas = createCanvas(Math.round(widthPt * scale), Math.round(heightPt * scale));
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  const fontPt = 14;
  context.font = `${fontPt * scale}px "DejaVu Serif"`;
  const doc = await PDFDocument.create();
  const page = doc.addPage([widthPt, heightPt]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const placed: { text: string; x: number; baseline: number; width: number }[] = [];
  LINES.forEach((line, i) => {
    const baseline = 60 + i * 28;
    context.fillText(line, 54 * scale, baseline * scale);
    const layerWords = layerLines[i].split(" ");
    const drawnWords = line.split(" ");
    let x = 54;
    drawnWords.forEach((word, j) => {
      const width = context.measureText(word).width / scale;
      placed.push({ text: layerWords[j], x, baseline, width });
      x += width + context.measureText(" ").width / scale;
    });
  });
  const image = await doc.embedPng(canvas.toBuffer("image/png"));
  page.pushOperators(setTextRenderingMode(TextRenderingMode.Invisible));
  for (const word of placed) {
    const text = letterSpaced ? [...word.text].join(" ") : word.text;
    const size = (fontPt * word.width) / (font.widthOfTextAtSize(text, fontPt) || 1);
    page.drawText(text, { x: word.x, y: heightPt - word.baseline, size: Math.min(size, fontPt * 1.5), font });
  }
  page.drawImage(image, { x: 0, y: 0, width: widthPt, height: heightPt });
  return doc.save();
}

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  return result.markdown;
}

const RIGHT_LAYER = LINES.map((line) => line.replace("Amalgarnated", "Amalgamated"));

test("a made scan: the layer's word is taken where ours is a misreading and the layer's a word of the page", {
  skip: NO_TESSERACT,
  timeout: 300_000,
}, async () => {
  // The layer also misreads a word (`Tbe`) that our OCR reads as the page's word: ours stays.
  const layer = RIGHT_LAYER.map((line, i) => (i === 3 ? line.replace("The", "Tbe") : line));
  const markdown = await markdownOf(await scanWithLayer(layer));
  assert.match(markdown, /asked the Amalgamated office/, markdown);
  assert.doesNotMatch(markdown, /Amalgarnated|Tbe/, markdown);
});

test("a made scan: a layer spelling words letter by letter is not taken", {
  skip: NO_TESSERACT,
  timeout: 300_000,
}, async () => {
  const markdown = await markdownOf(await scanWithLayer(RIGHT_LAYER, true));
  assert.match(markdown, /asked the Amalgarnated office/, markdown);
});

test("a public patent scan: its layer's `U.S.` is taken for our `US.`, its dropped hyphens are not", {
  skip: NO_TESSERACT,
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "patent-pet-display-p3.pdf"));
  const words = ` ${plainWords(markdown).join(" ")} `;
  assert.ok(words.includes(" u s pat no 3 859 961 issued 1975 to willinger "), markdown);
  assert.doesNotMatch(markdown, /\bUS\. Pat/, markdown);
  // The layer capitalises words our OCR reads in lower case (`Small`, `Such`): case differences stay ours.
  assert.doesNotMatch(markdown, /\b(Small|Such) (dogs|as)/, markdown);
});

function run(text: string, x1: number, y1: number, confidence = 0.95): TextRun {
  const width = [...text].length * 6;
  return {
    text,
    box: { x1, y1, x2: x1 + width, y2: y1 + 10 },
    fontName: "ocr",
    fontSize: 10,
    bold: false,
    italic: false,
    dir: "ltr",
    confidence,
  };
}

/** Our words and the layer's on 24 lines of the same three words, with `line` of ours replaced. */
function pageOf(ours: (i: number) => string[], layer: (i: number) => string[]) {
  const place = (words: string[], i: number) => {
    let x = 10;
    return words.map((w) => {
      const r = run(w, x, 20 + i * 14);
      x += r.box.x2 - r.box.x1 + 6;
      return r;
    });
  };
  const lines = Array.from({ length: 24 }, (_, i) => i);
  return {
    ours: lines.flatMap((i) => place(ours(i), i)),
    layer: lines.flatMap((i) => place(layer(i), i)),
  };
}

test("withLayerWords: decisions word by word", () => {
  const words = ["the", "passage", "runs"];
  // Ours misreads `passage` once as `passagc`: a word of the page in the layer, so the layer's is taken.
  let { ours, layer } = pageOf(
    (i) => (i === 5 ? ["the", "passagc", "runs"] : words),
    () => words,
  );
  let merged = withLayerWords(ours, layer);
  assert.equal(merged.runs.filter((r) => r.text === "passagc").length, 0);
  assert.deepEqual(
    merged.stats.taken.map((t) => [t.ours, t.layer, t.reason]),
    [["passagc", "passage", "vocabulary"]],
  );
  // A line-end hyphen the layer dropped, and a case difference, stay ours.
  ({ ours, layer } = pageOf(
    (i) => (i === 5 ? ["the", "passage-", "runs"] : words),
    (i) => (i === 6 ? ["The", "passage", "runs"] : words),
  ));
  merged = withLayerWords(ours, layer);
  assert.equal(merged.stats.taken.length, 0);
  assert.equal(merged.runs.filter((r) => r.text === "passage-").length, 1);
  // A layer agreeing with under 60% of our words is garbage: nothing of it is taken.
  ({ ours, layer } = pageOf(
    (i) => (i === 5 ? ["the", "passagc", "runs"] : words),
    (i) => (i % 3 === 0 ? words : ["tbe", "passage", "rnns"]),
  ));
  merged = withLayerWords(ours, layer);
  assert.equal(merged.stats.trusted, false);
  assert.equal(merged.runs.filter((r) => r.text === "passagc").length, 1);
});

test("withLayerWords: a low-confidence misshapen word of ours yields to a well-formed layer word", () => {
  const words = ["north", "river", "bank"];
  const { ours, layer } = pageOf(
    () => words,
    (i) => (i === 3 ? ["north", "rover", "bank"] : words),
  );
  ours[3 * 3 + 1] = { ...ours[3 * 3 + 1], text: "r0ver", confidence: 0.5 };
  const merged = withLayerWords(ours, layer);
  assert.equal(merged.runs[3 * 3 + 1].text, "rover");
  assert.equal(merged.stats.taken[0].reason, "confidence");
  // The same misreading read confidently stays.
  ours[3 * 3 + 1] = { ...ours[3 * 3 + 1], confidence: 0.95 };
  assert.equal(withLayerWords(ours, layer).runs[3 * 3 + 1].text, "r0ver");
});

test("wellFormed: words and numbers, not letters mixed with digits", () => {
  for (const word of ["river", "River,", "RIVER", "U.S.", "(1995)", "5,176,102", "well-formed"])
    assert.ok(wellFormed(word), word);
  for (const word of ["r0ver", "pasSage", "aB", "#$%", ""]) assert.ok(!wellFormed(word), word);
});
