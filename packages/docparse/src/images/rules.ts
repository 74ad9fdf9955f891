import sharp from "sharp";
import type { Rule } from "../paginated/geometry.ts";
import { WHITE_WORD, whiteWords } from "./white.ts";

/**
 * Ruling lines in a page raster (a scan or photo of a ruled table, a form's lines): long thin straight runs of
 * dark pixels, horizontal and vertical, given as the same Rule objects a PDF's vector rules are, so the ruled-table
 * reader (tables/ruled.ts) builds the table from them.
 */

/** A pixel darker than this is ink. */
const INK = 140;
/** A rule is at least this long (inches): longer than a word's strokes, shorter than a narrow column's edge. */
const MIN_LENGTH_IN = 0.3;
/** And at most this thick (inches): thicker is a filled box or a picture. */
const MAX_THICKNESS_IN = 0.04;
/** Gaps along a line shorter than this (pixels) are bridged: a scanned rule has breaks. */
const BRIDGE_PX = 3;
/** Rule segments on adjacent rows (or columns) overlapping this much are one line. */
const SAME_LINE_OVERLAP = 0.5;

interface Run {
  /** The row (column, for vertical runs) it lies on. */
  pos: number;
  a: number;
  b: number;
}

interface Band {
  first: number;
  last: number;
  a: number;
  b: number;
}

/**
 * The ruling lines of a grayscale PNG in points (a pixel is `pointsPerPixel` points), for a page raster at `dpi`.
 *
 * @example
 * const rules = await rasterRules(png, 72 / 200, 200);
 */
export async function rasterRules(png: Buffer, pointsPerPixel: number, dpi: number): Promise<Rule[]> {
  const { data, info } = await sharp(png).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const gray = new Uint8Array(data.buffer, data.byteOffset, width * height);
  const minLength = Math.max(20, Math.round(MIN_LENGTH_IN * dpi));
  const maxThickness = Math.max(2, Math.round(MAX_THICKNESS_IN * dpi));
  const horizontal = bands(runsAlong(gray, width, height, minLength, "h"), maxThickness);
  const vertical = bands(runsAlong(gray, width, height, minLength, "v"), maxThickness);
  const k = pointsPerPixel;
  const round = (v: number) => Math.round(v * k * 100) / 100;
  return [
    ...horizontal.map((band): Rule => {
      const y = round((band.first + band.last + 1) / 2);
      return {
        x1: round(band.a),
        y1: y,
        x2: round(band.b + 1),
        y2: y,
        width: round(band.last - band.first + 1),
        orientation: "h",
      };
    }),
    ...vertical.map((band): Rule => {
      const x = round((band.first + band.last + 1) / 2);
      return {
        x1: x,
        y1: round(band.a),
        x2: x,
        y2: round(band.b + 1),
        width: round(band.last - band.first + 1),
        orientation: "v",
      };
    }),
  ];
}

/**
 * Rules found in pixels (`rasterRules(png, 1, dpi)`) in points, as `rasterRules(png, pointsPerPixel, dpi)` gives
 * them: a page's rules are found once and used in both frames.
 */
export function scaleRules(rules: readonly Rule[], pointsPerPixel: number): Rule[] {
  const round = (v: number) => Math.round(v * pointsPerPixel * 100) / 100;
  return rules.map((rule) => ({
    ...rule,
    x1: round(rule.x1),
    y1: round(rule.y1),
    x2: round(rule.x2),
    y2: round(rule.y2),
    width: round(rule.width),
  }));
}

/**
 * Runs of ink at least `minLength` long along each row ("h") or column ("v"), with small breaks bridged. Both
 * scan the pixels row by row (columns keep their state in arrays), which is what the memory layout is fast for.
 */
function runsAlong(
  gray: Uint8Array,
  width: number,
  height: number,
  minLength: number,
  orientation: "h" | "v",
): Run[] {
  const runs: Run[] = [];
  // White paper outside a run is passed over a word at a time (white.ts).
  const { gray: pixels, words } = whiteWords(gray);
  if (orientation === "h") {
    for (let y = 0; y < height; y++) {
      const row = y * width;
      let start = -1;
      let lastInk = -1;
      for (let x = 0; x <= width; x++) {
        const i = row + x;
        if (start < 0 && (i & 3) === 0 && x + 4 <= width && words[i >> 2] === WHITE_WORD) {
          x += 3;
          continue;
        }
        if (x < width && pixels[i] < INK) {
          if (start < 0) start = x;
          lastInk = x;
        } else if (start >= 0 && x - lastInk > BRIDGE_PX) {
          if (lastInk - start + 1 >= minLength) runs.push({ pos: y, a: start, b: lastInk });
          start = -1;
        }
      }
    }
    return runs;
  }
  const start = new Int32Array(width).fill(-1);
  const lastInk = new Int32Array(width).fill(-1);
  for (let y = 0; y <= height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (
        (i & 3) === 0 &&
        x + 4 <= width &&
        y < height &&
        words[i >> 2] === WHITE_WORD &&
        start[x] < 0 &&
        start[x + 1] < 0 &&
        start[x + 2] < 0 &&
        start[x + 3] < 0
      ) {
        x += 3;
        continue;
      }
      if (y < height && pixels[i] < INK) {
        if (start[x] < 0) start[x] = y;
        lastInk[x] = y;
      } else if (start[x] >= 0 && y - lastInk[x] > BRIDGE_PX) {
        if (lastInk[x] - start[x] + 1 >= minLength) runs.push({ pos: x, a: start[x], b: lastInk[x] });
        start[x] = -1;
      }
    }
  }
  // Bands are built line by line: vertical runs in column order.
  return runs.sort((p, q) => p.pos - q.pos || p.a - q.a);
}

/** Runs on neighbouring lines that overlap become one band (a rule's thickness); bands too thick are dropped. */
function bands(runs: Run[], maxThickness: number): Band[] {
  const open: Band[] = [];
  const done: Band[] = [];
  for (const run of runs) {
    let joined = false;
    for (const band of open) {
      if (band.last < run.pos - 1) continue;
      const overlap = Math.min(band.b, run.b) - Math.max(band.a, run.a);
      if (overlap >= SAME_LINE_OVERLAP * Math.min(band.b - band.a, run.b - run.a)) {
        band.last = run.pos;
        band.a = Math.min(band.a, run.a);
        band.b = Math.max(band.b, run.b);
        joined = true;
        break;
      }
    }
    if (!joined) open.push({ first: run.pos, last: run.pos, a: run.a, b: run.b });
    // Bands no longer growing are finished.
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i].last < run.pos - 1) done.push(...open.splice(i, 1));
    }
  }
  done.push(...open);
  return done.filter((band) => band.last - band.first + 1 <= maxThickness);
}
