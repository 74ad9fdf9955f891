import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { embeddedScan, openScanSource } from "./scan-image.ts";

test("a page that draws a JPEG gives the JPEG as stored", async () => {
  const jpeg = await sharp({ create: { width: 850, height: 1100, channels: 3, background: "#f0f0f0" } })
    .jpeg()
    .toBuffer();
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  page.drawImage(await pdf.embedJpg(jpeg), { x: 0, y: 0, width: 612, height: 792 });
  const source = await openScanSource(await pdf.save());
  assert.ok(source);
  const scan = embeddedScan(source, 0);
  assert.ok(scan);
  assert.equal(scan.kind, "jpeg");
  assert.deepEqual([scan.width, scan.height, scan.channels], [850, 1100, 3]);
  assert.deepEqual(Buffer.from(scan.data), jpeg);
});

test("a page without images gives null, and so does a file that is not a PDF", async () => {
  const pdf = await PDFDocument.create();
  pdf.addPage([612, 792]).drawText("no image here");
  const source = await openScanSource(await pdf.save());
  assert.ok(source);
  assert.equal(embeddedScan(source, 0), null);
  assert.equal(await openScanSource(new TextEncoder().encode("not a pdf at all")), null);
});

test("a scanned PDF's page image is found through its form XObject", { skip: NO_CORPUS }, async () => {
  const source = await openScanSource(
    new Uint8Array(readFileSync(corpusPath("docling/tests/data/ocr/sources/ocr_test.pdf"))),
  );
  assert.ok(source);
  const scan = embeddedScan(source, 0);
  assert.ok(scan);
  assert.equal(scan.kind, "deflated");
  assert.deepEqual([scan.width, scan.height, scan.channels], [4960, 7016, 1]);
});
