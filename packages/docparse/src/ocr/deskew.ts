import sharp from "sharp";
import { inkMask } from "../images/text-height.ts";

/** The largest skew looked for, in degrees: scans are fed by hand a few degrees off, not more. */
export const MAX_SKEW_DEGREES = 5;
/** A skew smaller than this is left alone: over a 2000 pixel line it moves the ends by under 4 pixels. */
const MIN_CORRECTED_SKEW_DEGREES = 0.1;
/** The skew is measured on a copy at most this many pixels wide and high. */
const SAMPLE_SIZE = 1200;
/** Ink pixels used at most (evenly sampled), which bounds the search's cost. */
const MAX_INK_POINTS = 250_000;

/**
 * Finds the small skew of a scanned page and turns the page back straight. The skew is the angle whose
 * projection profiles are sharpest: at the right angle, the ink of each text line falls into a few rows and the
 * edges of columns into a few columns. Searched over ±MAX_SKEW_DEGREES on a binarized copy of at most
 * SAMPLE_SIZE pixels, coarsely and then finely. The straightened page keeps its size (corners turned out of it
 * are cut off, the ones turned in are white), so OCR boxes on it are boxes on the page.
 *
 * `measured`, the skew measureSkew found on this very image already, is used as it is instead of measuring again.
 *
 * @returns the page PNG (the input itself when there is no skew to correct) and the skew found, in degrees,
 *   clockwise positive.
 * @example
 * const { png, angle } = await deskew(raster.png);
 */
export async function deskew(png: Buffer, measured?: number): Promise<{ png: Buffer; angle: number }> {
  const angle = measured ?? (await measureSkew(png));
  if (Math.abs(angle) < MIN_CORRECTED_SKEW_DEGREES) return { png, angle: 0 };
  return { png: await rotateKeepingSize(png, -angle), angle };
}

/** The skew of a page image in degrees, clockwise positive; 0 when it has too little ink to tell. */
export async function measureSkew(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png)
    .toColourspace("b-w")
    .resize({ width: SAMPLE_SIZE, height: SAMPLE_SIZE, fit: "inside", withoutEnlargement: true })
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const mask = inkMask(new Uint8Array(data.buffer, data.byteOffset, width * height));
  let inkCount = 0;
  for (let i = 0; i < mask.length; i++) inkCount += mask[i];
  if (inkCount < 200) return 0;
  const step = Math.max(1, Math.ceil(inkCount / MAX_INK_POINTS));
  const xs: number[] = [];
  const ys: number[] = [];
  let seen = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 0 || seen++ % step !== 0) continue;
    xs.push((i % width) - width / 2);
    ys.push(Math.floor(i / width) - height / 2);
  }
  const radius = Math.ceil(Math.hypot(width, height) / 2) + 1;
  const rows = new Float64Array(2 * radius + 1);
  const columns = new Float64Array(2 * radius + 1);
  const sharpness = (degrees: number): number => {
    const a = (degrees * Math.PI) / 180;
    const sin = Math.sin(a);
    const cos = Math.cos(a);
    rows.fill(0);
    columns.fill(0);
    for (let i = 0; i < xs.length; i++) {
      rows[Math.round(ys[i] * cos - xs[i] * sin) + radius]++;
      columns[Math.round(xs[i] * cos + ys[i] * sin) + radius]++;
    }
    let score = 0;
    for (let i = 0; i < rows.length; i++) score += rows[i] * rows[i] + columns[i] * columns[i];
    return score;
  };
  const search = (from: number, to: number, by: number, start: number): number => {
    let best = start;
    let bestScore = sharpness(start);
    for (let degrees = from; degrees <= to + 1e-9; degrees += by) {
      const score = sharpness(degrees);
      if (score > bestScore) {
        bestScore = score;
        best = degrees;
      }
    }
    return best;
  };
  const coarse = search(-MAX_SKEW_DEGREES, MAX_SKEW_DEGREES, 0.25, 0);
  const fine = search(coarse - 0.25, coarse + 0.25, 0.025, coarse);
  return Math.round(fine * 100) / 100;
}

/** Turns a grayscale page by `degrees` clockwise about its center, keeping its size, with white where it was empty. */
export async function rotateKeepingSize(png: Buffer, degrees: number): Promise<Buffer> {
  const { width, height, density } = await sharp(png).metadata();
  const turned = await sharp(png)
    .toColourspace("b-w")
    .rotate(degrees, { background: "#ffffff" })
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  const { info } = turned;
  const left = Math.max(0, Math.round((info.width - width) / 2));
  const top = Math.max(0, Math.round((info.height - height) / 2));
  let out = sharp(turned.data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .extract({
      left,
      top,
      width: Math.min(width, info.width - left),
      height: Math.min(height, info.height - top),
    })
    .toColourspace("b-w");
  if (density) out = out.withDensity(density);
  return out.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}
