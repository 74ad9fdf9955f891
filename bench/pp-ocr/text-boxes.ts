/*
 * Text boxes from a DB (differentiable binarization) text detector's probability map: the detector marks each
 * text line's shrunk core with a high probability; a connected region above a threshold is one line, kept when
 * its mean probability is high, and grown back by the margin DB shrank it by. Boxes are upright rectangles: pages
 * reach OCR upright and deskewed.
 */

/** A text box in pixels of the map. */
export interface TextBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Mean probability of the region (0..1). */
  score: number;
}

export interface BoxOptions {
  /** A pixel of the map above this probability is text. */
  threshold: number;
  /** A region whose mean probability is below this is dropped. */
  minScore: number;
  /** DB's unclip ratio: the box grows by area × ratio / perimeter on every side. */
  unclipRatio: number;
  /** Regions less tall than this (map pixels) are specks. */
  minSize: number;
}

export const DB_DEFAULTS: BoxOptions = { threshold: 0.3, minScore: 0.6, unclipRatio: 1.5, minSize: 3 };

/** Connected regions (8-neighbours) of the map above the threshold, as grown boxes in map pixels. */
export function textBoxes(
  map: Float32Array,
  width: number,
  height: number,
  options: BoxOptions = DB_DEFAULTS,
): TextBox[] {
  const label = new Int32Array(width * height);
  const stack: number[] = [];
  const boxes: TextBox[] = [];
  let next = 0;
  for (let start = 0; start < map.length; start++) {
    if (label[start] !== 0 || map[start] <= options.threshold) continue;
    next++;
    label[start] = next;
    stack.push(start);
    let left = width;
    let right = -1;
    let top = height;
    let bottom = -1;
    let sum = 0;
    let count = 0;
    while (stack.length > 0) {
      const at = stack.pop() as number;
      const x = at % width;
      const y = (at - x) / width;
      sum += map[at];
      count++;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const n = ny * width + nx;
          if (label[n] === 0 && map[n] > options.threshold) {
            label[n] = next;
            stack.push(n);
          }
        }
      }
    }
    const w = right - left + 1;
    const h = bottom - top + 1;
    if (Math.min(w, h) < options.minSize) continue;
    const score = sum / count;
    if (score < options.minScore) continue;
    const grow = (w * h * options.unclipRatio) / (2 * (w + h));
    boxes.push({
      left: Math.max(0, left - grow),
      top: Math.max(0, top - grow),
      right: Math.min(width, right + 1 + grow),
      bottom: Math.min(height, bottom + 1 + grow),
      score,
    });
  }
  return boxes;
}
