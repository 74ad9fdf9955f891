import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";
import { codeUnits, levenshtein } from "../text/edit-distance.ts";

/**
 * Boxes for a vision model's transcription of a page. The model gives text only; the page's own OCR gives words
 * with boxes. The two word sequences are aligned in order (same word, or a close spelling of it); a model word
 * matched to an OCR word takes that word's box. The other words of a line get boxes laid out beside their matched
 * neighbours on the line's band, and a line with no match at all gets a band of its own between the lines around
 * it, inside the page's text area: a line-level box rather than none.
 */

/** An OCR word: its text and box. */
export interface OcrWord {
  text: string;
  box: Box;
}

/** Confidence given to a word both readers agree on, and to a word only the model read. */
const AGREED_CONFIDENCE = 0.99;
const MODEL_ONLY_CONFIDENCE = 0.8;
/** Two spellings at least this similar (1 − edit distance / longer length) are the same word read twice. */
const SIMILAR_WORD = 0.6;
/** Above this many cells the alignment compares exact spellings only (a page of several thousand words). */
const FUZZY_CELLS = 4_000_000;

/** A word as compared: lowercased, compatibility-normalized, letters and digits only. */
export function wordKey(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** 2 for the same word, 1 for a close spelling, 0 for different words. */
function wordScore(a: string, b: string, fuzzy: boolean): number {
  if (a === "" || b === "") return 0;
  if (a === b) return 2;
  if (!fuzzy || Math.min(a.length, b.length) < 3) return 0;
  const longer = Math.max(a.length, b.length);
  if (Math.abs(a.length - b.length) > longer * (1 - SIMILAR_WORD)) return 0;
  return 1 - levenshtein(codeUnits(a), codeUnits(b)) / longer >= SIMILAR_WORD ? 1 : 0;
}

/**
 * For each of `model` words, the index of the OCR word it matches, or -1: the in-order alignment with the highest
 * score (longest common subsequence, exact matches counting twice a close spelling).
 */
export function alignWords(model: readonly string[], ocr: readonly string[]): number[] {
  const a = model.map(wordKey);
  const b = ocr.map(wordKey);
  const n = a.length;
  const m = b.length;
  const fuzzy = n * m <= FUZZY_CELLS;
  const width = m + 1;
  const score = new Int32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const pair = wordScore(a[i], b[j], fuzzy);
      score[i * width + j] = Math.max(
        score[(i + 1) * width + j],
        score[i * width + j + 1],
        pair > 0 ? pair + score[(i + 1) * width + j + 1] : 0,
      );
    }
  }
  const match = new Array<number>(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const pair = wordScore(a[i], b[j], fuzzy);
    if (pair > 0 && score[i * width + j] === pair + score[(i + 1) * width + j + 1]) {
      match[i++] = j++;
    } else if (score[(i + 1) * width + j] >= score[i * width + j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  return match;
}

/** A line of the transcription with its words and, once known, its vertical band. */
interface PlacedLine {
  words: string[];
  boxes: (Box | null)[];
  band: { y1: number; y2: number } | null;
}

/**
 * Text runs for the transcribed `lines` of a page `width` × `height` points, with boxes from the page's OCR
 * `words` (in the OCR's reading order) where they match, laid out beside them otherwise.
 *
 * @example
 * transcriptionRuns(["Dear Anna,", "thank you"], ocrPage.runs, 612, 792);
 */
export function transcriptionRuns(
  lines: readonly string[],
  words: readonly OcrWord[],
  width: number,
  height: number,
): TextRun[] {
  const placed: PlacedLine[] = lines
    .map((line) => line.split(/\s+/).filter((word) => word !== ""))
    .filter((line) => line.length > 0)
    .map((line) => ({ words: line, boxes: line.map(() => null), band: null }));
  const flat = placed.flatMap((line, l) => line.words.map((word, w) => ({ word, l, w })));
  const match = alignWords(
    flat.map((entry) => entry.word),
    words.map((word) => word.text),
  );
  flat.forEach((entry, k) => {
    if (match[k] >= 0) placed[entry.l].boxes[entry.w] = words[match[k]].box;
  });
  const agreed = new Set<Box>();
  for (const line of placed) {
    const anchors = line.boxes.filter((b): b is Box => b !== null);
    if (anchors.length === 0) continue;
    const band = { y1: median(anchors.map((b) => b.y1)), y2: median(anchors.map((b) => b.y2)) };
    const middle = (band.y1 + band.y2) / 2;
    const tall = Math.max(1, band.y2 - band.y1);
    // A match far from the line's band is a word of another line read alike: it is not an anchor.
    line.boxes = line.boxes.map((b) => (b && Math.abs(box.centerY(b) - middle) <= tall ? b : null));
    for (const b of line.boxes) if (b) agreed.add(b);
    line.band = band;
  }
  const area = textArea(words, width, height);
  const lineHeight = typicalLineHeight(placed, height);
  placeUnmatchedLines(placed, area, lineHeight);
  const charWidth = typicalCharWidth(placed, lineHeight);
  const runs: TextRun[] = [];
  for (const line of placed) {
    const band = line.band as { y1: number; y2: number };
    const boxes = layOutLine(line, band, area, charWidth);
    line.words.forEach((word, w) => {
      const b = boxes[w];
      runs.push({
        text: word,
        box: b,
        fontName: "vision",
        fontSize: Math.max(1, band.y2 - band.y1),
        bold: false,
        italic: false,
        dir: "ltr",
        confidence: agreed.has(b) ? AGREED_CONFIDENCE : MODEL_ONLY_CONFIDENCE,
      });
    });
  }
  return runs;
}

/** Where the page's text is: the OCR words' extent, or the page less one-inch margins (less on small pages). */
function textArea(words: readonly OcrWord[], width: number, height: number): Box {
  if (words.length > 0) return box.union(words.map((word) => word.box));
  const margin = Math.min(72, width / 10, height / 10);
  return { x1: margin, y1: margin, x2: width - margin, y2: height - margin };
}

function typicalLineHeight(lines: readonly PlacedLine[], height: number): number {
  const bands = lines.flatMap((line) => (line.band ? [line.band.y2 - line.band.y1] : []));
  return bands.length > 0 ? Math.max(1, median(bands)) : Math.max(4, Math.min(14, height / 60));
}

function typicalCharWidth(lines: readonly PlacedLine[], lineHeight: number): number {
  const widths: number[] = [];
  for (const line of lines) {
    line.boxes.forEach((b, w) => {
      const chars = line.words[w].length;
      if (b && chars > 0) widths.push(box.width(b) / chars);
    });
  }
  return widths.length > 0 ? median(widths) : lineHeight * 0.5;
}

/**
 * Bands for the lines without a matched word: spread evenly over the gap between the placed lines before and
 * after them (the text area's top and bottom at the ends), each at most one line high.
 */
function placeUnmatchedLines(lines: PlacedLine[], area: Box, lineHeight: number): void {
  let l = 0;
  while (l < lines.length) {
    if (lines[l].band) {
      l++;
      continue;
    }
    let end = l;
    while (end < lines.length && !lines[end].band) end++;
    const count = end - l;
    const above = l > 0 ? (lines[l - 1].band as { y2: number }).y2 : area.y1;
    const below = end < lines.length ? (lines[end].band as { y1: number }).y1 : area.y2;
    // Lines out of order with their neighbours (or no room between them) are stacked below the line before.
    const gap = below - above > count ? below - above : count * lineHeight * 1.2;
    const pitch = gap / count;
    const tall = Math.min(lineHeight, pitch * 0.8);
    for (let k = 0; k < count; k++) {
      const top = above + pitch * k + (pitch - tall) / 2;
      lines[l + k].band = { y1: top, y2: top + tall };
    }
    l = end;
  }
}

/**
 * Boxes of a line's words: matched words keep theirs; runs of unmatched words are laid out at `charWidth` per
 * character between the matched words around them (after the left one, else ending before the right one), or
 * from the text area's left edge on a line with no match.
 */
function layOutLine(line: PlacedLine, band: { y1: number; y2: number }, area: Box, charWidth: number): Box[] {
  const boxes = [...line.boxes];
  const space = charWidth;
  let w = 0;
  while (w < boxes.length) {
    if (boxes[w]) {
      w++;
      continue;
    }
    let end = w;
    while (end < boxes.length && !boxes[end]) end++;
    const left = w > 0 ? (boxes[w - 1] as Box) : null;
    const right = end < boxes.length ? (boxes[end] as Box) : null;
    const sizes = line.words.slice(w, end).map((word) => word.length * charWidth);
    const total = sizes.reduce((sum, size) => sum + size, 0) + space * (sizes.length - 1);
    let x = Math.max(0, left ? left.x2 + space : right ? right.x1 - space - total : area.x1);
    // Squeezed between two anchors, the words share the room there is.
    const room = left && right ? right.x1 - space - x : Number.POSITIVE_INFINITY;
    const squeeze = room < total && room > 0 ? room / total : 1;
    for (let k = w; k < end; k++) {
      const size = sizes[k - w] * squeeze;
      boxes[k] = { x1: x, y1: band.y1, x2: x + size, y2: band.y2 };
      x += size + space * squeeze;
    }
    w = end;
  }
  return boxes as Box[];
}
