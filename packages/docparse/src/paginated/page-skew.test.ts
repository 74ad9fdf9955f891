import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { PDFDocument } from "pdf-lib";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { decodeImage } from "../images/decode.ts";
import { parseDocument } from "../index.ts";
import { measureSkew, rotateKeepingSize } from "../ocr/deskew.ts";
import { recognizePage } from "../ocr/recognize-page.ts";
import { renderTextPage } from "../ocr/test-support.ts";
import type { WordReader } from "../ocr/word-reader.ts";
import { pageSkew } from "./page-skew.ts";

/** A scanned page without a text layer: the clean page's image turned by `degrees`, filling a letter page. */
async function skewedScan(degrees: number): Promise<{ bytes: Uint8Array; text: string }> {
  const page = await renderTextPage({ dpi: 200, fontPt: 11 });
  const png = await rotateKeepingSize(page.png, degrees);
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(png);
  pdf.addPage([612, 792]).drawImage(image, { x: 0, y: 0, width: 612, height: 792 });
  return { bytes: await pdf.save(), text: page.text };
}

test("a page turned by two degrees is noticeably skewed, a straight one is not", {
  timeout: 120_000,
}, async () => {
  const straight = await renderTextPage({ dpi: 150, fontPt: 11 });
  assert.deepEqual(await pageSkew(straight.png), { degrees: 0, noticeable: false });
  assert.deepEqual(await pageSkew(await rotateKeepingSize(straight.png, 2)), {
    degrees: 2,
    noticeable: true,
  });
  assert.equal((await pageSkew(await rotateKeepingSize(straight.png, 0.4))).noticeable, false);
});

test("the skew measured for the page is the one the OCR straightens by, not measured again", {
  timeout: 120_000,
}, async () => {
  const straight = await renderTextPage({ dpi: 150, fontPt: 11 });
  const [raster] = await decodeImage(straight.png);
  // A reader that reads nothing and keeps the image it was given, so that the test needs no OCR program.
  const seen: Buffer[] = [];
  const reader: WordReader = {
    name: async () => "keeps images",
    readWords: async (png) => {
      seen.push(png);
      return { words: [], lines: [] };
    },
  };
  // A straight page handed on as skewed by 2 degrees is turned by them: the angle given is the one used.
  const page = await recognizePage(raster, reader, {
    deskew: true,
    skewDegrees: 2,
    language: "eng",
    detectOrientation: false,
  });
  assert.equal(page.skewAngle, 2);
  assert.ok(seen.length > 0);
  assert.ok(Math.abs((await measureSkew(seen[0])) + 2) < 0.2, String(await measureSkew(seen[0])));
});

test("a scan skewed by two degrees reads its lines whole without skew_detection", {
  timeout: 600_000,
}, async () => {
  const { bytes } = await skewedScan(2);
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  const flat = result.markdown.replace(/\s+/g, " ");
  assert.match(
    flat,
    /the treasurer explained that spending on printed books had fallen for the third year in a row/,
    flat,
  );
  assert.match(flat, /The director agreed to prepare two proposals before the next meeting/, flat);
});

test("a public skewed scan reads its title and bullets whole", { timeout: 600_000 }, async () => {
  const markdown = (await engineMarkdown(path.join(REAL_WORLD_DIR, "scan-linn-skewed.pdf"))).replace(
    /\s+/g,
    " ",
  );
  assert.match(markdown, /32 Track MIDI Sequence Recorder/, markdown);
  assert.match(markdown, /Exclusive real-time ERASE function makes editing FAST/, markdown);
});
