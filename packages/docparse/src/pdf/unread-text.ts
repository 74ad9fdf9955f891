import type { Box } from "../model.ts";
import { box, type PageGeometry, type TextRun } from "../paginated/geometry.ts";

/**
 * Text a digital page shows but its text layer does not hold: glyphs drawn as vector outlines, a font whose
 * glyphs map to no characters (Type3 or CID fonts without a usable ToUnicode), and rows of text inside images (a
 * slide's title banner, words in a full-page background; found by image-text.ts). Each is a region of the page
 * to read by OCR.
 */
export interface UnreadText {
  regions: Box[];
  /** Runs whose characters are not text (private-use, replacement or control characters): OCR replaces them. */
  garbled: Set<TextRun>;
}

/** Glyph outlines: heights of type, and how many on one baseline make a line of text. */
const GLYPH_HEIGHT = { min: 3, max: 48 };
const GLYPHS_PER_LINE = 6;
/** The widest gap between glyphs of one line, in glyph heights. */
const GAP_IN_LINE = 1.5;

/**
 * Outlines the size of a glyph: as tall as type, at most three times as wide as tall (heavy type's `mm` touching
 * is one shape 2.8 times as wide). The page keeps only these of its outlines (a map's thousands of subpaths are
 * not carried along).
 */
export function glyphSized(outlines: readonly Box[]): Box[] {
  return outlines.filter((o) => {
    const h = box.height(o);
    return h >= GLYPH_HEIGHT.min && h <= GLYPH_HEIGHT.max && box.width(o) <= h * 3;
  });
}

/**
 * White outlines that lie on a painted ground (a filled shape or an image larger than they are, painted before
 * or after: the order is not kept), glyph-sized: on a white page white glyphs show nothing, on a banner they are
 * its title.
 */
export function lightOnGround(light: readonly Box[], grounds: readonly Box[]): Box[] {
  const glyphs = glyphSized(light);
  if (glyphs.length === 0) return glyphs;
  return glyphs.filter((o) => grounds.some((g) => box.area(g) > box.area(o) * 4 && box.containsCenter(g, o)));
}

/** Characters that are no text: private use, the replacement character, C0 and C1 controls. */
function notText(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0xe000 && code <= 0xf8ff) ||
    code >= 0xf0000 ||
    code === 0xfffd
  );
}

/**
 * A run of a few characters or more, most of which are no text. A lone symbol (a bullet from a symbol font's
 * private-use area) is left alone.
 */
export function garbledRun(run: TextRun): boolean {
  const chars = [...run.text.replace(/\s+/g, "")];
  if (chars.length < 3) return false;
  return chars.filter(notText).length * 2 >= chars.length;
}

/** A run holding nothing but glyphs that map to no character (U+FFFD). */
function unmappedOnly(run: TextRun): boolean {
  const chars = run.text.replace(/\s+/g, "");
  return chars.length > 0 && /^\uFFFD+$/u.test(chars);
}

/** The regions of a text-layer page to read by OCR, and the runs OCR replaces. */
export function unreadText(page: PageGeometry): UnreadText {
  const garbled = new Set(page.runs.filter(garbledRun));
  // A short run of the same unmapped glyphs on the line of a garbled one is the rest of its word (pdf.js split it
  // where a glyph code became a space).
  for (const run of page.runs) {
    if (garbled.has(run) || !unmappedOnly(run)) continue;
    const near = [...garbled].some(
      (g) =>
        box.verticalOverlap(g.box, run.box) >= 0.5 &&
        Math.max(g.box.x1 - run.box.x2, run.box.x1 - g.box.x2) <= box.height(g.box) * GARBLED_REACH,
    );
    if (near) garbled.add(run);
  }
  const readable = page.runs.filter((run) => !garbled.has(run));
  const holdsText = (region: Box) => readable.some((run) => box.containsCenter(region, run.box));
  const regions: Box[] = [...garbled].map((run) => alongLine(grown(run.box, 2), readable));

  // Glyph outlines: glyph-sized subpaths several to a baseline, where the text layer has nothing.
  // A glyph under a text-layer run (text drawn as paths and again as text, a shadow) is read already.
  const underText = (o: Box) => readable.some((run) => box.containsCenter(run.box, o));
  const glyphs = glyphSized(page.outlines ?? []).filter((o) => !holdsText(o) && !underText(o));
  for (const line of glyphLines(glyphs)) regions.push(grown(box.union(line), 2));

  // Rows of text in images, where no text-layer text lies.
  for (const row of page.imageText ?? []) if (!holdsText(row)) regions.push(grown(row, 2));
  return { regions, garbled };
}

/**
 * How far, in line heights, a garbled run's region reaches along its line. pdf.js turns glyph codes 9 to 13 of a
 * font without characters (glyph ids of a CID font, codes of a Type3 font) into spaces, or drops them at the end
 * of a line, so the garbled runs of one word can stop short of its last letters.
 */
const GARBLED_REACH = 2;

/** The region widened along its line by GARBLED_REACH line heights, up to the nearest readable run on the line. */
function alongLine(region: Box, readable: readonly TextRun[]): Box {
  const reach = box.height(region) * GARBLED_REACH;
  let x1 = region.x1 - reach;
  let x2 = region.x2 + reach;
  for (const run of readable) {
    if (box.verticalOverlap(run.box, region) < 0.5) continue;
    if (run.box.x2 <= region.x1) x1 = Math.max(x1, run.box.x2);
    else if (run.box.x1 >= region.x2) x2 = Math.min(x2, run.box.x1);
  }
  return { ...region, x1, x2 };
}

/**
 * Outlines in a row, the next starting close after the last (within GAP_IN_LINE glyph heights: letters, word
 * spaces, and a letter drawn as a rectangle, which is no outline: the stem of an I),
 * overlapping it vertically by half the smaller height and horizontally by less than half the narrower width (the
 * boxes of hatching overlap each other).
 */
function rows(outlines: readonly Box[]): Box[][] {
  const sorted = [...outlines].sort((a, b) => a.x1 - b.x1);
  const open: Box[][] = [];
  const done: Box[][] = [];
  for (const b of sorted) {
    const h = box.height(b);
    let row: Box[] | undefined;
    let best = 0;
    for (let k = open.length - 1; k >= 0; k--) {
      const last = open[k][open[k].length - 1];
      const reach = GAP_IN_LINE * Math.max(h, box.height(last));
      if (b.x1 - last.x2 > reach) {
        // Nothing later in x order continues this row.
        done.push(...open.splice(k, 1));
        continue;
      }
      const across = Math.min(last.x2, b.x2) - Math.max(last.x1, b.x1);
      if (box.verticalOverlap(last, b) < 0.5 || across >= 0.5 * Math.min(box.width(last), box.width(b)))
        continue;
      // The row whose last shape spans most of this one's height and no more: a letter's counter (the hole of an
      // `o`, a shape of its own that opens a row) is half a letter high, and the next letter goes on with the
      // letters, not with it.
      const overlap = Math.min(last.y2, b.y2) - Math.max(last.y1, b.y1);
      const fit = overlap / Math.max(h, box.height(last));
      if (fit > best) {
        best = fit;
        row = open[k];
      }
    }
    if (row) row.push(b);
    else open.push([b]);
  }
  return [...done, ...open];
}

/**
 * Rows of outlines that are lines of type: GLYPHS_PER_LINE or more, most standing on one baseline (within an
 * eighth of their height), of varied widths. Identical shapes in a row (the bars of a chart, icons, hatching,
 * markers) are a pattern, not letters, which come wide and narrow.
 */
function glyphLines(outlines: readonly Box[]): Box[][] {
  return rows(outlines).filter((row) => {
    if (row.length < GLYPHS_PER_LINE) return false;
    const bottoms = row.map((b) => b.y2).sort((a, b) => a - b);
    const baseline = bottoms[bottoms.length >> 1];
    const heights = row.map((b) => box.height(b)).sort((a, b) => a - b);
    const tolerance = Math.max(0.5, heights[heights.length >> 1] / 8);
    const onBaseline = row.filter((b) => Math.abs(b.y2 - baseline) <= tolerance).length;
    const widths = row.map((b) => box.width(b)).sort((a, b) => a - b);
    const median = widths[widths.length >> 1];
    return (
      onBaseline >= row.length * 0.6 &&
      widths[widths.length - 1] - widths[0] >= median * 0.2 &&
      !drawnFaces(row)
    );
  });
}

/** How close two shapes' edges come to count as one edge they share, in points: drawn, not set. */
const SHARED_EDGE = 0.05;

/**
 * A row of a drawing's faces, not of letters: a quarter of its neighbours or more (two at least) share an edge
 * exactly, one shape's right side the next one's left, or are the same shape twice (filled, then stroked). A
 * drawing's faces are cut from one another (the flats of a hex nut, 80.7–95.1 and 95.1–124.6 pt); letters of type
 * stand apart by their side bearings or touch as one shape.
 */
function drawnFaces(row: readonly Box[]): boolean {
  let shared = 0;
  for (let k = 1; k < row.length; k++) {
    const [a, b] = [row[k - 1], row[k]];
    const same =
      Math.abs(a.x1 - b.x1) < SHARED_EDGE &&
      Math.abs(a.x2 - b.x2) < SHARED_EDGE &&
      Math.abs(a.y1 - b.y1) < SHARED_EDGE &&
      Math.abs(a.y2 - b.y2) < SHARED_EDGE;
    if (same || Math.abs(a.x2 - b.x1) < SHARED_EDGE) shared++;
  }
  return shared >= 2 && shared >= 0.25 * (row.length - 1);
}

function grown(b: Box, by: number): Box {
  return { x1: b.x1 - by, y1: b.y1 - by, x2: b.x2 + by, y2: b.y2 + by };
}

function clipped(b: Box, page: PageGeometry): Box {
  return {
    x1: Math.max(0, b.x1),
    y1: Math.max(0, b.y1),
    x2: Math.min(page.width, b.x2),
    y2: Math.min(page.height, b.y2),
  };
}

/** At most this many crops are read per page: a page of scattered unread bits is not worth a minute of OCR. */
const MAX_CROPS = 8;

/** The margin around a region in its crop, in points. */
const CROP_MARGIN = 6;

/**
 * The crops of the page OCR reads: the regions with a margin (OCR misreads type touching the image's edge), on
 * the page, overlapping ones merged, largest first.
 */
export function ocrCrops(unread: UnreadText, page: PageGeometry): Box[] {
  const crops: Box[] = [];
  for (const region of unread.regions.map((r) => clipped(grown(r, CROP_MARGIN), page))) {
    if (box.area(region) === 0) continue;
    let merged = region;
    for (let i = crops.length - 1; i >= 0; i--) {
      if (box.intersection(crops[i], merged) > 0) {
        merged = box.union([crops[i], merged]);
        crops.splice(i, 1);
      }
    }
    crops.push(merged);
  }
  return crops.sort((a, b) => box.area(b) - box.area(a)).slice(0, MAX_CROPS);
}

/** A word of this many letters or digits at most, read with less than this confidence, needs company. */
const STRAY = { chars: 2, confidence: 0.8 };

/**
 * A short word OCR read with little confidence alone on its line: no word of the page, read or in its text layer,
 * on the same line within a few letter heights of it. Shapes in a picture (a mascot's outline, a logo's swirl)
 * come out of OCR as such words (`as`, `4`); a short word of type (a banner's `IT`, a poster's `NO`) is read with
 * confidence, or sits on a line with others.
 */
function strayWord(word: TextRun, page: readonly TextRun[]): boolean {
  if (word.confidence >= STRAY.confidence) return false;
  if ((word.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) > STRAY.chars) return false;
  const height = box.height(word.box);
  return !page.some(
    (other) =>
      other !== word &&
      box.verticalOverlap(other.box, word.box) >= 0.5 &&
      -box.overlapX(other.box, word.box) <= height * 3,
  );
}

/**
 * The page with OCR's words added where its text layer is unread: words whose middle lies in a region and that
 * do not cover a text-layer run, read with some confidence, holding a letter or digit, and not a stray short word
 * alone on its line (strayWord). Garbled runs go.
 */
export function withOcrWords(
  page: PageGeometry,
  unread: UnreadText,
  words: readonly TextRun[],
): PageGeometry {
  const kept = page.runs.filter((run) => !unread.garbled.has(run));
  const read = words.filter(
    (word) =>
      word.confidence >= 0.5 &&
      /[\p{L}\p{N}]/u.test(word.text) &&
      unread.regions.some((region) => box.containsCenter(region, word.box)) &&
      !kept.some((run) => box.intersection(run.box, word.box) > box.area(word.box) * 0.3),
  );
  const all = [...kept, ...read];
  const added = read.filter((word) => !strayWord(word, all));
  return { ...page, runs: [...kept, ...added] };
}
