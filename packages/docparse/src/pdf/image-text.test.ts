import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createCanvas, type SKRSContext2D } from "@napi-rs/canvas";
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFHexString,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
} from "pdf-lib";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import sharp from "sharp";
import type { Box } from "../model.ts";
import { pageGraphics } from "./graphics.ts";
import { components, imageTextRegions, textRows } from "./image-text.ts";
import { closePdf, openPdf } from "./open.ts";
import { jpegImage } from "./worker-patch.ts";

/** A gray raster drawn on a canvas, as textRows takes it. */
function grayRaster(
  width: number,
  height: number,
  draw: (context: SKRSContext2D) => void,
): { gray: Uint8Array; all: Box } {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  draw(context);
  const rgba = context.getImageData(0, 0, width, height).data;
  const gray = new Uint8Array(width * height);
  for (let i = 0; i < gray.length; i++)
    gray[i] = Math.round((rgba[i * 4] + rgba[i * 4 + 1] + rgba[i * 4 + 2]) / 3);
  return { gray, all: { x1: 0, y1: 0, x2: width, y2: height } };
}

/** A deterministic sequence in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test("components: 8-connected blobs with their boxes and pixel counts", () => {
  // Two blobs: a diagonal of three pixels (connected by corners) and a lone pixel.
  const mask = new Uint8Array([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
  const blobs = components(mask, 5, 4).sort((a, b) => a.x1 - b.x1);
  assert.deepEqual(blobs, [
    { x1: 0, y1: 0, x2: 3, y2: 3, pixels: 3 },
    { x1: 4, y1: 3, x2: 5, y2: 4, pixels: 1 },
  ]);
});

test("a line of dark type on white is one text row; white type on a dark banner is too", () => {
  const { gray, all } = grayRaster(600, 200, (c) => {
    c.fillStyle = "#ffffff";
    c.fillRect(0, 0, 600, 100);
    c.fillStyle = "#1a3a6a";
    c.fillRect(0, 100, 600, 100);
    c.font = '28px "DejaVu Sans"';
    c.fillStyle = "#000000";
    c.fillText("Harbour results", 40, 60);
    c.fillStyle = "#ffffff";
    c.fillText("Summit 2026", 300, 160);
  });
  const rows = textRows(gray, 600, 200, [all], []);
  assert.equal(rows.length, 2, JSON.stringify(rows));
  const [dark, light] = rows.sort((a, b) => a.y1 - b.y1);
  assert.ok(dark.x1 >= 38 && dark.x1 <= 44 && dark.y2 <= 70 && dark.x2 > 200, JSON.stringify(dark));
  assert.ok(light.x1 >= 298 && light.y1 >= 130 && light.x2 > 440, JSON.stringify(light));
});

test("type covered by a text-layer word, or outside the image, is not a row; blank images have none", () => {
  const { gray } = grayRaster(600, 100, (c) => {
    c.fillStyle = "#ffffff";
    c.fillRect(0, 0, 600, 100);
    c.font = '28px "DejaVu Sans"';
    c.fillStyle = "#000000";
    c.fillText("Harbour results", 40, 60);
  });
  const covered = { x1: 30, y1: 20, x2: 300, y2: 75 };
  assert.deepEqual(textRows(gray, 600, 100, [{ x1: 0, y1: 0, x2: 600, y2: 100 }], [covered]), []);
  assert.deepEqual(textRows(gray, 600, 100, [{ x1: 320, y1: 0, x2: 600, y2: 100 }], []), []);
  const blank = new Uint8Array(600 * 100).fill(230);
  assert.deepEqual(textRows(blank, 600, 100, [{ x1: 0, y1: 0, x2: 600, y2: 100 }], []), []);
});

test("a photo-like picture (blurred shapes in shades, on a gradient, with grain) has no text rows", () => {
  const next = random(7);
  const width = 700;
  const height = 500;
  const canvas = createCanvas(width, height);
  const c = canvas.getContext("2d");
  const sky = c.createLinearGradient(0, 0, 0, height);
  sky.addColorStop(0, "#8aa6c8");
  sky.addColorStop(1, "#4a5a3a");
  c.fillStyle = sky;
  c.fillRect(0, 0, width, height);
  c.filter = "blur(2px)";
  // A skyline of buildings with rows of windows, trees, and clouds: the shapes that look most like type.
  for (let i = 0; i < 40; i++) {
    const x = next() * width;
    const w = 15 + next() * 40;
    const h = 40 + next() * 160;
    const shade = 60 + Math.floor(next() * 120);
    c.fillStyle = `rgb(${shade},${shade - 10},${shade - 20})`;
    c.fillRect(x, 300 - h, w, h);
    for (let y = 300 - h + 6; y < 294; y += 12) {
      for (let wx = x + 3; wx < x + w - 6; wx += 9) {
        const lit = 120 + Math.floor(next() * 100);
        c.fillStyle = `rgb(${lit},${lit},${lit - 30})`;
        c.fillRect(wx, y, 5, 7);
      }
    }
  }
  for (let i = 0; i < 120; i++) {
    const shade = 30 + Math.floor(next() * 90);
    c.fillStyle = `rgb(${shade - 10},${shade + 20},${shade - 20})`;
    c.beginPath();
    c.ellipse(next() * width, 320 + next() * 180, 6 + next() * 20, 6 + next() * 16, 0, 0, Math.PI * 2);
    c.fill();
  }
  c.filter = "none";
  const rgba = c.getImageData(0, 0, width, height).data;
  const gray = new Uint8Array(width * height);
  for (let i = 0; i < gray.length; i++) {
    const grain = (next() - 0.5) * 24;
    gray[i] = Math.max(
      0,
      Math.min(255, Math.round((rgba[i * 4] + rgba[i * 4 + 1] + rgba[i * 4 + 2]) / 3 + grain)),
    );
  }
  const rows = textRows(gray, width, height, [{ x1: 0, y1: 0, x2: width, y2: height }], []);
  assert.deepEqual(rows, []);
});

/** A picture with two lines of dark type on white, `scale` × 800 by 300 pixels, as PNG. */
async function typePicture(scale: number): Promise<Buffer> {
  const canvas = createCanvas(800 * scale, 300 * scale);
  const c = canvas.getContext("2d");
  c.fillStyle = "#ffffff";
  c.fillRect(0, 0, 800 * scale, 300 * scale);
  c.fillStyle = "#202020";
  c.font = `${40 * scale}px "DejaVu Sans"`;
  c.fillText("Harbour results 2026", 40 * scale, 100 * scale);
  c.fillText("Quarterly summit notes", 40 * scale, 220 * scale);
  return canvas.toBuffer("image/png");
}

/** A dictionary as pdf-lib's `context.stream` takes it. */
type StreamDict = NonNullable<Parameters<PDFDocument["context"]["stream"]>[1]>;

interface ImageVariant {
  /** The image stream's bytes and its dictionary entries (pdf-lib literals: strings are names). */
  bytes: Uint8Array;
  dict: Record<string, unknown>;
  /** Other objects the dictionary refers to, by the placeholder standing for them in `dict`. */
  refs?: Record<string, { bytes: Uint8Array; dict: StreamDict; flate?: boolean }>;
}

/** A Letter page drawing one image 400 × 150 pt at (100, 500). */
async function imagePage({ bytes, dict, refs = {} }: ImageVariant): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const resolved = new Map<string, PDFRef>();
  for (const [name, object] of Object.entries(refs)) {
    const stream = object.flate
      ? doc.context.flateStream(object.bytes, object.dict)
      : doc.context.stream(object.bytes, object.dict);
    resolved.set(name, doc.context.register(stream));
  }
  const swap = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(swap)
      : typeof value === "string" && resolved.has(value)
        ? resolved.get(value)
        : value;
  const entries = Object.fromEntries(Object.entries(dict).map(([k, v]) => [k, swap(v)])) as StreamDict;
  const ref = doc.context.register(
    doc.context.stream(bytes, { Type: "XObject", Subtype: "Image", BitsPerComponent: 8, ...entries }),
  );
  const name = page.node.newXObject("Im", ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(400, 0, 0, 150, 100, 500),
    drawObject(name),
    popGraphicsState(),
  );
  return doc.save();
}

/**
 * The image's text rows through the native JPEG path and through pdf.js's decode (each on a fresh copy of the
 * document), whether the native path was offered the JPEG, and whether pdf.js decoded it on the native run.
 */
async function bothWays(pdf: Uint8Array) {
  const run = async (nativeJpeg: boolean) => {
    const doc = await openPdf(pdf);
    try {
      const page = await doc.getPage(1);
      const ops = await page.getOperatorList();
      const viewport = page.getViewport({ scale: 1 });
      const graphics = pageGraphics(ops, viewport.transform);
      const id = ops.argsArray[ops.fnArray.indexOf(OPS.paintImageXObject)][0] as string;
      const offered = (await jpegImage(page, id)) !== null;
      const size = { width: viewport.width, height: viewport.height };
      const rows = await imageTextRegions(page, ops, graphics, [], size, { nativeJpeg });
      return { rows, offered, decodedByPdfjs: page.objs.has(id) };
    } finally {
      await closePdf(doc);
    }
  };
  const native = await run(true);
  const pdfjs = await run(false);
  return { native, pdfjs };
}

/** Rows found both ways are the same rows: as many, each edge within 2 pt (the two decoders resample apart). */
function sameRows(a: Box[], b: Box[]): void {
  assert.equal(a.length, b.length, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  const sorted = (rows: Box[]) => [...rows].sort((p, q) => p.y1 - q.y1);
  const [sa, sb] = [sorted(a), sorted(b)];
  for (let i = 0; i < sa.length; i++) {
    for (const edge of ["x1", "y1", "x2", "y2"] as const)
      assert.ok(
        Math.abs(sa[i][edge] - sb[i][edge]) <= 2,
        `${edge}: ${JSON.stringify(sa[i])} vs ${JSON.stringify(sb[i])}`,
      );
  }
}

describe("images' text rows read from JPEG bytes by sharp agree with pdf.js's decode", () => {
  const TIMEOUT = 120_000;

  test("RGB, gray and ICC-based JPEGs are read natively, shrunk on load, and give pdf.js's rows", {
    timeout: TIMEOUT,
  }, async () => {
    const png = await typePicture(2);
    const rgb = await sharp(png).jpeg({ quality: 85 }).toBuffer();
    const gray = await sharp(png).toColourspace("b-w").jpeg({ quality: 85 }).toBuffer();
    // sRGB's ICC profile as sharp embeds it, for an ICCBased colour space.
    const icc = (await sharp(await sharp(png).withIccProfile("srgb").jpeg().toBuffer()).metadata()).icc;
    assert.ok(icc, "an sRGB profile");
    const variants: [string, ImageVariant][] = [
      [
        "DeviceRGB",
        { bytes: rgb, dict: { Width: 1600, Height: 600, ColorSpace: "DeviceRGB", Filter: "DCTDecode" } },
      ],
      [
        "DeviceGray",
        { bytes: gray, dict: { Width: 1600, Height: 600, ColorSpace: "DeviceGray", Filter: "DCTDecode" } },
      ],
      [
        "ICCBased",
        {
          bytes: rgb,
          dict: { Width: 1600, Height: 600, ColorSpace: ["ICCBased", "icc"], Filter: "DCTDecode" },
          refs: { icc: { bytes: icc, dict: { N: 3, Alternate: "DeviceRGB" } } },
        },
      ],
    ];
    for (const [name, variant] of variants) {
      const { native, pdfjs } = await bothWays(await imagePage(variant));
      assert.equal(native.offered, true, `${name}: offered to sharp`);
      assert.equal(native.decodedByPdfjs, false, `${name}: pdf.js decoded nothing`);
      assert.equal(pdfjs.decodedByPdfjs, true, `${name}: the pdf.js way decodes`);
      assert.equal(native.rows.length, 2, `${name}: ${JSON.stringify(native.rows)}`);
      sameRows(native.rows, pdfjs.rows);
    }
  });

  test("CMYK (Adobe), a Decode array, a soft mask, an indexed palette, a damaged JPEG and a wrong size are left to pdf.js", {
    timeout: TIMEOUT,
  }, async () => {
    const png = await typePicture(1);
    const rgb = await sharp(png).jpeg({ quality: 90 }).toBuffer();
    const gray = await sharp(png).toColourspace("b-w").jpeg({ quality: 90 }).toBuffer();
    const cmyk = await sharp(png).toColourspace("cmyk").jpeg({ quality: 90 }).toBuffer();
    const jpeg = { Width: 800, Height: 300, Filter: "DCTDecode" };
    // A soft mask that hides the lower half: pdf.js shows the first line only, on white.
    const alpha = Buffer.alloc(800 * 300, 255).fill(0, 800 * 150);
    const mask = {
      Type: "XObject",
      Subtype: "Image",
      Width: 800,
      Height: 300,
      ColorSpace: "DeviceGray",
      BitsPerComponent: 8,
    };
    // A palette that paints every gray one colour: pdf.js sees a blank image.
    const flat = new PDFHexString(Buffer.alloc(256 * 3, 0x80).toString("hex"));
    // The rows pdf.js finds (null: whatever it finds; libvips's CMYK JPEGs are not read alike by every reader).
    const variants: [string, ImageVariant, number | null][] = [
      ["CMYK", { bytes: cmyk, dict: { ...jpeg, ColorSpace: "DeviceCMYK" } }, null],
      // Every component decoded to 0: pdf.js sees a black image.
      ["Decode", { bytes: rgb, dict: { ...jpeg, ColorSpace: "DeviceRGB", Decode: [0, 0, 0, 0, 0, 0] } }, 0],
      [
        "SMask",
        {
          bytes: rgb,
          dict: { ...jpeg, ColorSpace: "DeviceRGB", SMask: "mask" },
          refs: { mask: { bytes: alpha, dict: mask, flate: true } },
        },
        1,
      ],
      ["Indexed", { bytes: gray, dict: { ...jpeg, ColorSpace: ["Indexed", "DeviceRGB", 255, flat] } }, 0],
    ];
    for (const [name, variant, rows] of variants) {
      const { native, pdfjs } = await bothWays(await imagePage(variant));
      assert.equal(native.offered, false, `${name}: not offered to sharp`);
      if (rows !== null) assert.equal(native.rows.length, rows, `${name}: ${JSON.stringify(native.rows)}`);
      assert.deepEqual(native.rows, pdfjs.rows, name);
    }
    // Offered, but refused by sharp (a JPEG cut short; a JPEG of another size than its dictionary says): pdf.js
    // decodes it, as the pdf.js way does.
    const cut = rgb.subarray(0, Math.floor(rgb.length * 0.6));
    for (const [name, variant] of [
      ["damaged", { bytes: cut, dict: { ...jpeg, ColorSpace: "DeviceRGB" } }],
      ["size", { bytes: rgb, dict: { ...jpeg, Width: 400, Height: 150, ColorSpace: "DeviceRGB" } }],
    ] as [string, ImageVariant][]) {
      const { native, pdfjs } = await bothWays(await imagePage(variant));
      assert.equal(native.offered, true, `${name}: offered`);
      assert.equal(native.decodedByPdfjs, true, `${name}: decoded by pdf.js after all`);
      assert.deepEqual(native.rows, pdfjs.rows, name);
    }
  });
});
