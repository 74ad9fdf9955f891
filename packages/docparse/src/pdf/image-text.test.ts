import assert from "node:assert/strict";
import { test } from "node:test";
import { createCanvas, type SKRSContext2D } from "@napi-rs/canvas";
import type { Box } from "../model.ts";
import { components, textRows } from "./image-text.ts";

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
