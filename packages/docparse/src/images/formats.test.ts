import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import sharp from "sharp";
import { textImage } from "../backends/pdf-fixtures.ts";
import { DocumentLoadError, parseDocument } from "../index.ts";
import { DocumentLoadError as ModelLoadError } from "../model.ts";
import { ocrSlots } from "../ocr/slots.ts";
import { wordRecall } from "../ocr/test-support.ts";
import { sniffMimeType } from "../sniff.ts";
import { decodeBmp } from "./bmp.ts";
import { decodeImage } from "./decode.ts";

const run = promisify(execFile);
const LINES = ["Invoice for the harbour repairs", "Paid in full on the first of June"];
const TEXT = LINES.join(" ");

/** A BMP of gray pixels: 24 bits bottom-up, or 8 bits with a gray palette stored top-down. */
function bmpOf(gray: Uint8Array, width: number, height: number, bits: 8 | 24): Buffer {
  const stride = Math.ceil((width * bits) / 32) * 4;
  const palette = bits === 8 ? 256 * 4 : 0;
  const offset = 14 + 40 + palette;
  const out = Buffer.alloc(offset + stride * height);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(bits === 8 ? -height : height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(bits, 28);
  out.writeInt32LE(11811, 38); // 300 dpi in pixels per metre
  out.writeInt32LE(11811, 42);
  for (let i = 0; bits === 8 && i < 256; i++) out.fill(i, 54 + i * 4, 54 + i * 4 + 3);
  for (let y = 0; y < height; y++) {
    const row = offset + (bits === 8 ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const v = gray[y * width + x];
      if (bits === 8) out[row + x] = v;
      else out.fill(v, row + x * 3, row + x * 3 + 3);
    }
  }
  return out;
}

async function grayPixels(png: Buffer): Promise<{ gray: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(png).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  return { gray: new Uint8Array(data), width: info.width, height: info.height };
}

async function heifEncAvailable(): Promise<boolean> {
  try {
    await run("heif-enc", ["--version"]);
    return true;
  } catch (error) {
    // heif-enc prints its usage with a non-zero status; only a missing program is absent.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}
const noHeif =
  !(await heifEncAvailable()) && !process.env.CI ? "heif-enc (libheif-examples) is missing" : false;

async function heicOf(png: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "svc-heic-test-"));
  try {
    await writeFile(path.join(dir, "in.png"), png);
    await run("heif-enc", ["-q", "85", path.join(dir, "in.png"), "-o", path.join(dir, "out.heic")]);
    return await readFile(path.join(dir, "out.heic"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function parsedText(bytes: Uint8Array): Promise<{ markdown: string; mimeType: string }> {
  const mimeType = sniffMimeType(bytes) ?? "unknown";
  const { result } = await parseDocument({ bytes, mimeType, options: {} });
  return { markdown: result.markdown, mimeType };
}

describe("image formats", () => {
  test("BMP (24-bit bottom-up and 8-bit top-down) decodes to the same pixels and reads", {
    timeout: 300_000,
  }, async () => {
    const png = await textImage(LINES, { heightIn: 1.5 });
    const { gray, width, height } = await grayPixels(png);
    for (const bits of [24, 8] as const) {
      const bmp = bmpOf(gray, width, height, bits);
      const decoded = decodeBmp(bmp, 1e9);
      assert.deepEqual([decoded.width, decoded.height, decoded.dpi], [width, height, 300]);
      for (const at of [0, 1000, Math.floor(width * height * 0.5) + 777]) {
        assert.equal(decoded.rgb[at * 3], gray[at], `pixel ${at} of the ${bits}-bit BMP`);
      }
      const [page] = await decodeImage(bmp);
      assert.deepEqual([page.widthPt, page.heightPt], [612, 108]);
    }
    const { markdown, mimeType } = await parsedText(bmpOf(gray, width, height, 24));
    assert.equal(mimeType, "image/bmp");
    assert.ok(wordRecall(TEXT, markdown) >= 0.9, markdown);
    // Damaged: cut short, and a header that says 7 bits per pixel.
    const bmp = bmpOf(gray, width, height, 24);
    assert.throws(() => decodeBmp(bmp.subarray(0, 5000), 1e9), /truncated/);
    const odd = Buffer.from(bmp);
    odd.writeUInt16LE(7, 28);
    assert.throws(
      () => decodeBmp(odd, 1e9),
      (e: unknown) => e instanceof ModelLoadError && /7 bits/.test(e.message),
    );
    assert.throws(() => decodeBmp(bmp, 1000), /too many pixels/);
  });

  test("HEIC (through heif-convert), AVIF, GIF, WebP and a turned JPEG all read their text", {
    skip: noHeif,
    timeout: 600_000,
  }, async () => {
    const png = await textImage(LINES, { heightIn: 1.5 });
    const heic = await heicOf(png);
    const samples: [string, Buffer][] = [
      ["image/heic", heic],
      ["image/avif", await sharp(png).avif({ quality: 80 }).toBuffer()],
      ["image/gif", await sharp(png).gif().toBuffer()],
      ["image/webp", await sharp(png).webp({ quality: 90 }).toBuffer()],
      // Stored turned a quarter turn back, with EXIF orientation 6 to show it upright.
      [
        "image/jpeg",
        await sharp(png).rotate(-90).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer(),
      ],
    ];
    for (const [type, bytes] of samples) {
      const { markdown, mimeType } = await parsedText(bytes);
      assert.equal(mimeType, type);
      assert.ok(wordRecall(TEXT, markdown) >= 0.9, `${type}: ${markdown}`);
    }
    // A broken HEIC fails with the converter's reason.
    await assert.rejects(
      parseDocument({ bytes: heic.subarray(0, heic.length / 3), mimeType: "image/heic", options: {} }),
      (error: unknown) =>
        error instanceof DocumentLoadError && /HEIC image could not be read/.test(error.message),
    );
  });

  test("a multi-page TIFF reads every page; a photo skewed by a few degrees is straightened", {
    timeout: 300_000,
  }, async () => {
    const first = await textImage(["The first page of the letter"], { heightIn: 1.5 });
    const second = await textImage(["The second page of the letter"], { heightIn: 1.5 });
    const tiff = await sharp([first, second], { join: { animated: true } })
      .tiff()
      .toBuffer()
      .catch(async () => {
        // Older libvips: a tall image split into pages by pageHeight.
        const { height = 0 } = await sharp(first).metadata();
        return sharp([first, second], { join: { across: 1 } })
          .tiff({ pageHeight: height } as never)
          .toBuffer();
      });
    // The pages are read at once, one per OCR slot (one per core).
    let mostBusy = 0;
    const watch = setInterval(() => {
      mostBusy = Math.max(mostBusy, ocrSlots.busy);
    }, 2);
    const { result } = await parseDocument({ bytes: tiff, mimeType: "image/tiff", options: {} }).finally(() =>
      clearInterval(watch),
    );
    assert.equal(mostBusy, Math.min(2, ocrSlots.size));
    assert.equal(result.total_pages, 2);
    assert.match(
      result.pages[0].page_fragments?.map((f) => JSON.stringify(f.content)).join(" ") ?? "",
      /first/,
    );
    assert.match(
      result.pages[1].page_fragments?.map((f) => JSON.stringify(f.content)).join(" ") ?? "",
      /second/,
    );

    const page = await textImage(LINES, { heightIn: 2.5 });
    const skewed = await sharp(page).rotate(3, { background: "#ffffff" }).png().toBuffer();
    const { markdown } = await parsedText(skewed);
    assert.ok(wordRecall(TEXT, markdown) >= 0.9, markdown);
  });
});
