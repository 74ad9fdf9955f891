import type { Box } from "../model.ts";

/**
 * What the paginated backends (PDF, images) read off a page before any layout: text runs, ruling lines, filled
 * rectangles and image placements, in PDF points with the origin at the page's top left (the model's boxes).
 * A PDF's text layer and OCR both produce this, so one layout code serves both.
 */

/** A piece of text on one baseline in one font: a pdf.js text item, or one OCR word. May contain spaces. */
export interface TextRun {
  text: string;
  box: Box;
  /** The font's name without the subset prefix (`Times-Bold`), or `ocr`. */
  fontName: string;
  /** Points: the run's height for horizontal text. */
  fontSize: number;
  bold: boolean;
  italic: boolean;
  /** Reading direction of the run's characters. */
  dir: "ltr" | "rtl";
  /** 0..1: OCR's confidence in the word; 1 for a text layer. */
  confidence: number;
  /** True for text running up or down the page (rotated labels, vertical writing). */
  vertical?: boolean;
  /** True for text drawn on a slant, its baseline 15° or more off both axes (a diagonal stamp across a page). */
  slanted?: boolean;
  /** True when a space glyph was drawn just before it, after the run before it along the line (pdf/text.ts). */
  spaceBefore?: boolean;
  /** True when the run is drawn through (a strikethrough line crosses its middle); set by the graphics pass. */
  struck?: boolean;
  /**
   * True when some of its glyphs map to no character (a Type3 font without a usable ToUnicode): each is a U+FFFD
   * in `text` until OCR reads the run's region, or they are dropped.
   */
  unmapped?: boolean;
  /**
   * The rectangle a cell's text is clipped to, where the run's text runs on past it hidden (a spreadsheet's long
   * entry cut at its column's edge: pdf/clipped-text.ts); column evidence for tables (tables/clipped-cells.ts).
   */
  clip?: Box;
}

/** A ruling line: a stroked segment, or a thin filled rectangle, horizontal or vertical. */
export interface Rule {
  /** For a horizontal rule y1 == y2 (its middle), for a vertical one x1 == x2. */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Stroke width in points. */
  width: number;
  orientation: "h" | "v";
}

/** Where a raster image is drawn on the page. */
export interface ImagePlacement {
  box: Box;
}

export interface PageGeometry {
  /** 1-based. */
  pageNumber: number;
  /** Points, after the page's rotation is applied. */
  width: number;
  height: number;
  runs: TextRun[];
  rules: Rule[];
  /** Filled rectangles too large to be rules (cell shading, boxes). */
  rects: Box[];
  images: ImagePlacement[];
  /** Painted paths that are neither rules nor rectangles (curves, diagonals): vector figures and signatures. */
  drawings?: Box[];
  /** Painted subpaths that are not rectangles, one box each, counters left out: glyphs drawn as paths (PDF only). */
  outlines?: Box[];
  /** Open stroked paths with slanted segments, as points (the lines of line charts; PDF only). */
  polylines?: { x: number; y: number }[][];
  /** Rows of text seen in the page's images that its text layer does not hold, to read by OCR (PDF only). */
  imageText?: Box[];
  /**
   * On a page turned for its vertical writing, where the blocks of text set across it were set down upright
   * (pdf/vertical-writing.ts): tables are sought inside and outside them apart (PDF only).
   */
  acrossBlocks?: Box[];
  /** Barcodes and QR codes read on the page (parsing_options.barcode_detection). */
  barcodes?: { box: Box; text: string; format: string }[];
  /** Where the runs came from. */
  textSource: "text-layer" | "ocr" | "none";
  /** Problems on this page that did not stop the parse. */
  warnings: string[];
}

/** An empty stretch along one axis between boxes projected on it (reading order's gutters and row gaps). */
export interface Gap {
  start: number;
  end: number;
}

/** Box helpers. */
export const box = {
  width: (b: Box) => b.x2 - b.x1,
  height: (b: Box) => b.y2 - b.y1,
  area: (b: Box) => Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1),
  centerX: (b: Box) => (b.x1 + b.x2) / 2,
  centerY: (b: Box) => (b.y1 + b.y2) / 2,
  /** The length two horizontal extents share; negative, the gap between them. */
  overlapX: (a: Pick<Box, "x1" | "x2">, b: Pick<Box, "x1" | "x2">) =>
    Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1),
  /** The length two vertical extents share; negative, the gap between them. */
  overlapY: (a: Pick<Box, "y1" | "y2">, b: Pick<Box, "y1" | "y2">) =>
    Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1),
  union(boxes: readonly Box[]): Box {
    let x1 = Number.POSITIVE_INFINITY;
    let y1 = Number.POSITIVE_INFINITY;
    let x2 = Number.NEGATIVE_INFINITY;
    let y2 = Number.NEGATIVE_INFINITY;
    for (const b of boxes) {
      x1 = Math.min(x1, b.x1);
      y1 = Math.min(y1, b.y1);
      x2 = Math.max(x2, b.x2);
      y2 = Math.max(y2, b.y2);
    }
    return { x1, y1, x2, y2 };
  },
  intersection(a: Box, b: Box): number {
    const w = box.overlapX(a, b);
    const h = box.overlapY(a, b);
    return w > 0 && h > 0 ? w * h : 0;
  },
  /** Intersection over union, 0..1. */
  iou(a: Box, b: Box): number {
    const inter = box.intersection(a, b);
    return inter === 0 ? 0 : inter / (box.area(a) + box.area(b) - inter);
  },
  /** True when the center of `inner` lies inside `outer` (grown by `pad` points). */
  containsCenter(outer: Box, inner: Box, pad = 0): boolean {
    const cx = box.centerX(inner);
    const cy = box.centerY(inner);
    return cx >= outer.x1 - pad && cx <= outer.x2 + pad && cy >= outer.y1 - pad && cy <= outer.y2 + pad;
  },
  /** Overlap of the vertical extents relative to the smaller height, 0..1. */
  verticalOverlap(a: Box, b: Box): number {
    const overlap = box.overlapY(a, b);
    const smaller = Math.min(a.y2 - a.y1, b.y2 - b.y1);
    return smaller > 0 ? Math.max(0, overlap) / smaller : 0;
  },
  /** The box holding `b`'s four corners taken through `map` (a turn, a change of frame). */
  mapped(b: Box, map: (x: number, y: number) => readonly [number, number]): Box {
    return box.union(
      [map(b.x1, b.y1), map(b.x2, b.y1), map(b.x1, b.y2), map(b.x2, b.y2)].map(([x, y]) => ({
        x1: x,
        y1: y,
        x2: x,
        y2: y,
      })),
    );
  },
  round(b: Box): Box {
    const r = (v: number) => Math.round(v * 100) / 100;
    return { x1: r(b.x1), y1: r(b.y1), x2: r(b.x2), y2: r(b.y2) };
  },
};

/** A table found on a page, before it becomes a model item. Cells' rows and columns are 0-based. */
export interface DetectedTable {
  box: Box;
  numRows: number;
  numCols: number;
  cells: {
    row: number;
    col: number;
    rowSpan: number;
    colSpan: number;
    text: string;
    box: Box;
    columnHeader: boolean;
    rowHeader: boolean;
    /**
     * Where in `text` a space stands for a line break between two Hangul syllables: the assembly joins the word
     * there when the document spells it whole (hangul-wrap.ts).
     */
    hangulBreaks?: number[];
  }[];
  /** How it was found: a grid of ruling lines, or columns of aligned text. */
  method: "ruled" | "aligned";
}
