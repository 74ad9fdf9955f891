import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { prepareZXingModule, type WriteInputBarcodeFormat, writeBarcode } from "zxing-wasm/writer";
import type { Box } from "../model.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { type DetectedBarcode, detectBarcodes, type Raster } from "./detect.ts";

/** Scans in the shared corpus; only called by tests that skip without it. */
const qrBill = () => corpusPath("docling/tests/data/ocr/sources/qr_bill_example.jpg");
const newspaper = () => corpusPath("docling/tests/data/ocr/sources/old_newspaper.png");

async function decode(path: string, channels: 1 | 3 | 4): Promise<Raster> {
  let image = sharp(path);
  if (channels === 1) image = image.grayscale();
  image = channels === 4 ? image.ensureAlpha() : image.removeAlpha();
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.channels, channels);
  return { data, width: info.width, height: info.height, channels };
}

function blankPage(width: number, height: number, channels: 1 | 3 | 4): Raster {
  return { data: new Uint8ClampedArray(width * height * channels).fill(255), width, height, channels };
}

/** One channel, 0 black and 255 white, row by row. */
type Bitmap = { data: ArrayLike<number>; width: number; height: number };

/** Draws a one-channel bitmap (0 black, 255 white) onto the page, each bitmap pixel as a `modulePx` square. */
function paste(page: Raster, bitmap: Bitmap, left: number, top: number, modulePx: number): Box {
  for (let y = 0; y < bitmap.height * modulePx; y++) {
    for (let x = 0; x < bitmap.width * modulePx; x++) {
      const value = bitmap.data[Math.floor(y / modulePx) * bitmap.width + Math.floor(x / modulePx)];
      const i = ((top + y) * page.width + left + x) * page.channels;
      for (let c = 0; c < Math.min(page.channels, 3); c++) page.data[i + c] = value;
    }
  }
  return { x1: left, y1: top, x2: left + bitmap.width * modulePx, y2: top + bitmap.height * modulePx };
}

function scaled(box: Box, scale: number): Box {
  return { x1: box.x1 * scale, y1: box.y1 * scale, x2: box.x2 * scale, y2: box.y2 * scale };
}

/** The bitmap turned clockwise by `quarters` quarter turns. */
function turn(source: Bitmap, quarters: number): Bitmap {
  let out = source;
  for (let q = 0; q < quarters; q++) {
    const { data, width, height } = out;
    // Clockwise: the pixel at (x, y) of the turned bitmap is the source's (y, height - 1 - x).
    const turned = Array.from({ length: width * height }, (_, i) => {
      const x = i % height;
      const y = Math.floor(i / height);
      return data[(height - 1 - x) * width + y];
    });
    out = { data: turned, width: height, height: width };
  }
  return out;
}

/** True when `inner` lies inside `outer` widened by `margin` on every side. */
function within(inner: Box, outer: Box, margin: number): boolean {
  return (
    inner.x1 >= outer.x1 - margin &&
    inner.y1 >= outer.y1 - margin &&
    inner.x2 <= outer.x2 + margin &&
    inner.y2 <= outer.y2 + margin
  );
}

/** The 95 modules of an EAN-13 symbol, 1 for a bar, built from the symbology's tables. */
function ean13Modules(digits: string): number[] {
  const l = [
    "0001101",
    "0011001",
    "0010011",
    "0111101",
    "0100011",
    "0110001",
    "0101111",
    "0111011",
    "0110111",
    "0001011",
  ];
  const r = l.map((code) => [...code].map((bit) => (bit === "1" ? "0" : "1")).join(""));
  const g = r.map((code) => [...code].reverse().join(""));
  const parity = [
    "LLLLLL",
    "LLGLGG",
    "LLGGLG",
    "LLGGGL",
    "LGLLGG",
    "LGGLLG",
    "LGGGLL",
    "LGLGLG",
    "LGLGGL",
    "LGGLGL",
  ];
  const d = [...digits].map(Number);
  let bits = "101";
  for (let i = 1; i <= 6; i++) bits += (parity[d[0]][i - 1] === "L" ? l : g)[d[i]];
  bits += "01010";
  for (let i = 7; i <= 12; i++) bits += r[d[i]];
  bits += "101";
  return [...bits].map(Number);
}

/** A one-channel bitmap whose pixel (x, y) is black where `bar(x, y)` is 1. */
function bitmap(width: number, height: number, bar: (x: number, y: number) => number): number[] {
  return Array.from({ length: width * height }, (_, i) => (bar(i % width, Math.floor(i / width)) ? 0 : 255));
}

function ean13CheckDigit(first12: string): number {
  const sum = [...first12].reduce((acc, digit, i) => acc + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return (10 - (sum % 10)) % 10;
}

async function loadWriter(): Promise<void> {
  const bytes = await readFile(fileURLToPath(import.meta.resolve("zxing-wasm/writer/zxing_writer.wasm")));
  const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  await prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
}

describe("detectBarcodes", () => {
  before(loadWriter);

  it("reads the Swiss QR bill's code from the scan, in RGBA, RGB and gray", { skip: NO_CORPUS }, async () => {
    for (const channels of [4, 3, 1] as const) {
      const raster = await decode(qrBill(), channels);
      const scale = 0.5;
      const found = await detectBarcodes(raster, scale);
      assert.equal(found.length, 1, `channels ${channels}`);
      const [qr] = found;
      assert.equal(qr.format, "QRCode");
      assert.match(qr.text, /^SPC\n0200\n1\nCH58 ?0079 ?1123 ?0008 ?8901 ?2\n/);
      // The payment part's QR code: a square of about a fifth of the page's width, left of its middle, low down.
      const width = qr.box.x2 - qr.box.x1;
      const height = qr.box.y2 - qr.box.y1;
      assert.ok(Math.abs(width / height - 1) < 0.05, `square: ${width}×${height}`);
      assert.ok(width > raster.width * scale * 0.18 && width < raster.width * scale * 0.26, `width ${width}`);
      assert.ok(
        within(qr.box, scaled({ x1: 300, y1: 950, x2: 620, y2: 1300 }, scale), 0),
        JSON.stringify(qr.box),
      );
    }
  });

  it("reads the QR bill's code on a scan turned by 17°", { skip: NO_CORPUS }, async () => {
    const { data, info } = await sharp(qrBill())
      .rotate(17, { background: "#ffffff" })
      .grayscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const found = await detectBarcodes({ data, width: info.width, height: info.height, channels: 1 }, 1);
    assert.deepEqual(
      found.map((barcode) => [barcode.format, barcode.text.split("\n").slice(0, 3)]),
      [["QRCode", ["SPC", "0200", "1"]]],
    );
  });

  it("reads an EAN-13 drawn from its bar pattern, upright and turned a quarter", async () => {
    const first12 = "590123412345";
    const digits = `${first12}${ean13CheckDigit(first12)}`;
    assert.equal(digits, "5901234123457");
    const modules = ean13Modules(digits);
    assert.equal(modules.length, 95);
    // 3 px a module, 80 modules (240 px) tall; then the same turned a quarter (bars running across).
    const upright = { data: bitmap(95, 80, (x) => modules[x]), width: 95, height: 80 };
    const turned = { data: bitmap(80, 95, (_x, y) => modules[y]), width: 80, height: 95 };
    const page = blankPage(1200, 1600, 1);
    const placed = [paste(page, upright, 200, 200, 3), paste(page, turned, 600, 800, 3)];

    const found = await detectBarcodes(page, 1);
    assert.equal(found.length, 2, JSON.stringify(found));
    for (const box of placed) {
      const match = found.find((barcode) => within(barcode.box, box, 2));
      assert.ok(match, `nothing read inside ${JSON.stringify(box)}: ${JSON.stringify(found)}`);
      assert.equal(match.format, "EAN13");
      assert.equal(match.text, digits);
    }
  });

  it("reads 2D and linear symbologies at every quarter turn, with boxes in points", async () => {
    // `decoded` is the value read back when the writer appends a check digit.
    const symbols: {
      format: WriteInputBarcodeFormat;
      text: string;
      read: string;
      decoded?: string;
      modulePx: number;
    }[] = [
      { format: "QRCode", text: "https://example.com/invoice/42", read: "QRCode", modulePx: 6 },
      { format: "DataMatrix", text: "LOT 0042 / 2024", read: "DataMatrix", modulePx: 6 },
      { format: "PDF417", text: "PDF417 carries a longer payload", read: "PDF417", modulePx: 3 },
      { format: "AztecCode", text: "Aztec ticket 7781", read: "Aztec", modulePx: 6 },
      { format: "Code128", text: "SHIP-2024-0042", read: "Code128", modulePx: 3 },
      { format: "Code39", text: "PART 42", read: "Code39", modulePx: 3 },
      { format: "EAN8", text: "9638507", read: "EAN8", decoded: "96385074", modulePx: 4 },
      { format: "UPCA", text: "03600029145", read: "UPCA", decoded: "036000291452", modulePx: 4 },
      { format: "ITF", text: "12345678", read: "ITF", modulePx: 4 },
    ];
    const page = blankPage(1800, 2600, 3);
    const scale = 72 / 200;
    const expected: { read: string; text: string; box: Box }[] = [];
    for (const [i, symbol] of symbols.entries()) {
      const written = await writeBarcode(symbol.text, { format: symbol.format, addQuietZones: false });
      assert.equal(written.error, "", `${symbol.format}: ${written.error}`);
      const left = 100 + (i % 3) * 580;
      const top = 100 + Math.floor(i / 3) * 820;
      const box = paste(page, turn(written.symbol, i % 4), left, top, symbol.modulePx);
      assert.ok(box.x2 < page.width && box.y2 < page.height, `${symbol.format} fits`);
      expected.push({ read: symbol.read, text: symbol.decoded ?? symbol.text, box: scaled(box, scale) });
    }

    const found = await detectBarcodes(page, scale);
    const summary = JSON.stringify(found.map(({ format, text }) => [format, text]));
    assert.equal(found.length, expected.length, summary);
    for (const { read, text, box } of expected) {
      const match = found.find((barcode: DetectedBarcode) => barcode.format === read);
      assert.ok(match, `no ${read} in ${summary}`);
      assert.equal(match.text, text);
      assert.ok(
        within(match.box, box, 1),
        `${read}: ${JSON.stringify(match.box)} outside ${JSON.stringify(box)}`,
      );
    }
  });

  it("finds nothing on a blank page", async () => {
    assert.deepEqual(await detectBarcodes(blankPage(1240, 1754, 4), 0.5), []);
  });

  it("finds nothing on a scanned newspaper page", { skip: NO_CORPUS }, async () => {
    assert.deepEqual(await detectBarcodes(await decode(newspaper(), 3), 0.5), []);
  });

  it("scans a raster over the pixel budget downscaled, boxes still in the page's points", async () => {
    const written = await writeBarcode("big page", { format: "QRCode", addQuietZones: false });
    const page = blankPage(6600, 6400, 1);
    const placed = paste(page, written.symbol, 3000, 3000, 24);
    const [qr, ...rest] = await detectBarcodes(page, 1);
    assert.deepEqual(rest, []);
    assert.equal(qr.text, "big page");
    assert.ok(within(qr.box, placed, 4), JSON.stringify(qr.box));
    assert.ok(qr.box.x2 - qr.box.x1 > (placed.x2 - placed.x1) * 0.95, JSON.stringify(qr.box));
  });

  it("rejects a raster whose data does not match its size", async () => {
    const raster: Raster = { data: new Uint8ClampedArray(10), width: 2, height: 2, channels: 3 };
    await assert.rejects(detectBarcodes(raster, 1), RangeError);
    await assert.rejects(detectBarcodes(blankPage(2, 2, 1), 0), RangeError);
    assert.deepEqual(
      await detectBarcodes({ data: new Uint8ClampedArray(0), width: 0, height: 5, channels: 1 }, 1),
      [],
    );
  });
});
