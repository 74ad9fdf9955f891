import { WHITE_WORD, whiteWords } from "./white.ts";

/**
 * How tall the text of a scanned page is, in pixels, read off the image before any OCR: the median height of the
 * dark connected components that have the shape of a glyph. Most glyphs of running text are lowercase letters, so
 * the median sits at about the x-height. OCR reads badly when the x-height is only a few pixels (a 72 dpi page or
 * screenshot), which is what decoding scales up for.
 */

/**
 * Text whose median glyph is under 1/DOTTED_RATIO of its ink-weighted median height is dotted script: Arabic's
 * letters join into wide words, so most of its glyph-shaped components are the dots and marks above and below.
 */
const DOTTED_RATIO = 2;
/**
 * A dotted script's text height from the height of its letter bodies (measured with their ascenders). Tesseract's
 * Arabic data reads best with bodies of about 44 px and up: on a 12 pt page at 300 dpi (bodies 33 px), reading
 * at 1.0 to 1.27 times dropped a short last line that 1.33 times and more read. A body counts as 3.3 text heights,
 * so it is read at MIN_OCR_TEXT_HEIGHT_PX × 3.3 = 46 px (1.4 times, not the 2.1 times the dots' height gave).
 */
const DOTTED_BODY_SHARE = 0.3;

function grayHistogram(gray: Uint8Array): Uint32Array {
  const histogram = new Uint32Array(256);
  const { gray: pixels, words } = whiteWords(gray);
  let white = 0;
  for (let w = 0; w < words.length; w++) {
    if (words[w] === WHITE_WORD) white += 4;
    else {
      const i = w << 2;
      histogram[pixels[i]]++;
      histogram[pixels[i + 1]]++;
      histogram[pixels[i + 2]]++;
      histogram[pixels[i + 3]]++;
    }
  }
  for (let i = words.length << 2; i < pixels.length; i++) histogram[pixels[i]]++;
  histogram[255] += white;
  return histogram;
}

function otsuOfHistogram(histogram: Uint32Array, pixels: number): number {
  let sum = 0;
  for (let level = 0; level < 256; level++) sum += level * histogram[level];
  let sumBelow = 0;
  let weightBelow = 0;
  let bestVariance = -1;
  let threshold = 127;
  for (let level = 0; level < 256; level++) {
    weightBelow += histogram[level];
    if (weightBelow === 0) continue;
    const weightAbove = pixels - weightBelow;
    if (weightAbove === 0) break;
    sumBelow += level * histogram[level];
    const meanBelow = sumBelow / weightBelow;
    const meanAbove = (sum - sumBelow) / weightAbove;
    const variance = weightBelow * weightAbove * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      threshold = level;
    }
  }
  return threshold;
}

/**
 * Ink of a grayscale image as a 0/1 mask: pixels on the minority side of Otsu's threshold, so light text on a
 * dark background counts as ink too.
 */
export function inkMask(gray: Uint8Array): Uint8Array {
  const isInk = inkLevels(gray);
  const mask = new Uint8Array(gray.length);
  for (let i = 0; i < gray.length; i++) mask[i] = isInk[gray[i]];
  return mask;
}

/** For each gray level, 1 when it is ink by inkMask's rule, else 0. */
function inkLevels(gray: Uint8Array): Uint8Array {
  const histogram = grayHistogram(gray);
  const threshold = otsuOfHistogram(histogram, gray.length);
  let dark = 0;
  for (let level = 0; level <= threshold; level++) dark += histogram[level];
  const inkIsDark = dark <= gray.length / 2;
  const isInk = new Uint8Array(256);
  for (let level = 0; level < 256; level++) isInk[level] = level <= threshold === inkIsDark ? 1 : 0;
  return isInk;
}

/** An Int32Array twice as long holding `array`. */
function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * The median height in pixels of the glyph-shaped ink components of a grayscale image, or null when it has too
 * few of them to tell (a blank page, a photograph). Components are found run by run, row by row, with
 * 8-connectivity; rules, frames and specks are left out by their size and shape. In a dotted script (Arabic,
 * Persian) the median is a dot's: the height then comes from the ink-weighted median, its letters' bodies.
 * It runs on every image page before OCR (8.7 million pixels for A4 at 300 dpi): ink is told by gray level as the
 * rows are read, without a mask, white paper is passed over four pixels at a time, and components are kept in
 * typed arrays.
 */
export function estimateTextHeight(image: Uint8Array, width: number, height: number): number | null {
  const isInk = inkLevels(image);
  const { gray, words } = whiteWords(image);
  // Paper of level 255 is passed over a word at a time (white.ts).
  const skipWhite = isInk[255] === 0;
  let parent = new Int32Array(4096);
  let top = new Int32Array(4096);
  let bottom = new Int32Array(4096);
  let left = new Int32Array(4096);
  let right = new Int32Array(4096);
  let pixels = new Int32Array(4096);
  let count = 0;
  // Runs of the previous and the current row as [start, end, label] triples.
  let previous = new Int32Array(3 * (Math.ceil(width / 2) + 1));
  let current = new Int32Array(previous.length);
  let previousLength = 0;
  for (let y = 0; y < height; y++) {
    let currentLength = 0;
    const row = y * width;
    let first = 0;
    let x = 0;
    while (x < width) {
      const i = row + x;
      if (skipWhite && (i & 3) === 0 && x + 4 <= width && words[i >> 2] === WHITE_WORD) {
        x += 4;
        continue;
      }
      if (isInk[gray[i]] === 0) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && isInk[gray[row + x]] === 1) x++;
      const end = x - 1;
      let label = -1;
      // Runs are in order along a row: skip the previous row's runs that end before this one can touch them.
      while (first < previousLength && previous[first + 1] < start - 1) first += 3;
      for (let i = first; i < previousLength && previous[i] <= end + 1; i += 3) {
        let other = previous[i + 2];
        while (parent[other] !== other) {
          parent[other] = parent[parent[other]];
          other = parent[other];
        }
        if (label < 0) label = other;
        else if (other !== label) {
          parent[other] = label;
          if (top[other] < top[label]) top[label] = top[other];
          if (bottom[other] > bottom[label]) bottom[label] = bottom[other];
          if (left[other] < left[label]) left[label] = left[other];
          if (right[other] > right[label]) right[label] = right[other];
          pixels[label] += pixels[other];
        }
      }
      if (label < 0) {
        if (count === parent.length) {
          parent = grown(parent);
          top = grown(top);
          bottom = grown(bottom);
          left = grown(left);
          right = grown(right);
          pixels = grown(pixels);
        }
        label = count++;
        parent[label] = label;
        top[label] = y;
        left[label] = start;
        right[label] = end;
        pixels[label] = 0;
      }
      bottom[label] = y;
      if (start < left[label]) left[label] = start;
      if (end > right[label]) right[label] = end;
      pixels[label] += end - start + 1;
      current[currentLength++] = start;
      current[currentLength++] = end;
      current[currentLength++] = label;
    }
    const swap = previous;
    previous = current;
    current = swap;
    previousLength = currentLength;
  }
  const heights: number[] = [];
  const inks: number[] = [];
  const maxGlyphHeight = Math.max(8, height / 8);
  for (let label = 0; label < count; label++) {
    if (parent[label] !== label) continue;
    const h = bottom[label] - top[label] + 1;
    const w = right[label] - left[label] + 1;
    // Glyphs: at least 3 px tall, not a page-high frame, not a long rule, not a speck.
    if (h >= 3 && h <= maxGlyphHeight && w <= 3 * h && pixels[label] >= 4) {
      heights.push(h);
      inks.push(pixels[label]);
    }
  }
  if (heights.length < 10) return null;
  const order = heights.map((_, i) => i).sort((a, b) => heights[a] - heights[b]);
  const median = heights[order[Math.floor(order.length / 2)]];
  const body = inkWeightedMedian(order, heights, inks);
  if (median * DOTTED_RATIO >= body) return median;
  return Math.round(body * DOTTED_BODY_SHARE);
}

/** The height below which half the glyphs' ink lies (the heights taken in the given ascending order). */
function inkWeightedMedian(order: number[], heights: number[], inks: number[]): number {
  let total = 0;
  for (const ink of inks) total += ink;
  let sum = 0;
  for (const i of order) {
    sum += inks[i];
    if (sum * 2 >= total) return heights[i];
  }
  return heights[order[order.length - 1]];
}
